// The agents in the approval inbox: the presence an agent reports, and the privileged commands an admin
// signs for it, taken once. Methods of the inbox's Durable Object, assigned to its prototype in inbox.js.
import { HttpError, json, onlyKeys, readJsonObject } from "./http.js";
import { APPROVER_VERBS, commandChannelVersion, commandView, readCommandBody, readCommandResult, readStatus } from "./agent-channel.js";

export const agentMethods = {
  async reportStatus(agent, request) {
    const now = Date.now();
    const status = await readStatus(request, now);
    this.db.putAgentStatus(agent, now, status);
    this.broadcast({ type: "agent_status", status: { ...status, agent_id: agent, reported_at_ms: now } });
    return json({ agent_id: agent, reported_at_ms: now });
  },

  /** An approver's roles: granted by an admin's enrollment code, or named in ADMIN_APPROVERS. */
  rolesOf(approver) {
    const configured = (this.env.ADMIN_APPROVERS ?? "").split(",").map((name) => name.trim()).filter(Boolean);
    const roles = new Set(this.db.approverRoles(approver));
    if (configured.includes(approver)) roles.add("admin");
    return [...roles].sort();
  },

  /**
   * A privileged command, signed by an approver with the admin role, kept for the agent to take once; or a
   * reply or the answer to an interrupted agent's question, which any approver may sign (APPROVER_VERBS).
   */
  async command(agent, request) {
    const { action, command } = await readCommandBody(request, agent);
    const signer = typeof action.key_id === "string" ? this.db.key(action.key_id) : null;
    if (signer === null) throw new HttpError(403, "signature_invalid", "the command's key is not registered", "action.key_id");
    // An answer goes only to an agent that asks (interrupted, and not paused by an admin, whose resume it
    // would otherwise be).
    if (command.verb === "answer") {
      const status = this.db.agentStatuses().find((known) => known.agent_id === agent);
      if (status?.state !== "interrupted" || status.paused === true) {
        throw new HttpError(409, "not_asking", `agent \`${agent}\` asks nothing now (${status?.paused ? "paused by an admin: an admin resumes it" : (status?.state ?? "no report")})`, "action.detail");
      }
    }
    if (!APPROVER_VERBS.includes(command.verb) && !this.rolesOf(signer.approver).includes("admin")) {
      throw new HttpError(403, "forbidden", `\`${signer.approver}\` is not an admin: only an approver with the admin role commands an agent`, "action.key_id");
    }
    await this.takeAction(`agent:${agent}`, action, ["command"], commandChannelVersion(this.audience, agent));
    const now = Date.now();
    const row = this.db.insertAgentCommand({ agentId: agent, at: now, approver: signer.approver, keyId: signer.key_id, ...command });
    this.db.appendAudit(now, null, APPROVER_VERBS.includes(command.verb) ? command.verb : "privileged_command", { agent_id: agent, seq: row.seq, verb: command.verb, text: command.text, approver: signer.approver, key_id: signer.key_id, nonce: action.nonce });
    this.broadcast({ type: "command", command: commandView(row) });
    return json(commandView(row), 201);
  },

  /**
   * The agent takes a command before acting on it (a command is handed over once, whatever happens next);
   * with `{ result }` it then says what became of it, once.
   */
  async takeCommand(agent, seqText, request) {
    const seq = Number(seqText);
    if (!Number.isSafeInteger(seq) || seq < 1) throw new HttpError(400, "invalid_input", "a command is named by its seq", "seq");
    if (this.db.agentCommand(agent, seq) === null) throw new HttpError(404, "not_found", `agent \`${agent}\` has no command ${seq}`);
    const hasBody = (request.headers.get("content-type") ?? "") !== "";
    const body = hasBody ? await readJsonObject(request) : {};
    if (body.result !== undefined) {
      const result = readCommandResult(body);
      if (!this.db.recordCommandResult(agent, seq, result)) throw new HttpError(409, "conflict", `command ${seq} is not taken, or its result is recorded already`);
      const row = this.db.agentCommand(agent, seq);
      this.db.appendAudit(Date.now(), null, "command_result", { agent_id: agent, seq, ...result });
      this.broadcast({ type: "command", command: commandView(row) });
      return json(commandView(row));
    }
    onlyKeys(body, ["result"]);
    if (!this.db.takeAgentCommand(agent, seq, Date.now())) throw new HttpError(409, "already_taken", `command ${seq} was taken already`);
    const row = this.db.agentCommand(agent, seq);
    this.db.appendAudit(row.taken_at, null, "command_taken", { agent_id: agent, seq });
    this.broadcast({ type: "command", command: commandView(row) });
    return json(commandView(row));
  },
};

/**
 * An agent token bound to an agent id (`agent:<id>` among the roles) acts for that agent only; the inbox and
 * the admin read any agent's channel.
 */
export function forThisAgent(roles, agent) {
  if (roles.has("inbox") || roles.has("admin")) return;
  const bound = [...roles].filter((role) => role.startsWith("agent:"));
  if (bound.length > 0 && !bound.includes(`agent:${agent}`)) {
    throw new HttpError(403, "forbidden", `this agent token acts for ${bound.map((role) => role.slice(6)).join(", ")}, not \`${agent}\``);
  }
}
