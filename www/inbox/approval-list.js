// The page drawn from its state: the approvals waiting for the person (pending ones, and reconfirms whose
// transitions are still to be picked) and the history, newest first, with the count in the tab title; the
// agent's log, presence and commands beside them. Drawn whole on each change, keeping what the person typed
// and where the focus was.
import { approvalCard } from "./render.js";
import { showAgentLog } from "./agent-log.js";
import { showCommands } from "./commands.js";
import { actionsFor } from "./card-actions.js";
import { historyOf } from "./history.js";
import { showPresenceNow } from "./agents.js";
import { $, words } from "./page.js";
import { questionCard, questionsOf } from "./questions.js";
import { pageNow } from "./connection.js";
import { matchesHistoryFilter } from "./history-filter.js";

export function render(state) {
  // Frozen at the moment the feed dropped while the page is not live.
  const now = pageNow(state);
  const sorted = [...state.approvals.values()].sort((a, b) => (b.created_at_ms ?? 0) - (a.created_at_ms ?? 0));
  // What the person is doing survives a re-render: typed decline reasons and replies, the move picked in an
  // edit, and the focused control.
  const reasons = new Map([...document.querySelectorAll("[data-reason], [data-reply], [data-edit-to], [data-edit-arg], [data-edit-json]")].map((input) => [input.id, input.type === "checkbox" ? input.checked : input.value]));
  const active = document.activeElement;
  const focusedId = active?.closest?.(".approval")?.dataset.id;
  const focusedControl = active?.id || active?.dataset?.action || null;
  // Waiting for the person: pending approvals, and reconfirms whose transitions are still to be picked.
  const waitsForYou = (approval) => approval.state === "pending" || needsPick(state, approval);
  // An interrupted agent's question waits for the person too, first.
  const questions = questionsOf(state);
  const inHistory = (approval) => !waitsForYou(approval) && matchesHistoryFilter(state, approval);
  for (const [listId, wanted] of [["pending", waitsForYou], ["history", inHistory]]) {
    const list = $(listId);
    list.replaceChildren(
      ...(listId === "pending" ? questions.map((agent) => questionCard(state, agent)) : []),
      ...sorted
        .filter(wanted)
        .map((approval) =>
          approvalCard(approval, words(state), now, actionsFor(state, approval), historyOf(state, approval, listId), state.facts.get(approval.approval_id) ?? null),
        ),
    );
  }
  // A pending card on a visible page is on screen from now: its decision says how long it was read.
  if (document.visibilityState === "visible") {
    for (const approval of sorted) if (approval.state === "pending" && !state.shownAt.has(approval.approval_id)) state.shownAt.set(approval.approval_id, performance.now());
  }
  const waiting = sorted.filter(waitsForYou).length + questions.length;
  $("pending-empty").hidden = waiting > 0;
  const decided = sorted.filter((approval) => !waitsForYou(approval));
  const shown = decided.filter((approval) => matchesHistoryFilter(state, approval));
  $("history-empty").hidden = shown.length > 0;
  $("history-empty").textContent = decided.length > 0 ? words(state).historyNoMatch : words(state).historyEmpty;
  $("history-older").hidden = state.historyComplete || decided.length === 0;
  document.title = `${waiting > 0 ? `(${waiting}) ` : ""}${words(state).documentTitle}`;
  showAgentLog($("agent-log"), state.agentLog, words(state));
  showPresenceNow(state);
  showCommands($("commands"), state.commands, words(state));
  for (const [id, value] of reasons) {
    const input = document.getElementById(id);
    if (input && typeof value === "boolean") input.checked = value;
    else if (input) input.value = value;
  }
  if (focusedId) {
    const card = document.querySelector(`.approval[data-id="${CSS.escape(focusedId)}"]`);
    const control = focusedControl && (document.getElementById(focusedControl) ?? card?.querySelector(`[data-action="${CSS.escape(focusedControl)}"]`));
    (control && card?.contains(control) ? control : card)?.focus();
  }
}

/** An approval the node moved on from, whose transitions no one has picked yet: a decision waiting for the person. */
function needsPick(state, approval) {
  if (approval.state !== "invalidated" || !approval.reconfirm) return false;
  return ![...state.approvals.values()].some(
    (other) => other.reconfirms === approval.approval_id && !["declined", "expired", "cancelled"].includes(other.state),
  );
}
