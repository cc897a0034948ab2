// The agent's presence, reported to the edge guard (PUT /v1/agents/{id}/status), which keeps the latest and
// shows it live in the inbox: what the agent is doing (observing, judging, reviewing, waiting for a person,
// executing, idle, stopped and why, interrupted, paused), since when, and the last change of the board it saw.
// Reports are sent one at a time, newest wins; a report that cannot be sent is retried with the next change.
import { HALT_REASON_LIMIT, STATUS_TEXT_LIMITS } from "../../edge/service/agent-status-fields.js";

const cut = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The report cut to what the guard keeps: longer text is cut here, never refused there. */
function clipped(fields) {
  const copy = { ...fields };
  for (const [field, max] of Object.entries(STATUS_TEXT_LIMITS)) {
    if (typeof copy[field] === "string") copy[field] = cut(copy[field], max);
  }
  if (copy.halt && typeof copy.halt.reason === "string") copy.halt = { ...copy.halt, reason: cut(copy.halt.reason, HALT_REASON_LIMIT) };
  return copy;
}

/**
 * `send(status)` delivers one report (it may throw). `now()` gives epoch milliseconds. Returns
 * { set(state, fields), current(), flush() }.
 */
export function presenceReporter({ send, now = Date.now }) {
  let current = null;
  let inFlight = null;
  let again = false;

  async function deliver() {
    do {
      again = false;
      try {
        // When it was sent, by this agent's clock: the guard moves the report's times onto its own clock.
        await send({ ...current, sent_at_ms: now() });
      } catch {
        // The guard is unreachable: the next change reports again.
      }
    } while (again);
    inFlight = null;
  }

  function flush() {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = deliver();
    return inFlight;
  }

  return {
    /** A new state (its `since_ms` kept while the state and its step stay the same), reported at once. */
    set(state, fields = {}) {
      const same = current !== null && current.state === state && current.step === clipped({ step: fields.step ?? null }).step;
      const next = clipped({ ...fields, state, step: fields.step ?? null, since_ms: same ? current.since_ms : now() });
      if (current !== null && JSON.stringify(next) === JSON.stringify(current)) return inFlight ?? Promise.resolve();
      current = next;
      return flush();
    },
    current: () => current,
    flush,
  };
}

/** One line saying what changed on the board between two observations (`{ node: status }` each). */
export function boardChange(before, after) {
  if (before === null) {
    const count = Object.keys(after).length;
    return `first look: ${count} ${count === 1 ? "task" : "tasks"}`;
  }
  const changes = [];
  for (const [node, status] of Object.entries(after)) {
    if (before[node] === undefined) changes.push(`${node} added (${status})`);
    else if (before[node] !== status) changes.push(`${node}: ${before[node]} → ${status}`);
  }
  for (const node of Object.keys(before)) if (after[node] === undefined) changes.push(`${node} removed`);
  return changes.join(", ") || "no change";
}
