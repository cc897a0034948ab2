// The control loop's telemetry records (`otelLogRecord`, what the loop's `telemetry` port receives) as
// OpenTelemetry spans in the OTLP JSON encoding: one `invoke_agent` span per task, parent of one
// `execute_tool` span per action, with the loop's other records (approvals among them) as the task span's
// events. Attribute names follow the OpenTelemetry GenAI semantic conventions, whose status is
// "development": they may still change.
//
// The records carry no task id and no mark of a task's start or end, so the tasks are read from the core's
// own summaries (`agent_governor.event_summary`, written by src/control/step.rs): a person's message starts
// a task (so does any record while none is open); the loop stopping (a halt) or a conversation reply ends
// it. A task that ends in a judgement of "wait" writes no record: it ends at the next of those, or when the
// exporter shuts down (then marked unfinished). The tests drive a real loop, so a changed summary fails them.
import { parseTime } from "../wasm/agent_governor_full.js";
import { isPlainObject } from "../approver/plain-object.js";

/** The core's summaries that bound a task (src/control/step.rs). */
const HUMAN_MESSAGE = "human message";
const HALT = "stopped";
const REPLY = "reply";

/** OTLP span kind INTERNAL; status codes UNSET and ERROR. */
const SPAN_KIND_INTERNAL = 1;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

/** The most events one task span carries (OpenTelemetry SDKs' default); more are counted as dropped. */
const MAX_EVENTS_PER_SPAN = 128;
/** The most actions remembered between their approval and their execution (the oldest forgotten first). */
const MAX_TRACKED_ACTIONS = 1024;
/** The most attributes a record from the loop has, with room to spare; a record with more is malformed. */
const MAX_RECORD_ATTRIBUTES = 32;

const SUMMARY = "agent_governor.event_summary";
const CAUSE = "agent_governor.cause";
const OUTCOME = "agent_governor.outcome";
const OPERATION = "gen_ai.operation.name";
const TOOL_NAME = "gen_ai.tool.name";
const CALL_ID = "gen_ai.tool.call.id";

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));
/** Random bytes drawn from `crypto.getRandomValues` a block at a time (one call per id is slow in Node). */
const pool = new Uint8Array(4096);
let used = pool.length;

/** `count` random bytes as lower-case hex, never all zeros (an invalid id in OTLP). */
function randomHex(count) {
  for (;;) {
    if (used + count > pool.length) {
      crypto.getRandomValues(pool);
      used = 0;
    }
    const bytes = pool.subarray(used, used + count);
    used += count;
    if (bytes.some((byte) => byte !== 0)) return Array.from(bytes, (byte) => HEX[byte]).join("");
  }
}

/** An OTLP JSON attribute (`KeyValue`): strings, integers (as decimal strings), booleans. */
export function attribute(key, value) {
  if (typeof value === "boolean") return { key, value: { boolValue: value } };
  if (Number.isSafeInteger(value)) return { key, value: { intValue: String(value) } };
  if (typeof value === "number") return { key, value: { doubleValue: value } };
  return { key, value: { stringValue: String(value) } };
}

const attributes = (entries) => Object.entries(entries).map(([key, value]) => attribute(key, value));

/**
 * A record as the loop gives it, checked and copied: `{ kind, name, nanos, attributes }`, or null when it is
 * not one (anything it throws while read included).
 */
export function readRecord(record) {
  try {
    if (!isPlainObject(record)) return null;
    const { kind, name, time, attributes: given } = record;
    if ((kind !== "span" && kind !== "event") || typeof name !== "string" || name === "") return null;
    if (typeof time !== "string" || !isPlainObject(given)) return null;
    const entries = Object.entries(given);
    if (entries.length > MAX_RECORD_ATTRIBUTES) return null;
    if (!entries.every(([key, value]) => key !== "" && typeof value === "string")) return null;
    const copied = Object.fromEntries(entries);
    if (kind === "span") {
      const operation = copied[OPERATION];
      if (operation === "execute_tool") {
        if (!copied[TOOL_NAME] || !copied[CALL_ID]) return null;
      } else if (operation !== "invoke_agent") {
        return null;
      }
    }
    // The core reads the time (RFC 3339, strict); OTLP has no instant before 1970.
    const millis = parseTime(time);
    if (!Number.isSafeInteger(millis) || millis < 0) return null;
    return { kind, name, nanos: BigInt(millis) * 1_000_000n, attributes: copied };
  } catch {
    return null;
  }
}

