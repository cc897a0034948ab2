// Standing approvals (mandates): a person signs, with their own key, a bounded permission for named agents to
// run one kind of change without asking (within constraints, at most N times, until a time); the core verifies
// it, renders it in words, and reserves one use atomically for each change it approves under it (the Apply
// runs only under a confirmation whose use is reserved). Methods of the inbox's Durable Object, assigned to its
// prototype in inbox.js.
import { mandateLines, parseTime, passkeySignCount } from "agent-governor/guard";
import { HttpError, isPlainObject, json, onlyKeys, readJsonObject } from "./http.js";

/** A passkey assertion's signature counter, read by the core; a malformed one is the caller's error. */
function signCountOf(assertion) {
  try {
    return passkeySignCount(assertion);
  } catch (error) {
    throw new HttpError(400, "invalid_input", error?.message ?? String(error), "mandate.assertion");
  }
}

const MANDATE_ID = /^[A-Za-z0-9_-]{16,128}$/;

/** The mandate in words, in both languages an inbox shows, rendered by the core. */
function linesOf(mandate) {
  try {
    return { en: mandateLines(mandate, "en"), ja: mandateLines(mandate, "ja") };
  } catch (error) {
    throw new HttpError(400, error?.code ?? "invalid_input", error?.message ?? String(error), `mandate${error?.path ? `.${error.path}` : ""}`);
  }
}

/** The approver a key belongs to (`alice/laptop` -> `alice`). */
const approverOf = (keyId) => (typeof keyId === "string" ? keyId.split("/")[0] : null);

function mandateView(record, version, now) {
  const { mandate } = record;
  const expiresMs = parseTime(mandate.expires_at);
  return {
    mandate_id: mandate.mandate_id,
    mandate,
    lines: linesOf(mandate),
    signed_by: mandate.key_id,
    approver: approverOf(mandate.key_id),
    max_uses: mandate.max_uses,
    used: record.used_by.length,
    uses_left: record.revoked_at === null && now < expiresMs ? Math.max(0, mandate.max_uses - record.used_by.length) : 0,
    used_by: record.used_by,
    saved_at: record.saved_at,
    revoked_at: record.revoked_at,
    revoked_by: record.revoked_by,
    expires_at_ms: expiresMs,
    state: record.revoked_at !== null ? "revoked" : now >= expiresMs ? "expired" : record.used_by.length >= mandate.max_uses ? "used_up" : "live",
    version,
  };
}

