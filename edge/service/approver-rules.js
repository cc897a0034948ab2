// The two-person rule: an admin marks change types or tools that need N distinct people's signatures (not
// devices: one person's two keys count once); the change applies only when N different people have signed
// that exact change, and the agent that proposed it is never one of them. Methods of the inbox's Durable
// Object, assigned to its prototype in inbox.js.
import { HttpError, json, onlyKeys, readJsonObject } from "./http.js";
import { TOOL_CALL } from "./mcp.js";

/** The most people a rule may ask for, and the most rules. */
const MAX_REQUIRED = 10;
const MAX_RULES = 200;
const RULE_KEY = /^(tool:)?[A-Za-z0-9_.:-]{1,128}$/;

/** What a rule is keyed by: a tool call's `tool:<name>`, any other change's type. */
export const ruleKeyOf = (view) => (view.proposed_change?.type === TOOL_CALL ? `tool:${view.node_id}` : view.proposed_change?.type);

export const approverRuleMethods = {
  /** The rules now: `{ key: N }`. */
  approverRules() {
    const text = this.db.setting("approver_rules");
    return text === null ? {} : JSON.parse(text);
  },

  /**
   * The people who signed approval `id` so far whose keys still stand: a signature by a key revoked since
   * (lost, stolen) no longer counts as a person's.
   */
  liveCosigners(id) {
    return this.db.cosigners(id).filter((cosigner) => {
      const key = this.db.key(cosigner.key_id);
      return key !== null && (key.revoked_at === null || key.revoked_at === undefined);
    });
  },

  /** How many distinct people approval `view` needs (1 when no rule names it). */
  requiredApprovers(view) {
    return this.approverRules()[ruleKeyOf(view)] ?? 1;
  },

  /** `PUT /v1/approver-rules { required_approvers: { "status_change": 2, "tool:send_email": 2 } }` (admin). */
  async putApproverRules(request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["required_approvers"]);
    const rules = body.required_approvers;
    if (rules === null || typeof rules !== "object" || Array.isArray(rules)) throw new HttpError(400, "invalid_input", "required_approvers is { change type or tool:<name>: a number of people }", "required_approvers");
    const entries = Object.entries(rules);
    if (entries.length > MAX_RULES) throw new HttpError(400, "invalid_input", `at most ${MAX_RULES} rules`, "required_approvers");
    for (const [key, count] of entries) {
      if (!RULE_KEY.test(key)) throw new HttpError(400, "invalid_input", `\`${key}\` is not a change type or tool:<name>`, `required_approvers.${key}`);
      // A tool call is ruled by its tool's name: a rule for every tool call would never be read.
      if (key === TOOL_CALL) throw new HttpError(400, "invalid_input", "tool calls are ruled by tool: name it as tool:<name>", `required_approvers.${key}`);
      if (!Number.isSafeInteger(count) || count < 1 || count > MAX_REQUIRED) {
        throw new HttpError(400, "invalid_input", `the number of people for \`${key}\` is a whole number from 1 to ${MAX_REQUIRED}`, `required_approvers.${key}`);
      }
    }
    const kept = Object.fromEntries(entries.filter(([, count]) => count > 1));
    this.db.replaceSetting("approver_rules", JSON.stringify(kept));
    this.db.appendAudit(Date.now(), null, "approver_rules_changed", { required_approvers: kept });
    return json({ required_approvers: kept });
  },

  /**
   * A verified signature of pending approval `view` by `keyId`: under a rule for N people, a signature before
   * the Nth is kept as one of them and the approval stays pending (resolves to its view); the Nth (or the
   * only one, without a rule) resolves to null and is stored as the approval. The same person twice (another
   * device too) and the proposing agent are refused.
   */
  cosign(view, keyId) {
    const required = this.requiredApprovers(view);
    if (required <= 1) return null;
    const signer = this.db.key(keyId)?.approver;
    if (typeof signer !== "string") throw new HttpError(403, "signature_invalid", "the confirmation's key is not registered", "confirmation.key_id");
    if (typeof view.agent_id === "string" && view.agent_id !== "" && signer === view.agent_id) {
      throw new HttpError(403, "forbidden", `\`${signer}\` proposed this change: another person must approve it`, "confirmation.key_id");
    }
    const given = this.liveCosigners(view.approval_id);
    if (given.some((cosigner) => cosigner.approver === signer)) {
      throw new HttpError(409, "already_signed", `\`${signer}\` signed this change already (a second device counts once): ${required - given.length} more people must`, "confirmation.key_id");
    }
    if (given.length + 1 >= required) return null;
    const now = Date.now();
    if (!this.db.insertCosigner(view.approval_id, signer, keyId, now)) throw new HttpError(409, "already_signed", `\`${signer}\` signed this change already`);
    this.db.appendAudit(now, view.approval_id, "cosigned", { key_id: keyId, count: given.length + 1, required });
    this.publish(view.approval_id);
    return json(this.view(view.approval_id));
  },
};
