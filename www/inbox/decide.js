// Deciding an approval: approve (a device key's needs a second y; a passkey asks the authenticator), decline
// after a few seconds that can be undone, cancel an unused approval, reconcile one whose Apply's outcome is
// unknown, pick a transition for one the node moved on from and apply it. Decisions, cancels and reconciles
// are signed with this device's approver key; one request at a time per approval, then a refresh, and after
// an approve or a decline the focus moves on to the next approval waiting.
import { guardApi } from "./guard-api.js";
import { duration } from "./durations.js";
import { signApproval, signHumanAction } from "./approver-keys.js";
import { render } from "./approval-list.js";
import { refresh } from "./sync.js";
import { announce, needApprover, words } from "./page.js";

/** How long a decline waits, undoable, before the signed decision is sent. */
const DECLINE_UNDO_MS = 5000;
/** How long a device key's first y waits for the second. */
const CONFIRM_WINDOW_MS = 4000;
/** A second click must come at least this long after the first: a double-click is not two decisions. */
const CONFIRM_GAP_MS = 500;

/** How long the card was on screen before this decision (the guard measures decisions by it), when known. */
function displayedFor(state, id) {
  const since = state.shownAt.get(id);
  if (since === undefined) return {};
  return { displayed_ms: Math.min(86_400_000, Math.max(0, Math.round(performance.now() - since))) };
}

async function settle(state, id, run) {
  if (state.busy.has(id)) return;
  state.busy.add(id);
  try {
    const answer = await run();
    if (answer.status >= 400) announce(words(state).failed(answer.body.message));
  } catch (error) {
    announce(words(state).failed(error.message));
  } finally {
    state.busy.delete(id);
    await refresh(state);
    // The focus moves on to the next approval waiting, when the decided one has left the list and the
    // person has not gone elsewhere meanwhile (typing a command, reading another card).
    if (state.approvals.get(id)?.state !== "pending" && state.afterDecline !== undefined) {
      const active = document.activeElement;
      const nowhere = !active || active === document.body || !active.isConnected;
      if (nowhere || active.closest?.(`.approval[data-id="${CSS.escape(id)}"]`)) focusPending(state.afterDecline);
      state.afterDecline = undefined;
    }
  }
}

/** `viaKey`: the y key (a held key repeats nothing: repeats are ignored); otherwise a click. */
export function approve(state, id, { viaKey = false } = {}) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "pending" || state.declining.has(id) || !needApprover(state)) return;
  // Signed already under a two-person rule: another person must approve (no second prompt, no 409).
  if ((approval.approvals_given ?? []).some((given) => given.approver === state.approver?.approver)) return announce(words(state).signedAlready);
  // A device key signs without asking anything: a second y (or press) within a few seconds confirms, so one
  // stray keystroke never approves. A passkey asks the authenticator for the gesture itself.
  if (state.approver.kind !== "passkey") {
    if (!viaKey && state.confirming?.id === id && Date.now() - state.confirming.at < CONFIRM_GAP_MS) return;
    if (state.confirming?.id !== id || Date.now() > state.confirming.until) {
      clearTimeout(state.confirming?.timer);
      state.confirming = {
        id,
        at: Date.now(),
        until: Date.now() + CONFIRM_WINDOW_MS,
        timer: setTimeout(() => {
          state.confirming = null;
          render(state);
        }, CONFIRM_WINDOW_MS),
      };
      // Said the way the person pressed: a key, or the button.
      announce(viaKey ? words(state).approveAgain : words(state).approveAgainButton);
      render(state);
      return;
    }
    clearTimeout(state.confirming.timer);
    state.confirming = null;
  }
  state.afterDecline = nextPendingAfter(id);
  return settle(state, id, async () => {
    const draft = { ...approval.draft, reason: "approved in the inbox", confirmed_at: new Date().toISOString(), ui_action: "inbox_approve" };
    const confirmation = await signApproval(state.approver, draft);
    const decided = await guardApi.decide(id, { decision: "y", confirmation, ...displayedFor(state, id) });
    // A transition the person picked after a reconfirm has no agent waiting for it: the inbox asks the guard
    // to apply it, once, and says what happened.
    if (decided.status !== 200 || !approval.reconfirms) return decided;
    return applyAndSay(state, decided.body.executor_request);
  });
}

