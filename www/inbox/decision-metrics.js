// Decisions measured, in the inbox: per change type and per person over the last week, how many were decided
// and how, the median time a card was on screen before its decision, how many approvals came faster than the
// card can be read; and, for this person, the standing approvals that would have covered their approvals, one
// press away from the standing-approval form (which shows the core's words before anything is signed).
import { guardApi } from "./guard-api.js";
import { element } from "./render.js";
import { $, words } from "./page.js";

/** A condition as the standing-approval form reads it: `field op value`. */
function conditionLine({ field, op, value }) {
  const name = /^\/[^/~]+$/.test(field) ? field.slice(1) : field;
  return `${name} ${op} ${Array.isArray(value) ? value.join(", ") : String(value)}`;
}

function row(w, label, entry) {
  const cells = [
    label,
    String(entry.decided),
    entry.approve_rate === null ? "–" : w.percent(entry.approve_rate),
    String(entry.by_standing_approval),
    entry.median_read_ms === null ? "–" : w.seconds(entry.median_read_ms),
    String(entry.approved_faster_than_readable),
  ];
  return element("tr", { "data-testid": "metrics-row" }, ...cells.map((text, index) => element(index === 0 ? "th" : "td", { text })));
}

function table(w, caption, entries, label) {
  const head = element("tr", {}, ...w.metricsColumns.map((text) => element("th", { scope: "col", text })));
  return element("table", { class: "metrics" }, element("caption", { text: caption }), element("thead", {}, head), element("tbody", {}, ...entries.map((entry) => row(w, entry[label], entry))));
}

/** Fills the standing-approval form with a suggestion: the person then reads the core's words and signs, or not. */
function prefill(suggestion) {
  $("mandate-agent").value = suggestion.terms.agents[0];
  $("mandate-action").value = suggestion.terms.action;
  $("mandate-conditions").value = suggestion.terms.constraints.map(conditionLine).join("\n");
  $("mandate-uses").value = String(suggestion.terms.max_uses);
  $("mandate-draft").hidden = true;
  $("mandate-form").dispatchEvent(new Event("input"));
  $("mandate-agent").focus();
}

export function showDecisionMetrics(state) {
  const metrics = state.decisionMetrics;
  const w = words(state);
  $("metrics-card").hidden = !metrics || !state.approver;
  if (!metrics) return;
  const mine = metrics.suggestions.filter((suggestion) => suggestion.approver === state.approver?.approver);
  $("metrics-body").replaceChildren(
    element("p", { class: "muted", text: w.metricsSummary(metrics.decided, Math.round(metrics.window_ms / 86_400_000)) }),
    table(w, w.metricsByType, metrics.by_type, "key"),
    table(w, w.metricsByPerson, metrics.by_person, "approver"),
    ...mine.map((suggestion) => {
      const conditions = suggestion.terms.constraints.map(conditionLine);
      const button = element("button", { type: "button", "data-testid": "suggestion-use", text: w.suggestionUse });
      button.addEventListener("click", () => prefill(suggestion));
      return element("p", { class: "suggestion", "data-testid": "suggestion" }, w.suggestion(suggestion.approvals, suggestion.terms.action, suggestion.terms.agents[0], conditions), " ", button);
    }),
  );
}

export async function loadDecisionMetrics(state) {
  const answer = await guardApi.decisionMetrics().catch(() => null);
  if (answer?.status !== 200) return;
  state.decisionMetrics = answer.body;
  showDecisionMetrics(state);
}
