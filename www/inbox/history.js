// The history and the audit: on each history card, how the approval ended and its own audit trail; below the
// cards, the guard's audit trail as a whole, one line a record.
import { element, shown } from "./render.js";
import { outcomeLine, trailOf } from "./outcome.js";
import { words } from "./page.js";
import { auditParts, keyHolder } from "./audit-words.js";

/** On a history card: how it ended and its own audit trail. */
export function historyOf(state, approval, listId) {
  if (listId !== "history") return [];
  const line = outcomeLine(approval, words(state));
  // A decline's reason is the person's own words: shown apart from the page's sentence.
  const reason = approval.state === "declined" && approval.decision?.reason ? approval.decision.reason : null;
  // Who decided and when: the person and their key (a device or a passkey), at the guard's time, in the
  // reader's locale.
  const decision = approval.decision;
  const decidedAt = approval.times_ms?.decided_at;
  const { person, key } = keyHolder(decision?.key_id);
  const decided =
    decision && typeof decidedAt === "number"
      ? element(
          "p",
          { class: "muted", "data-testid": "decided-by" },
          element("span", { text: words(state).decidedBy(decision.approver ?? person, new Date(decidedAt).toLocaleString(words(state).locale)) }),
          // The key's name is the person's own: shown as written.
          key ? element("span", { text: ` · ${words(state).keyLabel} ` }) : null,
          key ? element("code", { text: key }) : null,
        )
      : null;
  return [
    decided,
    line ? element("p", { class: "outcome", "data-testid": "outcome" }, element("span", { text: reason ? `${line} ` : line }), reason ? element("q", { class: "agent-text", text: shown(reason) }) : null) : null,
    trailOf(state.trails.get(approval.approval_id) ?? [], words(state)),
  ];
}

/** Replaces the list's lines with the guard's audit records: when, what happened, and to which approval. */
export function showAudit(list, records, words) {
  // An empty trail says so, rather than an empty box.
  if (records.length === 0) {
    list.replaceChildren(element("li", { class: "muted", "data-testid": "audit-empty", text: words.auditEmpty }));
    return;
  }
  list.replaceChildren(
    ...records.map((record) =>
      element(
        "li",
        {},
        `${new Date(record.at).toLocaleString(words.locale)} · `,
        ...auditParts(record, words, (text) => element("span", { class: "agent-text", text })),
        record.approval_id ? " · " : null,
        record.approval_id ? element("code", { text: record.approval_id }) : null,
      ),
    ),
  );
}