export const mandateMethods = {
  /** `POST /v1/mandates/preview { mandate }`: its lines in both languages, before anyone signs it. */
  async previewMandate(request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["mandate"]);
    return json({ lines: linesOf({ key_id: null, ...body.mandate }), audience: this.audience });
  },

  /** `POST /v1/mandates { mandate }`: a person's signed standing approval, registered with the Executor. */
  async createMandate(request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["mandate"]);
    const { mandate } = body;
    if (!isPlainObject(mandate)) throw new HttpError(400, "invalid_input", "`mandate` is the signed standing approval", "mandate");
    linesOf(mandate);
    // A change that needs two people is never one person's standing approval.
    const required = this.approverRules()[mandate.action] ?? 1;
    if (required > 1) {
      throw new HttpError(409, "two_person_rule", `\`${mandate.action}\` needs ${required} people's signatures: one person cannot approve it in advance`, "mandate.action");
    }
    const { executor } = this.verifier();
    // A passkey's signature counter must grow (a repeat suggests a cloned credential): compared before the
    // mandate is kept, advanced only once its signature verified (so a forged counter moves nothing).
    const key = typeof mandate.key_id === "string" ? this.db.key(mandate.key_id) : null;
    const count = key !== null && isPlainObject(mandate.assertion) ? signCountOf(mandate.assertion) : null;
    if (count !== null && !((key.sign_count === 0 && count === 0) || count > key.sign_count)) {
      throw new HttpError(403, "signature_invalid", "the passkey's signature counter did not advance: the assertion is replayed or the credential was cloned", "mandate.assertion");
    }
    let saved;
    try {
      saved = await executor.saveMandate(mandate);
    } catch (error) {
      const status = { already_exists: 409, signature_invalid: 403, wrong_audience: 403, invalid_input: 400 }[error?.code] ?? 422;
      throw new HttpError(status, error?.code ?? "invalid_input", error?.message ?? String(error), error?.path ? `mandate.${error.path}` : "mandate");
    }
    if (count !== null) this.db.advanceSignCount(key.key_id, count);
    this.db.appendAudit(Date.now(), null, "mandate_created", {
      mandate_id: mandate.mandate_id, key_id: mandate.key_id, agents: mandate.agents, action: mandate.action, max_uses: mandate.max_uses, expires_at: mandate.expires_at,
    });
    const found = await executor.mandateRecord(mandate.mandate_id);
    this.broadcast({ type: "mandates" });
    return json(mandateView(found.record, found.version, Date.now()), 201);
  },

  /** Every registered standing approval, newest first, with its uses left, state and version (the core's). */
  async mandates() {
    const now = Date.now();
    const { executor } = this.verifier();
    const ids = this.db.mandateRecords().map(({ value }) => JSON.parse(value).mandate.mandate_id);
    const found = await Promise.all(ids.map((id) => executor.mandateRecord(id)));
    return found
      .filter((entry) => entry !== null)
      .map(({ record, version }) => mandateView(record, version, now))
      .sort((a, b) => (a.saved_at < b.saved_at ? 1 : -1));
  },

  /** `POST /v1/mandates/{id}/revoke { action }`: a signed `revoke_mandate` by its signer or an admin. */
  async revokeMandate(id, request) {
    if (!MANDATE_ID.test(id)) throw new HttpError(404, "not_found", `no standing approval \`${id}\``);
    const body = await readJsonObject(request);
    onlyKeys(body, ["action"]);
    const { executor } = this.verifier();
    const found = await executor.mandateRecord(id);
    if (found === null) throw new HttpError(404, "not_found", `no standing approval \`${id}\``);
    const signer = approverOf(body.action?.key_id);
    if (signer !== approverOf(found.record.mandate.key_id) && !this.rolesOf(signer).includes("admin")) {
      throw new HttpError(403, "forbidden", "only the person who signed a standing approval, or an admin, revokes it", "action.key_id");
    }
    const taken = await this.takeAction(id, body.action, ["revoke_mandate"]);
    this.db.appendAudit(Date.now(), null, "mandate_revoked", { mandate_id: id, key_id: body.action.key_id, nonce: body.action.nonce });
    this.broadcast({ type: "mandates" });
    return json(mandateView(taken.mandate, taken.version, Date.now()));
  },

  /**
   * Approval `view` (just proposed by `agent`, proven by its bound token) under a live standing approval that
   * covers it: the Executor reserves a use and makes its confirmation, and the approval is approved at once. Returns the view, approved or still pending.
   */
  async approveByMandate(view, agent) {
    if (typeof agent !== "string" || this.requiredApprovers(view) > 1) return view;
    const { executor } = this.verifier();
    for (const candidate of (await this.mandates()).filter((m) => m.state === "live" && m.mandate.agents.includes(agent))) {
      const outcome = await executor.confirmByMandate({
        mandate_id: candidate.mandate_id,
        confirmation_id: view.approval_id,
        agent_id: agent,
        node_id: view.node_id,
        proposed_change: view.proposed_change,
        intent: view.intent,
        reason: `standing approval ${candidate.mandate_id}`,
      });
      if (outcome.outcome !== "confirmed") continue;
      const now = Date.now();
      if (!this.db.decide(view.approval_id, "y", now, `mandate:${candidate.mandate_id}`)) return this.view(view.approval_id);
      this.db.appendAudit(now, view.approval_id, "approved_by_mandate", { mandate_id: candidate.mandate_id, key_id: candidate.signed_by, agent_id: agent, uses_left: outcome.uses_left });
      this.publish(view.approval_id);
      return this.view(view.approval_id);
    }
    return view;
  },
};
