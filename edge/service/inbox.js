// The approval inbox: one SQLite-backed Durable Object holds the approvals, the approvers' public keys,
// the Executor's confirmation store and the audit trail of one inbox, and runs the Executor. Requests reach
// it only through the worker, which authenticates bearer tokens and names the caller's roles.
import { DurableObject } from "cloudflare:workers";
import { Executor, Guard, changeDigest, formatTime, parseTime, passkeySignCount, requestFor } from "agent-governor/guard";
import { Database } from "./database.js";
import { HttpError, errorResponse, isPlainObject, json, onlyKeys, pathSegments, readJsonObject, requireText } from "./http.js";
import { APPROVAL_STATES, approvalView, readProposal, reconfirmation, unreadableView } from "./proposal.js";
import { ReceiptLog } from "./receipts.js";
import { discordInteraction } from "./discord.js";
import { McpUpstream, TOOL_CALL, mcpEndpoint } from "./mcp.js";
import { notifyWebhook, proposalMessage, unknownOutcomeMessage } from "./webhook.js";
import { agentId, commandsView } from "./agent-channel.js";
import { readSkillUrls, upstreamSkill } from "./skills.js";
import { approverName, enrollmentsVersion, keyMethods, publicKeyView } from "./inbox-keys.js";
import { agentMethods, forThisAgent } from "./inbox-agents.js";
import { feedMethods, requireUpgrade } from "./inbox-feed.js";
import { editMethods } from "./inbox-edits.js";
import { approverRuleMethods } from "./approver-rules.js";
import { historyRuleMethods } from "./history-rules.js";
import { mandateMethods } from "./mandates.js";
import { decisionMetrics } from "./decision-metrics.js";

export const ROLES_HEADER = "x-agent-governor-roles";
const LIFECYCLE_FIELDS = ["consumed", "consumed_at", "cancelled", "in_flight_at", "invalidated_at", "seal"];
const MAX_LIST = 500;

const PHASE_STATUS = {
  signature_invalid: 403,
  wrong_audience: 403,
  action_replayed: 409,
  stale_action: 409,
  not_cancellable: 409,
  not_in_flight: 409,
  conflict: 409,
  already_exists: 409,
  already_consumed: 409,
  not_found: 409,
  record_tampered: 500,
  store_failed: 500,
  malformed_record: 500,
};

/** Every route's methods, by path shape: a known path with another method is a 405, not a 404. */
const ROUTE_METHODS = {
  proposals: ["POST"],
  approvals: ["GET"],
  "approvals/:id": ["GET"],
  "approvals/:id/decision": ["POST"],
  "approvals/:id/cancel": ["POST"],
  "approvals/:id/reconcile": ["POST"],
  "approvals/:id/reconfirm": ["POST"],
  "approvals/:id/edit": ["GET", "POST"],
  "approvals/:id/preview": ["GET"],
  apply: ["POST"],
  audit: ["GET"],
  feed: ["GET"],
  "feed-tickets": ["POST"],
  keys: ["GET"],
  enrollments: ["GET", "POST"],
  "approver-rules": ["GET", "PUT"],
  "history-rules": ["GET", "PUT"],
  mandates: ["GET", "POST"],
  "decision-metrics": ["GET"],
  "mandates/:id/revoke": ["POST"],
  "approvers/:id/keys": ["GET", "POST"],
  "approvers/:id/keys/:key": ["POST", "DELETE"],
  agents: ["GET"],
  receipts: ["GET"],
  "receipts/:id": ["GET"],
  "agents/:id/status": ["GET", "PUT"],
  "agents/:id/commands": ["GET", "POST"],
  "agents/:id/commands/:key": ["POST"],
  "discord/:id": ["POST"],
  mcp: ["POST"],
};

function rejection(verdict) {
  const status = PHASE_STATUS[verdict.phase] ?? 422;
  const reason = status === 500 ? `${verdict.reason} Nothing was changed.` : verdict.reason;
  return new HttpError(status, verdict.phase, reason);
}

function sinceParam(url) {
  const text = url.searchParams.get("since");
  if (text === null) return 0;
  const since = Number(text);
  if (!Number.isInteger(since) || since < 0) throw new HttpError(400, "invalid_input", "since must be a whole number (a receipt's seq)", "since");
  return since;
}

function limitParam(url) {
  const text = url.searchParams.get("limit");
  if (text === null) return 100;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST) {
    throw new HttpError(400, "invalid_input", `limit must be a whole number from 1 to ${MAX_LIST}`, "limit");
  }
  return limit;
}

