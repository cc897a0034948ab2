// The agents' channel through the guard: an agent reports what it is doing (its presence, shown live in the
// inbox), and approvers with the admin role send it privileged commands (seed 002's Command UI). A command
// is a human action signed by the approver, single-use (its nonce is recorded), audited as privileged, and
// handed to the agent at most once: the agent marks it taken before it acts on it, so a restart never
// carries one out twice. Allow-listed Discord users send commands too (discord.js, Discord's signature and
// interaction id instead of an approver's), but never one that widens the whitelist.
import { stateVersion } from "agent-governor/guard";
import { HttpError, json, onlyKeys, readJsonObject, requireText } from "./http.js";
import { HALT_REASON_LIMIT, STATUS_TEXT_LIMITS } from "./agent-status-fields.js";

/** What an agent may say it is doing. */
export const AGENT_STATES = ["observing", "judging", "reviewing", "waiting", "executing", "idle", "stopped", "interrupted", "paused"];
/** The commands an admin may send, by their first word (the rest is the command's text). */
export const COMMAND_VERBS = ["instruction", "goal", "discard", "stop", "resume", "whitelist", "prefix", "reply", "answer"];
/**
 * The verbs any approver may send, admin or not: a reply (it decides and commands nothing: the agent reads it
 * when it next judges), and the answer to the question an interrupted agent asks (`answer resume` or
 * `answer discard`), a decision like an approval's.
 */
export const APPROVER_VERBS = ["reply", "answer"];
/** The answers to an interrupted agent's question. */
export const ANSWERS = ["resume", "discard"];
/** An agent id: one path segment of letters, digits and `. _ : -`. */
const AGENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;
/** The largest presence report kept (a report over it is refused: it is the agent's, never a person's). */
const MAX_STATUS_BYTES = 16 * 1024;
/** How many commands a listing returns at most. */
const MAX_COMMANDS = 200;

export function agentId(value) {
  const id = requireText(value, "agent_id", { max: 64 });
  if (!AGENT_ID.test(id)) throw new HttpError(400, "invalid_input", "an agent id is 1-64 letters, digits, `.`, `_`, `:` or `-`", "agent_id");
  return id;
}

/**
 * The version a signed command names: the agent's command channel on this guard (its audience), so a
 * command signed for one guard is refused by another; each command is single-use by its nonce.
 */
export function commandChannelVersion(audience, agent) {
  return stateVersion(JSON.stringify(["agent-commands", audience, agent]));
}

/** Characters that separate words for the agent's loop or for this guard (Unicode white space and NEL). */
const SEPARATORS = /[\s\u0085\p{Z}]+/u;
/** A rule's token: no separator, control, format or unassigned character. */
const TOKEN = /^[^\s\u0085\p{Z}\p{Cc}\p{Cf}\p{Cn}]+$/u;

/** The verb and the rest of a command line; an unknown verb or a missing text is refused before anything is used. */
export function readCommand(detail) {
  const line = requireText(detail, "action.detail", { max: 64 * 1024 });
  // The verb is the line's first word exactly, followed by one space (or nothing): no other spacing is read.
  const verb = line.split(" ", 1)[0];
  if (!COMMAND_VERBS.includes(verb)) {
    throw new HttpError(400, "invalid_input", `a command starts with one of ${COMMAND_VERBS.join(", ")}`, "action.detail");
  }
  const text = line.slice(verb.length + 1);
  if (line.length > verb.length && line[verb.length] !== " ") throw new HttpError(400, "invalid_input", "a verb is followed by one space", "action.detail");
  const needsText = ["instruction", "goal", "whitelist", "prefix", "reply", "answer"].includes(verb);
  if (needsText && text === "") throw new HttpError(400, "invalid_input", `\`${verb}\` needs its text after the verb`, "action.detail");
  if (!needsText && text !== "") throw new HttpError(400, "invalid_input", `\`${verb}\` takes no text`, "action.detail");
  const words = text.split(" ");
  if (verb === "whitelist" && !(words.length === 2 && ["add", "remove"].includes(words[0]) && TOKEN.test(words[1]))) {
    throw new HttpError(400, "invalid_input", "`whitelist` is `whitelist add <type>` or `whitelist remove <type>`", "action.detail");
  }
  if (verb === "prefix" && !TOKEN.test(text)) throw new HttpError(400, "invalid_input", "`prefix` takes one token", "action.detail");
  if (verb === "answer" && !ANSWERS.includes(text)) throw new HttpError(400, "invalid_input", "`answer` is `answer resume` or `answer discard`", "action.detail");
  if (["instruction", "goal", "reply"].includes(verb) && text.replace(SEPARATORS, "") === "") {
    throw new HttpError(400, "invalid_input", `\`${verb}\` needs its text after the verb`, "action.detail");
  }
  return { verb, text };
}

/** The text fields a report may carry, with the longest text each may hold (the guard adds `agent_id` and when it arrived). */
const STATUS_TEXT_FIELDS = STATUS_TEXT_LIMITS;
const STATUS_TIME_FIELDS = ["since_ms", "board_seen_ms"];
/** The control loop's halt kinds (HaltKind); any other is shown as "other". */
const HALT_KINDS = ["declined", "failed", "judgement_failed", "restart_needed", "outcome_unknown", "not_persisted"];

/**
 * The agent's own report, field by field: a known field of the wrong type, or any other field, is a typed
 * 400 (a report is shown to people: nothing in it may be an object where text is expected).
 */
