// The actions an approval's card offers, by its state: approve and decline (with a reason) while pending, or
// the decline's countdown and Undo; cancel an approved one (or apply a transition the person picked); pick a
// transition for one the node moved on from (reconfirm); say whether an Apply whose outcome is unknown ran.
import { element, shown } from "./render.js";
import { act, applyPicked, approve, decline, pick, undoDecline } from "./decide.js";
import { words } from "./page.js";

export function actionsFor(state, approval) {
  const box = element("div", { class: "actions" });
  const add = (label, handler, attributes = {}) => {
    const button = element("button", { type: "button", ...attributes, text: label });
    button.addEventListener("click", () => handler(approval.approval_id));
    box.append(button);
  };
  if (approval.state === "pending") {
    const declining = state.declining.get(approval.approval_id);
    if (declining) {
      const left = Math.max(0, Math.ceil((declining.deadline - Date.now()) / 1000));
      box.append(element("p", { class: "warning", "data-testid": "declining", text: words(state).declining(left) }));
      add(words(state).undo, (id) => undoDecline(state, id), { "data-action": "undo" });
      return box;
    }
    const confirming = state.confirming?.id === approval.approval_id;
    add(confirming ? words(state).approveAgain : words(state).approve, (id) => approve(state, id), { "data-action": "approve", ...(confirming ? { class: "confirming" } : {}) });
    const reasonId = `reason-${approval.approval_id}`;
    const reason = element("input", { id: reasonId, "data-reason": "", placeholder: words(state).declineReason, enterkeyhint: "send" });
    // Enter in the reason field declines with that reason (and starts the undo window).
    reason.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.isComposing) {
        event.preventDefault();
        decline(state, approval.approval_id);
      }
    });
    box.append(element("label", { for: reasonId, class: "visually-hidden", text: words(state).declineReason }), reason);
    add(words(state).decline, (id) => decline(state, id), { class: "secondary", "data-action": "decline" });
  } else if (approval.state === "approved") {
    // A transition the person picked has no agent to apply it: if the inbox's own Apply did not go through
    // (the page closed, the network failed), the person asks again here.
    if (approval.reconfirms) add(words(state).applyNow, (id) => applyPicked(state, id), { "data-action": "apply" });
    add(words(state).cancel, (id) => act(state, id, "cancel"), { class: "secondary", "data-action": "cancel" });
  } else if (approval.state === "invalidated" && approval.reconfirm) {
    const replacement = [...state.approvals.values()].find(
      (other) => other.reconfirms === approval.approval_id && !["declined", "expired", "cancelled"].includes(other.state),
    );
    if (replacement) {
      box.append(element("p", { text: words(state).picked(shown(replacement.proposed_change.to), replacement.state) }));
    } else {
      box.append(element("p", { class: "warning", text: words(state).reconfirmWaiting }), element("p", { text: words(state).reconfirmFacts(shown(approval.reconfirm.current_status)) }));
      for (const transition of approval.reconfirm.valid_transitions) {
        add(words(state).pick(shown(transition.label || transition.status)), (id) => pick(state, id, transition.status), {
          class: "secondary",
          "data-action": `reconfirm-${transition.status}`,
        });
      }
    }
  } else if (approval.state === "in_flight") {
    box.append(element("p", { text: words(state).inFlight }), element("p", { class: "muted", text: words(state).inFlightSince(approval.times_ms?.in_flight_at ?? null) }));
    add(words(state).reconcileApplied, (id) => act(state, id, "reconcile_applied"), { "data-action": "reconcile_applied" });
    add(words(state).reconcileNotApplied, (id) => act(state, id, "reconcile_not_applied"), { class: "secondary", "data-action": "reconcile_not_applied" });
  }
  return box;
}
