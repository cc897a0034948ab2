// The approval inbox: one SQLite-backed Durable Object holds the approvals, the approvers' public keys,
// the Executor's confirmation store and the audit trail of one inbox, and runs the Executor. Requests reach
// it only through the worker, which authenticates bearer tokens and names the caller's roles.
import { DurableObject } from "cloudflare:workers";
import {
  Executor,
  Guard,
  cancelConfirmation,
  passkeySignCount,
  reconcileConfirmation,
  requestFor,
  saveConfirmation,
} from "agent-governor/guard";
import { Database } from "./database.js";
import { HttpError, errorResponse, json, onlyKeys, readJsonObject, requireText } from "./http.js";
import { APPROVAL_STATES, approvalView, readProposal, reconfirmation } from "./proposal.js";
import { readSkillUrls, upstreamSkill } from "./skills.js";

export const ROLES_HEADER = "x-agent-governor-roles";
const LIFECYCLE_FIELDS = ["consumed", "consumed_at", "cancelled", "in_flight_at", "invalidated_at"];
const ENROLLMENT_TTL_MS = 15 * 60 * 1000;
const MAX_LIST = 500;

const PHASE_STATUS = { signature_invalid: 403 };

/** Every route's methods, by path shape: a known path with another method is a 405, not a 404. */
const ROUTE_METHODS = {
  proposals: ["POST"],
  approvals: ["GET"],
  "approvals/:id": ["GET"],
  "approvals/:id/decision": ["POST"],
  "approvals/:id/cancel": ["POST"],
  "approvals/:id/reconcile": ["POST"],
  "approvals/:id/reconfirm": ["POST"],
  apply: ["POST"],
  audit: ["GET"],
  feed: ["GET"],
  keys: ["GET"],
  enrollments: ["POST"],
  "approvers/:id/keys": ["POST"],
  "approvers/:id/keys/:key": ["DELETE"],
};

