// What became of an approval, in words, and its own audit trail: shown on each card of the history.
import { element, shown } from "./render.js";
import { auditParts } from "./audit-words.js";

let locale = "en";
/** A time the guard gives in milliseconds (read by the core), in the page's locale. */
const time = (ms) => (typeof ms === "number" ? new Date(ms).toLocaleString(locale) : "");

/** One line saying how the approval ended (or where it stands), from its decision and confirmation. */
export function outcomeLine(approval, words) {
  locale = words.locale;
  const { from, to } = approval.proposed_change;
  const decision = approval.decision;
  const times = approval.times_ms ?? {};
  switch (approval.state) {
    case "consumed":
      return words.outcomeApplied(from || "—", to, time(times.consumed_at));
    case "declined":
      return words.outcomeDeclined(decision?.approver ?? decision?.key_id ?? "", Boolean(decision?.reason));
    case "approved":
      return words.outcomeApproved(decision?.approver ?? decision?.key_id ?? "", time(times.decided_at));
    case "cancelled":
      return words.outcomeCancelled(time(times.confirmed_at));
    case "invalidated":
      return approval.reconfirm ? words.outcomeMovedOn(shown(approval.reconfirm.current_status)) : words.outcomeNotApplied(time(times.invalidated_at));
    case "in_flight":
      return words.outcomeInFlight(time(times.in_flight_at));
    case "expired":
      return words.outcomeExpired;
    case "edited":
      return words.outcomeEdited(decision?.approver ?? decision?.key_id ?? "", time(times.decided_at));
    default:
      return "";
  }
}

/** The approval's audit records (newest first, as the guard lists them) in a disclosure. */
export function trailOf(records, words) {
  locale = words.locale;
  if (records.length === 0) return null;
  const list = element(
    "ol",
    { class: "audit" },
    ...records.map((record) => element("li", {}, `${time(record.at)} · `, ...auditParts(record, words, (text) => element("span", { class: "agent-text", text })))),
  );
  return element("details", {}, element("summary", { text: words.trail(records.length) }), list);
}