/** The Apply of an approved transition the person picked: the guard's Executor decides; never retried by itself. */
export function applyPicked(state, id) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "approved" || !approval.reconfirms || !approval.executor_request) return;
  return settle(state, id, () => applyAndSay(state, approval.executor_request));
}

/** Asks the guard to apply and announces its answer's outcome (an error is announced by `settle`). */
async function applyAndSay(state, executorRequest) {
  const applied = await guardApi.apply(executorRequest);
  if (applied.status === 200) announce(words(state).applyOutcome(applied.body.outcome));
  return applied;
}

/** The person picks one of the skill's transitions for an approval the node moved on from: a new approval to sign. */
export function pick(state, id, to) {
  return settle(state, id, async () => {
    const answer = await guardApi.reconfirm(id, to);
    if (answer.status === 201) announce(words(state).newApproval(answer.body.request.what));
    return answer;
  });
}

/**
 * The person edits a pending proposal to another move the node allows: the guard renders the edit's lines and
 * makes it a new approval, which the person then approves like any other (signing exactly the edited change).
 */
export function editTo(state, id, to) {
  return settle(state, id, async () => {
    const answer = await guardApi.edit(id, { to });
    if (answer.status === 201) {
      state.editing = null;
      announce(words(state).editMade);
    }
    return answer;
  });
}

/** n: the decline waits DECLINE_UNDO_MS, visibly, before it is signed and sent; Undo cancels it. */
export function decline(state, id) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "pending" || state.declining.has(id) || !needApprover(state)) return;
  const reason = document.querySelector(`.approval[data-id="${CSS.escape(id)}"] [data-reason]`)?.value ?? "";
  const next = nextPendingAfter(id);
  const deadline = Date.now() + DECLINE_UNDO_MS;
  const tick = setInterval(() => render(state), 1000);
  const timer = setTimeout(() => {
    clearInterval(tick);
    state.declining.delete(id);
    sendDecline(state, id, reason);
  }, DECLINE_UNDO_MS);
  state.declining.set(id, { timer, tick, deadline, reason });
  announce(words(state).declining(duration(DECLINE_UNDO_MS, words(state).locale)));
  render(state);
  // The undo button has the focus: Enter or Space takes the decline back.
  document.querySelector(`.approval[data-id="${CSS.escape(id)}"] [data-action="undo"]`)?.focus();
  state.afterDecline = next;
}

export function undoDecline(state, id) {
  const declining = state.declining.get(id);
  if (!declining) return;
  clearTimeout(declining.timer);
  clearInterval(declining.tick);
  state.declining.delete(id);
  announce(words(state).declineUndone);
  render(state);
  const card = document.querySelector(`.approval[data-id="${CSS.escape(id)}"]`);
  const input = card?.querySelector("[data-reason]");
  if (input) input.value = declining.reason;
  card?.focus();
}

function sendDecline(state, id, reason) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "pending") return render(state);
  return settle(state, id, async () => {
    const action = await signHumanAction(state.approver, { action: "decline", approval_id: id, version: approval.version, detail: reason, at: new Date().toISOString(), key_id: null });
    return guardApi.decide(id, { decision: "n", action, ...displayedFor(state, id) });
  });
}

/** The pending approval shown after `id` (or before it, when it is the last), for the focus after a decision. */
function nextPendingAfter(id) {
  const cards = [...document.querySelectorAll('#pending .approval[data-state="pending"]')];
  const index = cards.findIndex((card) => card.dataset.id === id);
  return (cards[index + 1] ?? cards[index - 1])?.dataset.id ?? null;
}

function focusPending(id) {
  const card = id ? document.querySelector(`#pending .approval[data-id="${CSS.escape(id)}"]`) : null;
  (card ?? document.querySelector('#pending .approval[data-state="pending"]'))?.focus();
}

/** Cancel (an approved one) or reconcile (an Apply whose outcome is unknown), signed with this device's key. */
export function act(state, id, kind) {
  const approval = state.approvals.get(id);
  if (!approval || !needApprover(state)) return;
  return settle(state, id, async () => {
    // The action names the version of the approval the person saw: if it changed meanwhile, the guard refuses it.
    const action = await signHumanAction(state.approver, { action: kind, approval_id: id, version: approval.version, detail: "", at: new Date().toISOString(), key_id: null });
    return kind === "cancel" ? guardApi.cancel(id, action) : guardApi.reconcile(id, action);
  });
}
