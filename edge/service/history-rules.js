// History rules, checked from the guard's own ledger before a change is asked for and before it is applied:
// at most N applies of a change type (or `tool:<name>`) within a window. Methods of the inbox's Durable
// Object, assigned to its prototype in inbox.js.
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
    return text === null ? { max_applies: {} } : JSON.parse(text);
  },

  /** `PUT /v1/history-rules { max_applies: { "status_change": { count: 5, window_ms: 3600000 } } }` (admin). */
  async putHistoryRules(request) {
    const body = await readJsonObject(request);
    onlyKeys(body, ["max_applies"]);
    const rules = body.max_applies;
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
    const kept = { max_applies: Object.fromEntries(entries.map(([key, rule]) => [key, { count: rule.count, window_ms: rule.window_ms }])) };
    this.db.replaceSetting("history_rules", JSON.stringify(kept));
    this.db.appendAudit(Date.now(), null, "history_rules_changed", kept);
    return json(kept);
  },

  /**
   * Refuses (429 `history_rule`) a change whose type or tool was applied as many times as its rule allows
   * within the rule's window, counted from this guard's own audit of Applies.
   */
  checkHistory(view, doing) {
    const key = ruleKeyOf(view);
    const rule = this.historyRules().max_applies[key];
    if (rule === undefined) return;
    const now = Date.now();
    const applied = this.db.appliedSince(now - rule.window_ms).filter((id) => {
      const row = this.db.approval(id);
      return row !== null && ruleKeyOf({ node_id: row.proposal.node_id, proposed_change: row.proposal.proposed_change }) === key;
    }).length;
    if (applied >= rule.count) {
      throw new HttpError(429, "history_rule", `\`${key}\` was applied ${applied} times in the last ${Math.round(rule.window_ms / 60000)} min, and at most ${rule.count} are allowed: ${doing} refused`, "proposed_change");
    }
  },
};
