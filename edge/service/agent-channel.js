// The agents' channel through the guard: an agent reports what it is doing (its presence, shown live in the
// inbox), and approvers with the admin role send it privileged commands (seed 002's Command UI). A command
// is a human action signed by the approver, single-use (its nonce is recorded), audited as privileged, and
// handed to the agent at most once: the agent marks it taken before it acts on it, so a restart never
// carries one out twice.
import { stateVersion } from "agent-governor/guard";
import { HttpError, json, onlyKeys, readJsonObject, requireText } from "./http.js";

/** What an agent may say it is doing. */
export const AGENT_STATES = ["observing", "judging", "reviewing", "waiting", "executing", "idle", "stopped", "interrupted", "paused"];
/** The commands an admin may send, by their first word (the rest is the command's text). */
export const COMMAND_VERBS = ["instruction", "goal", "discard", "stop", "resume", "whitelist", "prefix"];
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

/** The version a signed command names: the agent's command channel (each command is single-use by its nonce). */
export function commandChannelVersion(agent) {
  return stateVersion(JSON.stringify(["agent-commands", agent]));
}

/** The verb and the rest of a command line; an unknown verb or a missing text is refused before anything is used. */
export function readCommand(detail) {
  const line = requireText(detail, "action.detail", { max: 64 * 1024 });
  const verb = line.trim().split(/\s+/u)[0] ?? "";
  if (!COMMAND_VERBS.includes(verb)) {
    throw new HttpError(400, "invalid_input", `a command starts with one of ${COMMAND_VERBS.join(", ")}`, "action.detail");
  }
  const text = line.trim().slice(verb.length).trim();
  const needsText = ["instruction", "goal", "whitelist", "prefix"].includes(verb);
  if (needsText && text === "") throw new HttpError(400, "invalid_input", `\`${verb}\` needs its text after the verb`, "action.detail");
  if (!needsText && text !== "") throw new HttpError(400, "invalid_input", `\`${verb}\` takes no text`, "action.detail");
  if (verb === "whitelist" && !/^(add|remove) \S+$/u.test(text)) {
    throw new HttpError(400, "invalid_input", "`whitelist` is `whitelist add <type>` or `whitelist remove <type>`", "action.detail");
  }
  if (verb === "prefix" && /\s/u.test(text)) throw new HttpError(400, "invalid_input", "`prefix` takes one token", "action.detail");
  return { verb, text };
}

/** The agent's own report, checked for shape and size; the guard adds when it arrived. */
export async function readStatus(request) {
  const body = await readJsonObject(request);
  if (!AGENT_STATES.includes(body.state)) throw new HttpError(400, "invalid_input", `state must be one of ${AGENT_STATES.join(", ")}`, "state");
  if (JSON.stringify(body).length > MAX_STATUS_BYTES) throw new HttpError(413, "payload_too_large", `a status report is at most ${MAX_STATUS_BYTES} bytes`);
  for (const field of ["since_ms", "board_seen_ms"]) {
    if (body[field] !== undefined && body[field] !== null && !Number.isSafeInteger(body[field])) {
      throw new HttpError(400, "invalid_input", `\`${field}\` must be a time in milliseconds since the epoch`, field);
    }
  }
  return body;
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

export function commandsView(db, agent, url) {
  const since = Number(url.searchParams.get("since") ?? 0);
  if (!Number.isSafeInteger(since) || since < 0) throw new HttpError(400, "invalid_input", "since must be a whole number (a command's seq)", "since");
  const untaken = url.searchParams.get("untaken") === "true";
  return json({
    agent_id: agent,
    version: commandChannelVersion(agent),
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
  };
}
