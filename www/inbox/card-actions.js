// The actions an approval's card offers, by its state: approve and decline (with a reason) while pending, or
// the decline's countdown and Undo; cancel an approved one (or apply a transition the person picked); pick a
// transition for one the node moved on from (reconfirm); say whether an Apply whose outcome is unknown ran.
import { element, shown } from "./render.js";
import { duration } from "./durations.js";
import { act, applyPicked, approve, decline, editTo, pick, undoDecline } from "./decide.js";
import { words } from "./page.js";
import { render } from "./approval-list.js";
import { sendReply } from "./agents.js";
import { toolCallEditBox } from "./tool-call-edit.js";

/**
 * Editing a pending status change: the other moves the node allows now (the skill's Preview, shown on the card)
 * in a list, and the button that makes the chosen one a new approval. Offered only while the node is still at
 * the proposed `from`. A tool call's arguments are edited in tool-call-edit.js.
 */
function editBox(state, approval) {
  const facts = state.facts.get(approval.approval_id);
  const box = element("div", { class: "edit", "data-testid": "edit" });
  const others = (facts?.valid_transitions ?? []).filter((transition) => transition.status !== approval.proposed_change.to);
  if (others.length === 0) {
    box.append(element("p", { class: "muted", text: words(state).editNone }));
  } else {
    const id = `edit-${approval.approval_id}`;
    const select = element("select", { id, "data-edit-to": "" }, ...others.map((transition) => element("option", { value: transition.status, text: shown(transition.label || transition.status) })));
    const apply = element("button", { type: "button", "data-action": "edit-apply", text: words(state).editApply });
    apply.addEventListener("click", () => editTo(state, approval.approval_id, select.value));
    box.append(element("label", { for: id, text: words(state).editLabel }), select, apply);
  }
  const cancel = element("button", { type: "button", class: "secondary", "data-action": "edit-cancel", text: words(state).editCancel });
  cancel.addEventListener("click", () => {
    state.editing = null;
    box.closest(".approval")?.querySelector("[data-action=edit]")?.removeAttribute("aria-expanded");
    box.remove();
  });
  box.append(cancel);
  return box;
}

/** A reply to the card's agent, deciding nothing: a field and its button (Enter sends it too). */
function replyBox(state, approval) {
  const id = `reply-${approval.approval_id}`;
  const box = element("div", { class: "reply" });
  const field = element("input", { id, "data-reply": "", placeholder: words(state).replyPlaceholder, enterkeyhint: "send", maxlength: "2000" });
  const button = element("button", { type: "button", class: "secondary", "data-action": "reply", text: words(state).reply });
  const send = async () => {
    // The card may have been drawn again meanwhile (its typed text carried over): the field shown now is
    // the one emptied.
    if (await sendReply(state, approval.agent_id, field.value)) {
      const shownNow = document.getElementById(id);
      if (shownNow) shownNow.value = "";
    }
  };
  field.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
  button.addEventListener("click", send);
  box.append(element("label", { for: id, class: "visually-hidden", text: words(state).replyLabel }), field, button);
  return box;
}

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
      box.append(element("p", { class: "warning", "data-testid": "declining", text: words(state).declining(duration(left * 1000, words(state).locale)) }));
      add(words(state).undo, (id) => undoDecline(state, id), { "data-action": "undo" });
      return box;
    }
    const confirming = state.confirming?.id === approval.approval_id;
    // Under a two-person rule, a person who signed already waits for another: their second device counts once.
    const signedAlready = (approval.approvals_given ?? []).some((given) => given.approver === state.approver?.approver);
    if (signedAlready) box.append(element("p", { class: "muted", "data-testid": "signed-already", text: words(state).signedAlready }));
    else add(confirming ? words(state).approveAgainButton : words(state).approve, (id) => approve(state, id), { "data-action": "approve", ...(confirming ? { class: "confirming" } : {}) });
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
    // Edit: only the agent's own proposal (an edit is edited through its original), while the node is where
    // the proposal says it is and allows another move.
    const facts = state.facts.get(approval.approval_id);
    const toolCall = approval.proposed_change.type === "tool_call";
    const otherMoves = (facts?.valid_transitions ?? []).some((transition) => transition.status !== approval.proposed_change.to);
    if (approval.edits === null && approval.reconfirms === null && (toolCall || (facts?.matches === true && otherMoves))) {
      const editing = state.editing === approval.approval_id;
      add(words(state).edit, (id) => {
        state.editing = state.editing === id ? null : id;
        render(state);
      }, { class: "secondary", "data-action": "edit", ...(editing ? { "aria-expanded": "true" } : {}) });
      const stop = () => {
        state.editing = null;
        render(state);
      };
      if (editing) box.append(toolCall ? toolCallEditBox(state, approval, { onDone: () => render(state), onCancel: stop }) : editBox(state, approval));
    }
    if (typeof approval.agent_id === "string" && approval.agent_id !== "") box.append(replyBox(state, approval));
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