/**
 * Builds spans from records, in order. `emit(span)` receives each span once it has ended (an OTLP JSON
 * `Span`). An `execute_tool` span is emitted after the step that wrote its record (a microtask later), so
 * that the halt the same step writes when the action failed marks it as an error.
 */
export function createSpanBuilder({ agentName, emit }) {
  let task = null;
  /** call id -> { traceId, spanId, nanos }: the task of the newest record about the action, and its time. */
  const actions = new Map();
  /** The newest `execute_tool` span, until the records of its step are in (a microtask later). */
  let held = null;
  let releasing = false;

  function release() {
    if (held === null) return;
    const { span } = held;
    held = null;
    emit(span);
  }

  function openTask(nanos) {
    task = { traceId: randomHex(16), spanId: randomHex(8), start: nanos, end: nanos, events: [], dropped: 0, actions: 0 };
  }

  function endTask(end) {
    if (task === null) return;
    const ended = task;
    task = null;
    emit({
      traceId: ended.traceId,
      spanId: ended.spanId,
      name: "invoke_agent",
      kind: SPAN_KIND_INTERNAL,
      startTimeUnixNano: String(ended.start),
      endTimeUnixNano: String(ended.end),
      attributes: attributes({
        [OPERATION]: "invoke_agent",
        "gen_ai.agent.name": agentName,
        "agent_governor.task.end": end,
        "agent_governor.task.actions": ended.actions,
      }),
      events: ended.events,
      droppedEventsCount: ended.dropped,
      status: { code: STATUS_UNSET },
    });
  }

  function addEvent(record) {
    if (task.events.length >= MAX_EVENTS_PER_SPAN) {
      task.dropped += 1;
      return;
    }
    task.events.push({ timeUnixNano: String(record.nanos), name: record.name, attributes: attributes(record.attributes) });
  }

  function remember(callId, nanos) {
    actions.delete(callId);
    actions.set(callId, { traceId: task.traceId, spanId: task.spanId, nanos });
    if (actions.size > MAX_TRACKED_ACTIONS) actions.delete(actions.keys().next().value);
  }

  function executed(record) {
    const callId = record.attributes[CALL_ID];
    const seen = actions.get(callId);
    actions.delete(callId);
    const parent = seen ?? task;
    if (parent.spanId === task.spanId) task.actions += 1;
    // From the newest record about the action before this one (its approval), to this one.
    const start = seen && seen.nanos <= record.nanos ? seen.nanos : record.nanos;
    const span = {
      traceId: parent.traceId,
      spanId: randomHex(8),
      parentSpanId: parent.spanId,
      name: record.name,
      kind: SPAN_KIND_INTERNAL,
      startTimeUnixNano: String(start),
      endTimeUnixNano: String(record.nanos),
      attributes: attributes(record.attributes),
      status: record.attributes[OUTCOME] === "failed" ? { code: STATUS_ERROR, message: `${record.attributes[SUMMARY]} failed` } : { code: STATUS_UNSET },
    };
    held = { span, summary: record.attributes[SUMMARY] };
    if (!releasing) {
      releasing = true;
      queueMicrotask(() => {
        releasing = false;
        release();
      });
    }
  }

  return {
    /** Adds one record read by `readRecord`. */
    add(record) {
      const summary = record.attributes[SUMMARY];
      if (held !== null) {
        // The halt after a failed action names it: "<what the action did> failed" (src/control/step.rs);
        // a record with the loop's outcome says so itself.
        if (held.span.status.code !== STATUS_ERROR && summary === HALT && record.attributes[CAUSE] === `${held.summary} failed`) {
          held.span.status = { code: STATUS_ERROR, message: record.attributes[CAUSE] };
        }
        release();
      }
      const agentRecord = record.kind === "span" && record.attributes[OPERATION] === "invoke_agent";
      if (agentRecord && summary === HUMAN_MESSAGE) endTask("superseded");
      if (task === null) openTask(record.nanos);
      if (record.nanos > task.end) task.end = record.nanos;
      if (record.kind === "span" && !agentRecord) {
        executed(record);
      } else {
        addEvent(record);
        const callId = record.attributes[CALL_ID];
        if (callId) remember(callId, record.nanos);
      }
      if (summary === HALT) endTask("stopped");
      else if (agentRecord && summary === REPLY) endTask("replied");
    },
    /** Emits the span held for its step, if any. */
    release,
    /** Emits everything: the held span, and the open task's span marked unfinished. */
    finish() {
      release();
      endTask("unfinished");
    },
    /** How many ended spans are not emitted yet (0 or 1). */
    pending: () => (held === null ? 0 : 1),
  };
}
