// The agent's presence, live from the guard's feed: what it is doing and since when, which approval it waits
// for, why it stopped and how to go on, and the last change of the board it saw.
import { duration } from "./durations.js";
import { element, shown } from "./render.js";

/** Fills `box` with the status of `agent` (the guard's latest report, or null when none is known). */
export function showPresence(box, agent, words, now, { isAdmin, knownApproval = () => false, linesOf = () => null }) {
  if (!agent) {
    box.dataset.state = "none";
    box.replaceChildren(element("p", { class: "muted", text: words.presenceNone }));
    return;
  }
  box.dataset.state = agent.state;
  const lines = [];
  const since = typeof agent.since_ms === "number" ? duration(now - agent.since_ms, words.locale) : "";
  const headline = words.presence?.[agent.state] ?? agent.state;
  // Everything below is the agent's own report, relayed by the guard: it says so.
  lines.push(element("p", { class: "muted", "data-testid": "presence-source" }, element("code", { text: shown(agent.agent_id) }), ` · ${words.reportedByAgent}`));
  lines.push(
    element(
      "p",
      { class: "presence-state" },
      element("strong", { "data-testid": "presence-state", text: headline }),
      agent.step && agent.state !== "stopped" ? element("span", { text: ` · ${words.steps?.[agent.step] ?? shown(agent.step)}` }) : null,
      since ? element("span", { class: "muted", "data-testid": "presence-elapsed", text: ` · ${words.forTime(since)}` }) : null,
    ),
  );
  if (agent.state === "waiting" && agent.approval_id) {
    // A link only to an approval this inbox shows: an agent cannot point the person anywhere else.
    const text = words.waitingFor(shown(linesOf(agent.approval_id) ?? agent.what ?? agent.approval_id));
    lines.push(element("p", {}, knownApproval(agent.approval_id) ? element("a", { href: `#approval-${agent.approval_id}`, text }) : element("span", { text })));
  } else if (agent.state === "executing" && agent.approval_id && linesOf(agent.approval_id)) {
    // Applying an approval this inbox shows: its line in the page's language.
    lines.push(element("p", { "data-testid": "presence-what", text: words.executingWhat(shown(linesOf(agent.approval_id))) }));
  } else if (agent.what && ["reviewing", "executing"].includes(agent.state)) {
    lines.push(element("p", { "data-testid": "presence-what" }, element("span", { class: "agent-text", text: shown(agent.what) })));
  }
  if (agent.state === "stopped") {
    const kind = agent.halt?.kind ?? "";
    lines.push(element("p", { "data-testid": "presence-why", text: words.stoppedWhy(kind, shown(agent.halt?.reason ?? "")) }));
    lines.push(element("p", { class: "muted", text: isAdmin ? words.goOnAdmin : words.goOnOther }));
  }
  if (agent.state === "paused") lines.push(element("p", { class: "muted", text: isAdmin ? words.pausedAdmin : words.goOnOther }));
  if (agent.goal) lines.push(element("p", { class: "muted" }, element("span", { text: `${words.goal}: ` }), element("span", { class: "agent-text", text: shown(agent.goal) })));
  if (agent.board_change) {
    const seen = typeof agent.board_seen_ms === "number" ? words.ago(duration(now - agent.board_seen_ms, words.locale)) : "";
    lines.push(element("p", { class: "muted", "data-testid": "presence-board", text: words.boardSeen(shown(agent.board_change), seen) }));
  }
  if (typeof agent.reported_at_ms === "number" && now - agent.reported_at_ms > 120_000 && !["stopped", "paused", "idle"].includes(agent.state)) {
    lines.push(element("p", { class: "warning", text: words.silent(duration(now - agent.reported_at_ms, words.locale)) }));
  }
  box.replaceChildren(...lines);
}