/** `displayed_ms` of a decision: whole milliseconds the card was on screen (at most a day), or null. */
function readDisplayedMs(value) {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value) || value < 0 || value > 86_400_000) {
    throw new HttpError(400, "invalid_input", "displayed_ms is the whole milliseconds the card was on screen before the decision (0 to 86400000)", "displayed_ms");
  }
  return value;
}

/** `?days=` of the decision metrics: 1 to 90 days, 7 by default. */
function windowParam(url) {
  const text = url.searchParams.get("days");
  if (text === null) return 7 * 86_400_000;
  if (!/^[1-9][0-9]?$/.test(text) || Number(text) > 90) throw new HttpError(400, "invalid_input", "days is a whole number from 1 to 90", "days");
  return Number(text) * 86_400_000;
}

export class ApprovalInbox extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.db = new Database(ctx.storage.sql);
    this.store = this.db.confirmationStore();
    this.skillUrls = readSkillUrls(env);
    // The MCP gateway's upstream (MCP_UPSTREAM_URL): tool calls are approved here and applied through it.
    this.mcp = env.MCP_UPSTREAM_URL ? new McpUpstream(env) : null;
    this.verifiers = null;
    this.receipts = new ReceiptLog(this.db, env);
    // The id confirmations name as their audience: a guard refuses one made for another inbox.
    this.audience = env.AUDIENCE || `agent-governor:${env.INBOX_NAME ?? "default"}`;
  }

  async fetch(request) {
    try {
      return await this.route(request);
    } catch (error) {
      return errorResponse(error);
    }
  }

  async route(request) {
    const url = new URL(request.url);
    const roles = new Set((request.headers.get(ROLES_HEADER) ?? "").split(",").filter(Boolean));
    const need = (...allowed) => {
      if (!allowed.some((role) => roles.has(role))) {
        throw new HttpError(roles.size === 0 ? 401 : 403, roles.size === 0 ? "unauthorized" : "forbidden", `this needs a bearer token of: ${allowed.join(", ")}`);
      }
    };
    const parts = pathSegments(url.pathname);
    const [v1, resource, id, sub, subId] = parts;
    const method = request.method;
    // No route has more than five segments: a longer path is no route at all, never a shorter one's.
    if (v1 !== "v1" || parts.length > 5) throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
    const shape = [resource, id && ":id", sub, subId && ":key"].filter(Boolean).join("/");
    const route = `${method} ${shape}`;
    switch (route) {
      case "POST proposals":
        need("agent");
        return this.propose(request, roles);
      case "GET approvals":
        need("agent", "inbox", "admin");
        return this.list(url);
      case "GET approvals/:id":
        need("agent", "inbox", "admin");
        return json(this.view(id));
      case "GET receipts":
        need("agent", "inbox", "admin");
        return json({ receipts: this.db.receipts(sinceParam(url), limitParam(url)), public_key: await this.receipts.publicKey() });
      case "GET receipts/:id":
        // The guard's public key: anyone may read it, to verify receipts offline.
        if (id !== "key") throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
        return json(await this.receipts.publicKey());
      case "GET approvers/:id/keys":
        // Public keys and the key set's version: what an approver without a token needs to sign a key change.
        return json(this.approverKeys(approverName(id, "approver")));
      case "POST approvals/:id/decision":
        return this.decide(id, request);
      case "POST approvals/:id/cancel":
        return this.cancel(id, request);
      case "POST approvals/:id/reconcile":
        return this.reconcile(id, request);
      case "GET approvals/:id/preview":
        need("agent", "inbox", "admin");
        return this.preview(id);
      case "POST approvals/:id/reconfirm":
        need("inbox", "admin");
        return this.reconfirm(id, request);
      case "POST approvals/:id/edit":
        need("inbox", "admin");
        return this.edit(id, request);
      case "GET approvals/:id/edit":
        need("inbox", "admin");
        return this.editOptions(id);
      case "POST apply":
        need("agent", "inbox");
        return this.apply(request, roles.has("agent"));
      case "GET audit":
        need("inbox", "admin");
        return json({ records: this.db.audit(url.searchParams.get("approval_id"), limitParam(url)) });
      case "POST feed-tickets":
        need("agent", "inbox", "admin");
        return this.issueTicket(roles);
      case "GET feed":
        // A bearer token in the Authorization header, or a ticket for a browser's WebSocket (no headers there).
        // A request that cannot open the feed (no Upgrade) is refused before the ticket is used.
        if (roles.size === 0 && url.searchParams.has("ticket")) {
          requireUpgrade(request);
          return this.feed(request, this.redeemTicket(url.searchParams.get("ticket")));
        }
        need("agent", "inbox", "admin");
        return this.feed(request, roles);
      case "GET keys":
        need("agent", "inbox", "admin");
        return json({ keys: this.db.keys().map(publicKeyView) });
      case "POST enrollments":
        need("admin", "inbox");
        return this.enroll(request, roles.has("admin"));
      case "GET decision-metrics": {
        need("inbox", "admin");
        const windowMs = windowParam(url);
        const now = Date.now();
        const { rows, reads } = this.db.decidedSince(now - windowMs);
        return json(decisionMetrics(rows, reads, now, windowMs));
      }
      case "GET mandates":
        need("agent", "inbox", "admin");
        return json({ audience: this.audience, mandates: this.db.hasApprovers() ? await this.mandates() : [] });
      case "POST mandates":
        need("inbox", "admin");
        return this.createMandate(request);
      case "POST mandates/:id":
        need("inbox", "admin");
        if (id !== "preview") throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
        return this.previewMandate(request);
      case "POST mandates/:id/revoke":
        need("inbox", "admin");
        return this.revokeMandate(id, request);
      case "GET history-rules":
        need("admin", "inbox");
        return json(this.historyRules());
      case "PUT history-rules":
        need("admin");
        return this.putHistoryRules(request);
      case "GET approver-rules":
        need("admin", "inbox");
        return json({ required_approvers: this.approverRules() });
      case "PUT approver-rules":
        need("admin");
        return this.putApproverRules(request);
      case "GET enrollments":
        need("admin", "inbox");
        // What an invitation names: this guard's enrollments version, and whether anyone approves yet.
        return json({ version: enrollmentsVersion(this.audience), has_approvers: this.db.hasApprovers() });
      case "POST approvers/:id/keys":
        return this.registerKey(id, request, roles.has("admin"));
      case "POST approvers/:id/keys/:key":
        return this.renameKey(id, subId, request);
      case "DELETE approvers/:id/keys/:key":
        return this.revokeKey(id, subId, request, roles.has("admin"));
      case "GET agents":
        need("agent", "inbox", "admin");
        return json({ agents: this.db.agentStatuses() });
      case "GET agents/:id/status":
        need("agent", "inbox", "admin");
        forThisAgent(roles, agentId(id));
        return json(this.db.agentStatuses().find((status) => status.agent_id === agentId(id)) ?? null);
      case "PUT agents/:id/status":
        need("agent");
        forThisAgent(roles, agentId(id));
        return this.reportStatus(agentId(id), request);
      case "GET agents/:id/commands":
        need("agent", "inbox", "admin");
        forThisAgent(roles, agentId(id));
        return commandsView(this.db, agentId(id), url, this.audience);
      case "POST mcp":
        need("agent");
        if (this.mcp === null) throw new HttpError(404, "not_found", "the MCP gateway is not configured on this guard (MCP_UPSTREAM_URL)");
        return mcpEndpoint(this, request, roles);
      case "POST discord/:id":
        // Signed by Discord, not by a bearer token: the signature is checked before anything else.
        if (id !== "interactions") throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
        return discordInteraction(this, request);
      case "POST agents/:id/commands":
        // Signed by an approver with the admin role: no token makes a command.
        return this.command(agentId(id), request);
      case "POST agents/:id/commands/:key":
        need("agent");
        forThisAgent(roles, agentId(id));
        return this.takeCommand(agentId(id), subId, request);
      default: {
        const allowed = ROUTE_METHODS[shape];
        if (allowed) throw new HttpError(405, "method_not_allowed", `${url.pathname} answers ${allowed.join(", ")}, not ${method}`);
        throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
      }
    }
  }

  // ---- verification keys ----

  /** The Guard and the Executor over the registered public keys, rebuilt when the keys change. */
  verifier() {
    if (this.verifiers) return this.verifiers;
    const rows = this.db.keys();
    if (rows.length === 0) throw new HttpError(409, "no_approver_keys", "no approver key is registered: nothing can be approved yet");
    const keys = Object.fromEntries(rows.map((row) => [row.key_id, { ...row.spec, revoked: row.revoked_at !== null }]));
    const skills = Object.fromEntries(Object.entries(this.skillUrls).map(([type, url]) => [type, upstreamSkill(url, this.env)]));
    if (this.mcp) skills[TOOL_CALL] = this.mcp.skill();
    const executor = new Executor({
      store: this.store,
      skills,
      keys,
      audience: this.audience,
      sealKey: this.sealKey(),
      audit: (record) => this.db.appendAudit(Date.now(), record.confirmation_id, "apply", record),
    });
    this.verifiers = { guard: new Guard({ keys, audience: this.audience }), executor };
    return this.verifiers;
  }

  /**
   * The secret that seals stored confirmations (SEAL_KEY); without one the inbox makes one and keeps it in
   * its own storage, which protects against a record edited alone but not against whoever can read the
   * whole store: a deployment sets the secret.
   */
  sealKey() {
    if (this.env.SEAL_KEY) return this.env.SEAL_KEY;
    let stored = this.db.setting("seal_key");
    if (stored === null) {
      this.db.putSetting("seal_key", `${crypto.randomUUID()}${crypto.randomUUID()}`);
      stored = this.db.setting("seal_key");
    }
    return stored;
  }

  // ---- approvals ----

  view(id) {
    const row = this.db.approval(id);
    if (row === null) throw new HttpError(404, "not_found", `no approval \`${id}\``, "approval_id");
    return this.viewOf(row);
  }

  /** One approval's view; a stored record that cannot be rendered degrades this view only. */
  viewOf(row, now = Date.now()) {
    try {
      const view = approvalView(row, this.db.confirmationText(row.id), now, {
        requestFor,
        audience: this.audience,
        reconfirm: this.db.reconfirm(row.id),
        editedAs: row.decision === "e" ? this.editedAs(row.id) : null,
      });
      // Decisions are credited to the person whose key made them.
      if (view.decision !== null) view.decision.approver = this.db.key(view.decision.key_id ?? "")?.approver ?? null;
      // How many times the agent asked for this call (retries join one approval).
      view.asks = this.db.asksFor(row.id);
      // A person deciding on a change that already ran (by another approval) is told so: doing it again is
      // a new action. Its receipt says when and by whose approval.
      view.ran_before = view.state === "pending" ? this.ranBefore(row) : null;
      // The two-person rule: how many people this change needs, and who signed it so far.
      view.required_approvers = this.requiredApprovers(view);
      view.approvals_given = this.liveCosigners(row.id).map(({ approver, at }) => ({ approver, at_ms: at }));
      return view;
    } catch (error) {
      return unreadableView(row, error);
    }
  }

  /**
   * The receipt of the same change applied by another approval, as `{ approval_id, at, at_ms, approver, seq }`
   * (the time read by the core), or null.
   */
  ranBefore(row) {
    const receipt = this.db.lastAppliedReceipt(changeDigest(row.proposal.node_id, row.proposal.proposed_change), row.id);
    if (receipt === null) return null;
    return { approval_id: receipt.approval_id, at: receipt.at, at_ms: parseTime(receipt.at), approver: receipt.approver, seq: receipt.seq };
  }

  publish(id) {
    if (this.ctx.getWebSockets().length === 0) return;
    this.broadcast({ type: "approval", approval: this.view(id) });
  }

  /** Sends one message to every open feed. */
  broadcast(value) {
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const message = JSON.stringify(value);
    for (const socket of sockets) {
      try {
        socket.send(message);
      } catch {
        // A socket closing under us: the inbox reconnects and lists again.
      }
    }
  }

  /** The change types something here can apply: the configured skills, and tool calls through MCP. */
  skillTypes() {
    return [...Object.keys(this.skillUrls), ...(this.mcp ? [TOOL_CALL] : [])];
  }

  async propose(request, roles) {
    const proposal = readProposal(await readJsonObject(request), this.skillTypes());
    // Only an agent its token proves may run under a standing approval (a bound token names its agent).
    const bound = [...roles].filter((role) => role.startsWith("agent:")).map((role) => role.slice(6));
    const proven = bound.length === 1 && (proposal.agent_id === null || proposal.agent_id === undefined || proposal.agent_id === bound[0]) ? bound[0] : null;
    const view = this.createApproval(proven === null ? proposal : { ...proposal, agent_id: proven }, { notify: false });
    const decided = await this.approveByMandate(view, proven);
    if (decided.state === "pending") this.webhook(decided.approval_id, proposalMessage(decided));
    return json(decided, 201);
  }

  /**
   * A tool call (`toolCallChange`'s node and change) asked for through the MCP gateway by `agent`: the
   * approval it already asked for with this exact call while that one is still pending or approved and
   * unused (a retry joins it, counted), else a new approval.
   */
  proposeToolCall({ node_id, proposed_change }, agent) {
    const digest = changeDigest(node_id, proposed_change);
    const asked = this.db.toolCallAsk(agent, digest);
    if (asked !== null && this.db.approval(asked.approval_id) !== null) {
      const view = this.view(asked.approval_id);
      // A proposal a person edited is still this call's: the client's retry joins it (and its edit decides).
      const deciding = view.state === "edited" && typeof view.edited_as === "string" ? this.view(view.edited_as) : view;
      if (deciding.state === "pending" || deciding.state === "approved") {
        this.db.putToolCallAsk(agent, digest, asked.approval_id, asked.asks + 1);
        this.db.appendAudit(Date.now(), asked.approval_id, "asked_again", { agent_id: agent, asks: asked.asks + 1 });
        this.publish(asked.approval_id);
        return this.view(asked.approval_id);
      }
    }
    const intent = `tool call ${crypto.randomUUID()}`;
    const view = this.createApproval(readProposal({ node_id, proposed_change, intent, agent_id: agent }, this.skillTypes()));
    this.db.putToolCallAsk(agent, digest, view.approval_id, 1);
    return view;
  }

  /** Stores a read proposal as a pending approval, tells the feed and the webhooks; returns its view. */
  createApproval(proposal, { notify = true } = {}) {
    // A change its history rule refuses now is not asked for.
    this.checkHistory(proposal, "asking for another");
    const id = crypto.randomUUID();
    const now = Date.now();
    this.db.insertApproval(id, now, proposal);
    this.db.appendAudit(now, id, "proposed", { node_id: proposal.node_id, proposed_change: proposal.proposed_change, agent_id: proposal.agent_id });
    this.publish(id);
    const view = this.view(id);
    if (notify) this.webhook(id, proposalMessage(view));
    return view;
  }

  list(url) {
    const state = url.searchParams.get("state");
    if (state !== null && !APPROVAL_STATES.includes(state)) {
      throw new HttpError(400, "invalid_input", `state must be one of ${APPROVAL_STATES.join(", ")}`, "state");
    }
    const limit = limitParam(url);
    // `before`: the next page, approvals created before this time (ms since the epoch, as the views give it).
    const beforeText = url.searchParams.get("before");
    const before = beforeText === null ? null : Number(beforeText);
    if (before !== null && (!/^\d{1,16}$/.test(beforeText) || !Number.isSafeInteger(before))) {
      throw new HttpError(400, "invalid_input", "before is a time in milliseconds since the epoch (an approval's created_at_ms)", "before");
    }
    const now = Date.now();
    const views = this.db
      .recentApprovals(state === null ? limit : MAX_LIST * 4, before)
      .map((row) => this.viewOf(row, now))
      .filter((view) => state === null || view.state === state)
      .slice(0, limit);
    return json({ approvals: views });
  }

  pending(id) {
    const row = this.db.approval(id);
    if (row === null) throw new HttpError(404, "not_found", `no approval \`${id}\``, "approval_id");
    const view = this.viewOf(row);
    if (view.state !== "pending") {
      throw new HttpError(409, "not_pending", `approval \`${id}\` is ${view.state}; only a pending approval can be decided`);
    }
    return view;
  }

  /** y with a signed confirmation (or passkey assertion) of exactly the proposed change, or n with a signed decline. */
  async decide(id, request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["decision", "confirmation", "action", "displayed_ms"]);
    const displayed = readDisplayedMs(body.displayed_ms);
    let answer;
    if (body.decision === "y") answer = await this.approve(id, body.confirmation);
    else if (body.decision === "n") answer = await this.decline(id, body.action);
    else throw new HttpError(400, "invalid_input", "decision must be \"y\" or \"n\"", "decision");
    // Measured only once the decision stands: how long the card was on the person's screen.
    if (displayed !== null && this.db.approval(id)?.decision !== null) this.db.recordRead(id, displayed);
    return answer;
  }

  async approve(id, confirmation) {
    if (!isPlainObject(confirmation)) throw new HttpError(400, "invalid_input", "a y needs the signed `confirmation`", "confirmation");
    const view = this.pending(id);
    for (const field of LIFECYCLE_FIELDS) {
      if (confirmation[field] !== undefined && confirmation[field] !== null && confirmation[field] !== false) {
        throw new HttpError(400, "invalid_input", `\`${field}\` is kept by the guard, never sent by a client`, `confirmation.${field}`);
      }
    }
    const signedChange = isPlainObject(confirmation.proposed_change) ? confirmation.proposed_change : {};
    const differs = [
      ...["confirmation_id", "node_id", "intent", "confirmed_by"].filter((field) => confirmation[field] !== view.draft[field]),
      ...["type", "from", "to"].filter((field) => signedChange[field] !== view.draft.proposed_change[field]).map((field) => `proposed_change.${field}`),
    ];
    if (differs.length > 0) {
      throw new HttpError(422, "change_mismatch", `the signed \`${differs[0]}\` differs from the proposal`, `confirmation.${differs[0]}`);
    }
    if (confirmation.audience !== view.draft.audience) {
      throw new HttpError(403, "wrong_audience", `the confirmation must name this inbox's audience \`${view.draft.audience}\` (the draft carries it)`, "confirmation.audience");
    }
    const { guard } = this.verifier();
    // checkAsync: a passkey's P-256 signature is verified by the runtime's WebCrypto (the same verdict as check).
    const verdict = await guard.checkAsync(confirmation, requestFor(confirmation));
    if (verdict.verdict === "rejected") throw rejection(verdict);
    if (verdict.verdict !== "pending_precondition") throw new HttpError(500, "internal", "unexpected verdict; nothing was approved");
    this.advanceCounter(confirmation.key_id, confirmation.assertion);
    // Under a two-person rule, a signature before the last is kept as one of them, and nothing is approved yet.
    const partial = this.cosign(view, confirmation.key_id);
    if (partial !== null) return partial;
    // Approving a person's edit settles the proposal it edits, once every check passed and in the same turn
    // as the approval is stored: the two are never both approved (one action, one run).
    if (view.edits !== null) this.settleEdited(view.edits, id, confirmation.key_id);
    return this.storeApproval(id, confirmation);
  }

  async storeApproval(id, confirmation) {
    const clean = Object.fromEntries(Object.entries(confirmation).filter(([field]) => !LIFECYCLE_FIELDS.includes(field)));
    try {
      await this.verifier().executor.save(clean);
    } catch (error) {
      if (error?.code) throw rejection({ phase: error.code, reason: error.message });
      throw error;
    }
    const now = Date.now();
    if (!this.db.decide(id, "y", now, clean.key_id)) throw new HttpError(409, "not_pending", `approval \`${id}\` was decided concurrently`);
    this.db.appendAudit(now, id, "approved", { key_id: clean.key_id, ui_action: clean.ui_action, confirmed_at: clean.confirmed_at, passkey: clean.assertion !== undefined && clean.assertion !== null });
    this.publish(id);
    return json(this.view(id));
  }

  /** A passkey's signature counter must grow (WebAuthn 7.2 step 21): a repeat suggests a cloned credential. */
  advanceCounter(keyId, assertion) {
    if (assertion === undefined || assertion === null) return;
    const count = passkeySignCount(assertion);
    if (!this.db.advanceSignCount(keyId, count)) {
      throw new HttpError(403, "signature_invalid", "the passkey's signature counter did not advance: the assertion is replayed or the credential was cloned");
    }
  }

  /**
   * Carries out a signed human action about `subject` once, through the core: verified, recent, made for the
   * current `version` (given for state the inbox keeps; read by the Executor for a stored confirmation), its
   * nonce recorded before anything changes. Returns the core's outcome.
   */
  /** A cancel or reconcile needs a stored confirmation: before a y there is nothing to act on. */
  requireConfirmation(id) {
    if (this.db.confirmationText(id) === null) {
      throw new HttpError(409, "not_pending", `approval \`${id}\` has no stored approval: only an approved one can be cancelled or reconciled`);
    }
  }

  async takeAction(subject, action, kinds, version = undefined) {
    if (!isPlainObject(action)) throw new HttpError(400, "invalid_input", "the signed `action` is required", "action");
    if (!kinds.includes(action.action)) throw new HttpError(400, "invalid_input", `action must be one of ${kinds.join(", ")}`, "action.action");
    if (action.approval_id !== subject) throw new HttpError(422, "change_mismatch", `the signed action is about \`${action.approval_id}\`, not \`${subject}\``, "action.approval_id");
    const key = typeof action.key_id === "string" ? this.db.key(action.key_id) : null;
    const { executor } = this.verifier();
    this.db.forgetExpiredNonces(formatTime(Date.now()));
    const outcome = await executor.takeAction(action, {
      ...(version === undefined ? {} : { version }),
      ...(key && action.assertion ? { lastSignCount: key.sign_count } : {}),
    });
    if (outcome.outcome === "rejected") throw rejection(outcome);
    if (outcome.sign_count !== null && key !== null) this.db.advanceSignCount(key.key_id, outcome.sign_count);
    return outcome;
  }

  async decline(id, action) {
    const view = this.pending(id);
    const taken = await this.takeAction(id, action, ["decline"], view.version);
    const now = Date.now();
    if (!this.db.decide(id, "n", now, action.key_id, action.detail ?? "")) throw new HttpError(409, "not_pending", `approval \`${id}\` was decided concurrently`);
    this.db.appendAudit(now, id, "declined", { key_id: action.key_id, reason: action.detail ?? "", nonce: action.nonce });
    this.publish(id);
    return json({ ...this.view(id), action: taken.action });
  }

  async cancel(id, request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["action"]);
    this.view(id);
    this.requireConfirmation(id);
    await this.takeAction(id, body.action, ["cancel"]);
    this.db.appendAudit(Date.now(), id, "cancelled", { key_id: body.action.key_id, reason: body.action.detail ?? "", nonce: body.action.nonce });
    await this.receipt(id, "cancelled", body.action.key_id);
    this.publish(id);
    return json(this.view(id));
  }

  /** A human settles an in-flight approval after checking the node: applied -> consumed, not applied -> cancelled (closed: doing it again is a new approval). */
  async reconcile(id, request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["action"]);
    this.view(id);
    this.requireConfirmation(id);
    const taken = await this.takeAction(id, body.action, ["reconcile_applied", "reconcile_not_applied"]);
    const applied = taken.action === "reconcile_applied";
    this.db.appendAudit(Date.now(), id, "reconciled", { key_id: body.action.key_id, applied, note: body.action.detail ?? "", nonce: body.action.nonce });
    await this.receipt(id, applied ? "reconciled_applied" : "reconciled_not_applied", body.action.key_id);
    this.publish(id);
    return json(this.view(id));
  }

  /** Appends a signed receipt for an outcome on approval `id`; a receipt that cannot be made is audited, never thrown. */
  async receipt(id, outcome, actor = null) {
    const row = this.db.approval(id);
    if (row === null) return null;
    try {
      return await this.receipts.append({
        approvalId: id,
        changeDigest: changeDigest(row.proposal.node_id, row.proposal.proposed_change),
        approver: actor ?? row.decided_by ?? "",
        outcome,
      });
    } catch (error) {
      this.db.appendAudit(Date.now(), id, "receipt_failed", { outcome, error: String(error?.message ?? error) });
      return null;
    }
  }

  /**
   * The agent applies what was approved. The inbox may apply only an approval a person made themselves by
   * picking a transition after a reconfirm (no agent asked for it).
   */
  async apply(request, isAgent) {
    const body = await readJsonObject(request);
    if (!isAgent) {
      const row = typeof body.confirmation_id === "string" ? this.db.approval(body.confirmation_id) : null;
      if (!row?.proposal.reconfirms) {
        throw new HttpError(403, "forbidden", "the inbox applies only an approval a person picked after a reconfirm");
      }
    }
    // Before the Apply, the history rules: a refused Apply uses nothing (the approval stays approved).
    const known = typeof body.confirmation_id === "string" ? this.db.approval(body.confirmation_id) : null;
    if (known !== null) this.checkHistory({ node_id: known.proposal.node_id, proposed_change: known.proposal.proposed_change }, "the Apply", known.id);
    return json(await this.applyRequest(body));
  }

  /** Runs one ExecutorRequest through the Executor; a known approval's outcome gets its signed receipt. */
  async applyRequest(body) {
    const { executor } = this.verifier();
    const result = await executor.execute(body);
    const known = this.db.approval(result.confirmation_id) !== null;
    if (result.outcome === "reconfirm_required" && known) {
      this.db.setReconfirm(result.confirmation_id, result.reconfirm);
    }
    if (known) {
      // Every outcome of an Apply on a known approval gets a signed receipt; an error leaves it unknown.
      const outcome = result.outcome === "error" ? (result.confirmation_state === "in_flight" ? "unknown" : "error") : result.outcome;
      const receipt = await this.receipt(result.confirmation_id, outcome);
      if (receipt !== null) result.receipt = receipt;
    }
    // A rejection changes nothing the inbox shows; every other outcome moves the approval on.
    if (result.outcome !== "rejected" && known) this.publish(result.confirmation_id);
    if (known && result.outcome === "error" && result.confirmation_state === "in_flight") {
      this.webhook(result.confirmation_id, unknownOutcomeMessage(this.view(result.confirmation_id)));
    }
    return result;
  }

  /** A person picks one of the skill's transitions for an approval step 6 invalidated: a new pending approval. */
  async reconfirm(id, request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["to"]);
    const view = this.view(id);
    if (view.state !== "invalidated" || view.reconfirm === null) {
      throw new HttpError(409, "not_invalidated", `approval \`${id}\` is ${view.state}; only one invalidated by a changed status can be reconfirmed`);
    }
    const to = requireText(body.to, "to", { max: 512 });
    // One live replacement per invalidated approval: a second is refused while the first can still be used.
    const earlier = this.db.audit(id, 1000).find((record) => record.event === "reconfirmed_by");
    if (earlier !== undefined) {
      const replacement = this.view(earlier.detail.approval_id);
      if (!["declined", "cancelled", "expired", "invalidated"].includes(replacement.state)) {
        throw new HttpError(409, "already_reconfirmed", `approval \`${id}\` was reconfirmed as \`${replacement.approval_id}\`, which is ${replacement.state}`);
      }
    }
    const previous = this.db.approval(id).proposal;
    const proposal = { ...reconfirmation(previous, view.reconfirm, to), reconfirms: id };
    const newId = crypto.randomUUID();
    const now = Date.now();
    this.db.insertApproval(newId, now, proposal);
    this.db.appendAudit(now, newId, "reconfirm_proposed", { reconfirms: id, proposed_change: proposal.proposed_change });
    this.db.appendAudit(now, id, "reconfirmed_by", { approval_id: newId });
    this.publish(newId);
    return json(this.view(newId), 201);
  }


  /** Sends a webhook message about approval `id`; a failure is audited on it. */
  webhook(id, text) {
    notifyWebhook(this.env, this.ctx, text, (message) => this.db.appendAudit(Date.now(), id, "webhook_failed", { message }), id);
  }

  /**
   * The node's state now, from the skill's Preview, beside what the approval proposes: `matches` is whether
   * the node is still at the proposed `from` (if not, an Apply would ask for a reconfirm).
   */
  async preview(id) {
    const view = this.view(id);
    if (view.state === "unreadable") throw new HttpError(409, "unreadable_record", `approval \`${id}\` cannot be read`);
    const url = this.skillUrls[view.proposed_change.type];
    const toolCall = this.mcp !== null && view.proposed_change.type === TOOL_CALL;
    if (!url && !toolCall) throw new HttpError(409, "no_skill", `no skill applies \`${view.proposed_change.type}\``);
    let facts;
    try {
      // A tool call has no state to read before it runs: its approved `from` is empty.
      facts = toolCall ? { current_status: "", valid_transitions: [{ status: view.proposed_change.to }] } : await upstreamSkill(url, this.env).preview(view.node_id);
    } catch (error) {
      throw new HttpError(502, "skill_unreachable", `the skill's Preview failed: ${error?.message ?? error}`);
    }
    const current = typeof facts?.current_status === "string" ? facts.current_status : null;
    const transitions = Array.isArray(facts?.valid_transitions) ? facts.valid_transitions.filter((item) => typeof item?.status === "string") : [];
    return json({
      approval_id: id,
      node_id: view.node_id,
      proposed: { from: view.proposed_change.from, to: view.proposed_change.to },
      current_status: current,
      valid_transitions: transitions.map((item) => ({ status: item.status, label: typeof item.label === "string" ? item.label : item.status })),
      matches: current !== null && current === view.proposed_change.from,
      to_allowed: transitions.some((item) => item.status === view.proposed_change.to),
    });
  }
}

// The routes by resource, each in its own file: the approvers' keys, the live feed, the agents, the edits.
Object.assign(ApprovalInbox.prototype, keyMethods, feedMethods, agentMethods, editMethods, approverRuleMethods, historyRuleMethods, mandateMethods);