export async function readStatus(request, now = Date.now()) {
  const body = await readJsonObject(request);
  if (JSON.stringify(body).length > MAX_STATUS_BYTES) throw new HttpError(413, "payload_too_large", `a status report is at most ${MAX_STATUS_BYTES} bytes`);
  onlyKeys(body, ["state", "paused", "halt", "sent_at_ms", ...Object.keys(STATUS_TEXT_FIELDS), ...STATUS_TIME_FIELDS]);
  if (!AGENT_STATES.includes(body.state)) throw new HttpError(400, "invalid_input", `state must be one of ${AGENT_STATES.join(", ")}`, "state");
  const status = { state: body.state, paused: body.paused === true };
  if (body.paused !== undefined && typeof body.paused !== "boolean") throw new HttpError(400, "invalid_input", "`paused` must be true or false", "paused");
  for (const [field, max] of Object.entries(STATUS_TEXT_FIELDS)) {
    status[field] = body[field] === undefined || body[field] === null ? null : requireText(body[field], field, { max });
  }
  for (const field of STATUS_TIME_FIELDS) {
    if (body[field] !== undefined && body[field] !== null && !Number.isSafeInteger(body[field])) {
      throw new HttpError(400, "invalid_input", `\`${field}\` must be a time in milliseconds since the epoch`, field);
    }
    status[field] = body[field] ?? null;
  }
  // Times on the guard's one clock: the agent says when it sent the report by its own clock (`sent_at_ms`),
  // and each of its times is moved by the difference between the two clocks (the report's transit counted
  // in it), never later than the guard's now. Without `sent_at_ms` the times are kept as the agent gave them.
  if (body.sent_at_ms !== undefined) {
    if (!Number.isSafeInteger(body.sent_at_ms) || body.sent_at_ms < 0) throw new HttpError(400, "invalid_input", "`sent_at_ms` must be a time in milliseconds since the epoch", "sent_at_ms");
    const skew = now - body.sent_at_ms;
    for (const field of STATUS_TIME_FIELDS) {
      if (status[field] !== null) status[field] += skew;
    }
  }
  // With or without it, no time of a report is later than the guard's now or before the epoch.
  for (const field of STATUS_TIME_FIELDS) {
    if (status[field] !== null) status[field] = Math.max(0, Math.min(now, status[field]));
  }
  status.halt = null;
  if (body.halt !== undefined && body.halt !== null) {
    if (typeof body.halt !== "object" || Array.isArray(body.halt)) throw new HttpError(400, "invalid_input", "`halt` must be { kind, reason }", "halt");
    onlyKeys(body.halt, ["kind", "reason"], "halt");
    const kind = requireText(body.halt.kind, "halt.kind", { max: 64 });
    status.halt = { kind: HALT_KINDS.includes(kind) ? kind : "other", reason: body.halt.reason == null ? "" : requireText(body.halt.reason, "halt.reason", { max: HALT_REASON_LIMIT }) };
  }
  return status;
}

/** The body of a signed command: `{ action }`, a `command` human action about `agent:<id>`. */
export async function readCommandBody(request, agent) {
  const body = await readJsonObject(request);
  onlyKeys(body, ["action"]);
  const action = body.action;
  if (action === null || typeof action !== "object" || Array.isArray(action)) {
    throw new HttpError(400, "invalid_input", "the signed `action` is required", "action");
  }
  if (action.action !== "command") throw new HttpError(400, "invalid_input", "action must be command", "action.action");
  if (action.approval_id !== `agent:${agent}`) {
    throw new HttpError(422, "change_mismatch", `a command to this agent names \`agent:${agent}\``, "action.approval_id");
  }
  return { action, command: readCommand(action.detail) };
}

/** What an agent reports after carrying out a command it took: `{ carried_out, detail }`. */
export function readCommandResult(body) {
  onlyKeys(body, ["result"]);
  const result = body.result;
  if (result === null || typeof result !== "object" || Array.isArray(result)) throw new HttpError(400, "invalid_input", "`result` must be { carried_out, detail }", "result");
  onlyKeys(result, ["carried_out", "detail"], "result");
  if (typeof result.carried_out !== "boolean") throw new HttpError(400, "invalid_input", "`result.carried_out` must be true or false", "result.carried_out");
  return { carried_out: result.carried_out, detail: result.detail == null ? "" : requireText(result.detail, "result.detail", { max: 1000 }) };
}

export function commandsView(db, agent, url, audience) {
  const since = Number(url.searchParams.get("since") ?? 0);
  if (!Number.isSafeInteger(since) || since < 0) throw new HttpError(400, "invalid_input", "since must be a whole number (a command's seq)", "since");
  const untaken = url.searchParams.get("untaken") === "true";
  return json({
    agent_id: agent,
    version: commandChannelVersion(audience, agent),
    commands: db.agentCommands(agent, since, untaken, MAX_COMMANDS).map(commandView),
  });
}

export function commandView(row) {
  return {
    seq: row.seq,
    agent_id: row.agent_id,
    verb: row.verb,
    text: row.text,
    approver: row.approver,
    key_id: row.key_id,
    at_ms: row.at,
    taken_at_ms: row.taken_at,
    // Set by the agent once it carried the command out (or could not): until then a taken command's outcome is unknown.
    result: row.result === null || row.result === undefined ? null : JSON.parse(row.result),
  };
}
