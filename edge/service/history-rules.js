// History rules, checked from the guard's own ledger before a change is asked for and before it is applied:
// at most N applies of a change type (or `tool:<name>`) within a window, the same change (its digest) not
// applied again within a window, and at most N Applies in flight at once (started, their outcome not yet
// known). Methods of the inbox's Durable Object, assigned to its prototype in inbox.js.
import { changeDigest, parseTime } from "agent-governor/guard";
import { HttpError, json, onlyKeys, readJsonObject } from "./http.js";
import { ruleKeyOf } from "./approver-rules.js";
import { TOOL_CALL } from "./mcp.js";

const RULE_KEY = /^(tool:)?[A-Za-z0-9_.:-]{1,128}$/;
const MAX_RULES = 200;
/** The longest window a rule may count over (a week), and the most applies it may allow. */
const MAX_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const MAX_COUNT = 10_000;

export const historyRuleMethods = {
  /** `{ max_applies: { key: { count, window_ms } } }` now. */
  historyRules() {
    const text = this.db.setting("history_rules");
    return { max_applies: {}, same_change_within_ms: null, max_in_flight: null, ...(text === null ? {} : JSON.parse(text)) };
  },

  /** `PUT /v1/history-rules { max_applies: { "status_change": { count: 5, window_ms: 3600000 } } }` (admin). */
  async putHistoryRules(request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["max_applies", "same_change_within_ms", "max_in_flight"]);
    const inFlight = body.max_in_flight ?? null;
    if (inFlight !== null && (!Number.isSafeInteger(inFlight) || inFlight < 1 || inFlight > MAX_COUNT)) {
      throw new HttpError(400, "invalid_input", `max_in_flight is a whole number from 1 to ${MAX_COUNT}, or null`, "max_in_flight");
    }
    const again = body.same_change_within_ms ?? null;
    if (again !== null && (!Number.isSafeInteger(again) || again < 1000 || again > MAX_WINDOW_MS)) {
      throw new HttpError(400, "invalid_input", `same_change_within_ms is from 1000 to ${MAX_WINDOW_MS}, or null`, "same_change_within_ms");
    }
    const rules = body.max_applies ?? {};
    if (rules === null || typeof rules !== "object" || Array.isArray(rules)) throw new HttpError(400, "invalid_input", "max_applies is { change type or tool:<name>: { count, window_ms } }", "max_applies");
    const entries = Object.entries(rules);
    if (entries.length > MAX_RULES) throw new HttpError(400, "invalid_input", `at most ${MAX_RULES} rules`, "max_applies");
    for (const [key, rule] of entries) {
      const at = `max_applies.${key}`;
      if (!RULE_KEY.test(key) || key === TOOL_CALL) throw new HttpError(400, "invalid_input", `\`${key}\` is not a change type or tool:<name>`, at);
      if (rule === null || typeof rule !== "object" || Array.isArray(rule)) throw new HttpError(400, "invalid_input", "a rule is { count, window_ms }", at);
      onlyKeys(rule, ["count", "window_ms"], at);
      if (!Number.isSafeInteger(rule.count) || rule.count < 1 || rule.count > MAX_COUNT) throw new HttpError(400, "invalid_input", `count is a whole number from 1 to ${MAX_COUNT}`, `${at}.count`);
      if (!Number.isSafeInteger(rule.window_ms) || rule.window_ms < 1000 || rule.window_ms > MAX_WINDOW_MS) throw new HttpError(400, "invalid_input", `window_ms is from 1000 to ${MAX_WINDOW_MS}`, `${at}.window_ms`);
    }
    const kept = { max_applies: Object.fromEntries(entries.map(([key, rule]) => [key, { count: rule.count, window_ms: rule.window_ms }])), same_change_within_ms: again, max_in_flight: inFlight };
    this.db.replaceSetting("history_rules", JSON.stringify(kept));
    this.db.appendAudit(Date.now(), null, "history_rules_changed", kept);
    return json(kept);
  },

  /**
   * Refuses (429 `history_rule`) a change whose type or tool was applied as many times as its rule allows
   * within the rule's window, counted from this guard's own audit of Applies.
   */
  checkHistory(view, doing, approvalId = "") {
    const rules = this.historyRules();
    const now = Date.now();
    // Actions in flight: Applies started whose outcome is not known yet (running, or unknown until a person
    // reconciles them). Beyond the rule, nothing more is asked for or started.
    if (rules.max_in_flight !== null) {
      const inFlight = this.db.inFlightCount();
      if (inFlight >= rules.max_in_flight) {
        throw new HttpError(429, "history_rule", `${inFlight} ${inFlight === 1 ? "Apply is" : "Applies are"} in flight (started, outcome not yet known), and at most ${rules.max_in_flight} are allowed: ${doing} refused`, "proposed_change");
      }
    }
    // The same change (node, type, from, to or arguments) applied within the window: not again so soon.
    if (rules.same_change_within_ms !== null) {
      const receipt = this.db.lastAppliedReceipt(changeDigest(view.node_id, view.proposed_change), approvalId);
      const at = receipt === null ? null : parseTime(receipt.at);
      if (at !== null && now - at < rules.same_change_within_ms) {
        throw new HttpError(429, "history_rule", `the same change ran ${Math.max(0, Math.round((now - at) / 60000))} min ago (approval \`${receipt.approval_id}\`), within ${Math.round(rules.same_change_within_ms / 60000)} min: ${doing} refused`, "proposed_change");
      }
    }
    const key = ruleKeyOf(view);
    const rule = rules.max_applies[key];
    if (rule === undefined) return;
    const applied = this.db.appliedSince(now - rule.window_ms).filter((id) => {
      const row = this.db.approval(id);
      return row !== null && ruleKeyOf({ node_id: row.proposal.node_id, proposed_change: row.proposal.proposed_change }) === key;
    }).length;
    if (applied >= rule.count) {
      throw new HttpError(429, "history_rule", `\`${key}\` was applied ${applied} times in the last ${Math.round(rule.window_ms / 60000)} min, and at most ${rule.count} are allowed: ${doing} refused`, "proposed_change");
    }
  },
};