function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function rejection(verdict) {
  return new HttpError(PHASE_STATUS[verdict.phase] ?? 422, verdict.phase, verdict.reason);
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

export class ApprovalInbox extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.db = new Database(ctx.storage.sql);
    this.store = this.db.confirmationStore();
    this.skillUrls = readSkillUrls(env);
    this.verifiers = null;
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
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const [v1, resource, id, sub, subId] = parts;
    const method = request.method;
    if (v1 !== "v1") throw new HttpError(404, "not_found", `no route ${method} ${url.pathname}`);
    const shape = [resource, id && ":id", sub, subId && ":key"].filter(Boolean).join("/");
    const route = `${method} ${shape}`;
    switch (route) {
      case "POST proposals":
        need("agent");
        return this.propose(request);
      case "GET approvals":
        need("agent", "inbox", "admin");
        return this.list(url);
      case "GET approvals/:id":
        need("agent", "inbox", "admin");
        return json(this.view(id));
      case "POST approvals/:id/decision":
        return this.decide(id, request);
      case "POST approvals/:id/cancel":
        return this.cancel(id, request);
      case "POST approvals/:id/reconcile":
        return this.reconcile(id, request);
      case "POST approvals/:id/reconfirm":
        need("inbox", "admin");
        return this.reconfirm(id, request);
      case "POST apply":
        need("agent", "inbox");
        return this.apply(request, roles.has("agent"));
      case "GET audit":
        need("inbox", "admin");
        return json({ records: this.db.audit(url.searchParams.get("approval_id"), limitParam(url)) });
      case "GET feed":
        need("agent", "inbox", "admin");
        return this.feed(request);
      case "GET keys":
        need("agent", "inbox", "admin");
        return json({ keys: this.db.keys().map(publicKeyView) });
      case "POST enrollments":
        need("admin");
        return this.enroll(request);
      case "POST approvers/:id/keys":
        return this.registerKey(id, request, roles.has("admin"));
      case "DELETE approvers/:id/keys/:key":
        need("admin");
        return this.revokeKey(id, subId);
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
    const executor = new Executor({
      store: this.store,
      skills,
      keys,
      audit: (record) => this.db.appendAudit(Date.now(), record.confirmation_id, "apply", record),
    });
    this.verifiers = { guard: new Guard({ keys }), executor };
    return this.verifiers;
  }

  // ---- approvals ----

  view(id) {
    const row = this.db.approval(id);
    if (row === null) throw new HttpError(404, "not_found", `no approval \`${id}\``, "approval_id");
    return this.viewOf(row);
  }

  viewOf(row, now = Date.now()) {
    return approvalView(row, this.db.confirmation(row.id), now, requestFor, this.db.reconfirm(row.id));
  }

  publish(id) {
    const sockets = this.ctx.getWebSockets();
    if (sockets.length === 0) return;
    const message = JSON.stringify({ type: "approval", approval: this.view(id) });
    for (const socket of sockets) {
      try {
        socket.send(message);
      } catch {
        // A socket closing under us: the inbox reconnects and lists again.
      }
    }
  }

  async propose(request) {
    const proposal = readProposal(await readJsonObject(request), Object.keys(this.skillUrls));
    const id = crypto.randomUUID();
    const now = Date.now();
    this.db.insertApproval(id, now, proposal);
    this.db.appendAudit(now, id, "proposed", { node_id: proposal.node_id, proposed_change: proposal.proposed_change, agent_id: proposal.agent_id });
    this.publish(id);
    return json(this.view(id), 201);
  }

  list(url) {
    const state = url.searchParams.get("state");
    if (state !== null && !APPROVAL_STATES.includes(state)) {
      throw new HttpError(400, "invalid_input", `state must be one of ${APPROVAL_STATES.join(", ")}`, "state");
    }
    const limit = limitParam(url);
    const now = Date.now();
    const views = this.db
      .recentApprovals(state === null ? limit : MAX_LIST * 4)
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
    onlyKeys(body, ["decision", "confirmation", "action"]);
    if (body.decision === "y") return this.approve(id, body.confirmation);
    if (body.decision === "n") return this.decline(id, body.action);
    throw new HttpError(400, "invalid_input", "decision must be \"y\" or \"n\"", "decision");
  }

  approve(id, confirmation) {
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
    const { guard } = this.verifier();
    const verdict = guard.check(confirmation, requestFor(confirmation));
    if (verdict.verdict === "rejected") throw rejection(verdict);
    if (verdict.verdict !== "pending_precondition") throw new HttpError(500, "internal", "unexpected verdict");
    this.advanceCounter(confirmation.key_id, confirmation.assertion);
    return this.storeApproval(id, confirmation);
  }

  async storeApproval(id, confirmation) {
    const clean = Object.fromEntries(Object.entries(confirmation).filter(([field]) => !LIFECYCLE_FIELDS.includes(field)));
    await this.settle(() => saveConfirmation(this.store, clean));
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

  /** Checks a signed human action about approval `id`; returns it. */
  checkedAction(id, action, kinds) {
    if (!isPlainObject(action)) throw new HttpError(400, "invalid_input", "the signed `action` is required", "action");
    if (!kinds.includes(action.action)) throw new HttpError(400, "invalid_input", `action must be one of ${kinds.join(", ")}`, "action.action");
    if (action.approval_id !== id) throw new HttpError(422, "change_mismatch", "the signed action is about another approval", "action.approval_id");
    const verdict = this.verifier().guard.checkAction(action);
    if (verdict.verdict === "rejected") throw rejection(verdict);
    this.advanceCounter(action.key_id, action.assertion);
    return action;
  }

  decline(id, action) {
    this.pending(id);
    const checked = this.checkedAction(id, action, ["decline"]);
    const now = Date.now();
    if (!this.db.decide(id, "n", now, checked.key_id, checked.detail ?? "")) throw new HttpError(409, "not_pending", `approval \`${id}\` was decided concurrently`);
    this.db.appendAudit(now, id, "declined", { key_id: checked.key_id, reason: checked.detail ?? "" });
    this.publish(id);
    return json(this.view(id));
  }

  async cancel(id, request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["action"]);
    this.view(id);
    const checked = this.checkedAction(id, body.action, ["cancel"]);
    await this.settle(() => cancelConfirmation(this.store, id));
    this.db.appendAudit(Date.now(), id, "cancelled", { key_id: checked.key_id, reason: checked.detail ?? "" });
    this.publish(id);
    return json(this.view(id));
  }

  /** A human settles an in-flight approval after checking the node: applied -> consumed, not applied -> approved. */
  async reconcile(id, request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["action"]);
    this.view(id);
    const checked = this.checkedAction(id, body.action, ["reconcile_applied", "reconcile_not_applied"]);
    const applied = checked.action === "reconcile_applied";
    await this.settle(() => reconcileConfirmation(this.store, id, applied));
    this.db.appendAudit(Date.now(), id, "reconciled", { key_id: checked.key_id, applied, note: checked.detail ?? "" });
    this.publish(id);
    return json(this.view(id));
  }

  async settle(transition) {
    try {
      await transition();
    } catch (error) {
      if (["not_cancellable", "not_in_flight", "conflict"].includes(error?.code)) {
        throw new HttpError(409, error.code, error.message);
      }
      // No confirmation yet (the approval is pending or declined), or one already stored for it.
      if (error?.code === "not_found" || error?.code === "already_exists") {
        throw new HttpError(409, "not_pending", `${error.message}: the approval is not in a state that allows this`);
      }
      throw error;
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
    const { executor } = this.verifier();
    const result = await executor.execute(body);
    if (result.outcome === "reconfirm_required" && this.db.approval(result.confirmation_id) !== null) {
      this.db.setReconfirm(result.confirmation_id, result.reconfirm);
    }
    // A rejection changes nothing the inbox shows; every other outcome moves the approval on.
    if (result.outcome !== "rejected" && this.db.approval(result.confirmation_id) !== null) this.publish(result.confirmation_id);
    return json(result);
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
    const previous = this.db.approval(id).proposal;
    const proposal = { ...reconfirmation(previous, view.reconfirm, to), reconfirms: id };
    const newId = crypto.randomUUID();
    const now = Date.now();
    this.db.insertApproval(newId, now, proposal);
    this.db.appendAudit(now, newId, "reconfirm_proposed", { reconfirms: id, proposed_change: proposal.proposed_change });
    this.publish(newId);
    return json(this.view(newId), 201);
  }

  // ---- live feed (WebSocket hibernation: the object may sleep while sockets stay open) ----

  feed(request) {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      throw new HttpError(426, "upgrade_required", "the feed is a WebSocket: send Upgrade: websocket");
    }
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    server.send(JSON.stringify({ type: "hello", approvals: this.db.recentApprovals(50).map((row) => this.viewOf(row)) }));
    return new Response(null, { status: 101, webSocket: client });
  }

  webSocketMessage(socket, message) {
    if (message === "ping") socket.send("pong");
  }

  webSocketClose(socket, code) {
    try {
      socket.close(code === 1005 ? 1000 : code, "closing");
    } catch {
      // Already closed.
    }
  }

  // ---- approver keys ----

  async enroll(request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["approver"]);
    const approver = requireText(body.approver, "approver", { max: 128 });
    const code = crypto.randomUUID();
    const expiresAt = Date.now() + ENROLLMENT_TTL_MS;
    this.db.insertEnrollment(code, approver, expiresAt);
    return json({ approver, enrollment_code: code, expires_at: new Date(expiresAt).toISOString() }, 201);
  }

  /** Registers a public key: by the admin, or by the approver with a one-time enrollment code. */
  async registerKey(approver, request, isAdmin) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["key_id", "type", "public_key", "algorithm", "credential_id", "enrollment_code"]);
    if (!isAdmin) {
      if (body.enrollment_code === undefined) {
        throw new HttpError(403, "forbidden", "registering a key needs the admin token or the approver's enrollment code", "enrollment_code");
      }
      const code = requireText(body.enrollment_code, "enrollment_code", { max: 64 });
      if (this.db.takeEnrollment(code, Date.now()) !== approver) {
        throw new HttpError(403, "forbidden", "the enrollment code is unknown, used, expired or for another approver", "enrollment_code");
      }
    }
    const keyId = requireText(body.key_id, "key_id", { max: 128 });
    if (this.db.key(keyId) !== null) throw new HttpError(409, "conflict", `key \`${keyId}\` exists; key ids are never reused`, "key_id");
    const spec =
      body.type === "webauthn"
        ? { type: "webauthn", algorithm: body.algorithm, public_key: body.public_key, rp_id: this.env.RP_ID, origins: (this.env.ORIGINS ?? "").split(",").map((origin) => origin.trim()).filter(Boolean) }
        : { type: body.type, public_key: body.public_key };
    // The package reads the key exactly as it will verify with it: a bad key is a typed invalid_key.
    new Guard({ keys: { [keyId]: spec } }).free();
    const credentialId = body.type === "webauthn" ? requireText(body.credential_id, "credential_id", { max: 1024 }) : null;
    const now = Date.now();
    this.db.insertKey({ keyId, approver, spec, credentialId, at: now });
    this.db.appendAudit(now, null, "key_registered", { approver, key_id: keyId, type: spec.type, by: isAdmin ? "admin" : "enrollment" });
    this.verifiers = null;
    return json(publicKeyView(this.db.key(keyId)), 201);
  }

  revokeKey(approver, keyId) {
    const key = this.db.key(keyId);
    if (key === null || key.approver !== approver) throw new HttpError(404, "not_found", `approver \`${approver}\` has no key \`${keyId}\``);
    const now = Date.now();
    if (!this.db.revokeKey(keyId, now)) throw new HttpError(409, "conflict", `key \`${keyId}\` is already revoked`);
    this.db.appendAudit(now, null, "key_revoked", { approver, key_id: keyId });
    this.verifiers = null;
    return json(publicKeyView(this.db.key(keyId)));
  }

}

function publicKeyView(row) {
  return {
    key_id: row.key_id,
    approver: row.approver,
    type: row.spec.type,
    algorithm: row.spec.algorithm ?? null,
    public_key: row.spec.public_key,
    credential_id: row.credential_id,
    rp_id: row.spec.rp_id ?? null,
    sign_count: row.sign_count,
    created_at: new Date(row.created_at).toISOString(),
    revoked_at: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  };
}
