// The approval inbox: the guard's pending approvals, live from its feed; approve with this device's key or a
// passkey, decline with a signed reason; cancel an unused approval; reconcile one whose Apply's outcome is
// unknown; pick a transition for one the node moved on from (reconfirm); history with outcomes and audit
// trails; the agent's presence and logs; the Command UI for admins. y and n act only on the focused
// approval, never from an editable field or with a modifier held; a decline waits a few seconds and can be
// undone; a device key's approval asks for a second y. Signing needs no wasm (`agent-governor/approver`);
// the guard module is loaded once, for the text the page shows (`displaySafe`).
import { init } from "agent-governor/guard/init";
import { guardApi, followFeed } from "./guard-api.js";
import { forgetApprover, loadApprover, registerDeviceKey, registerPasskey, signApproval, signHumanAction } from "./approver-keys.js";
import { showKeys } from "./key-manager.js";
import { approvalCard, element, shown } from "./render.js";
import { outcomeLine, trailOf } from "./outcome.js";
import { fetchAgentLog, showAgentLog } from "./agent-log.js";
import { TEXT, wordsFor } from "./i18n.js";
import { showPresence } from "./presence.js";
import { commandLine, needsText, showCommands } from "./commands.js";

// Without the guard module the page cannot show an agent's text safely (displaySafe): it stops, and says why.
await init().catch((error) => {
  const alert = document.createElement("p");
  alert.className = "warning";
  alert.setAttribute("role", "alert");
  alert.textContent = `The guard module could not be loaded, so nothing is shown (ガードモジュールを読み込めませんでした): ${error.message}`;
  document.body.prepend(alert);
  throw error;
});

/** How long a decline waits, undoable, before the signed decision is sent. */
const DECLINE_UNDO_MS = 5000;
/** How often the pending cards' node facts are read again. */
const FACTS_REFRESH_MS = 5000;
/** How long a device key's first y waits for the second. */
const CONFIRM_WINDOW_MS = 4000;
/** A second click must come at least this long after the first: a double-click is not two decisions. */
const CONFIRM_GAP_MS = 500;

const $ = (id) => document.getElementById(id);
const state = {
  approvals: new Map(),
  // A counter of updates: which feed message came after which list fetch began, so a slow fetch never
  // overwrites a newer view from the feed.
  clock: 0,
  updatedAt: new Map(),
  trails: new Map(),
  agentLog: null,
  approver: null,
  language: "en",
  rpId: "localhost",
  busy: new Set(),
  agents: new Map(),
  // The node's state now, per pending approval (the skill's Preview through the guard).
  facts: new Map(),
  commands: [],
  isAdmin: false,
  // Declines waiting out their undo window: approval id -> { timer, deadline, reason }.
  declining: new Map(),
  // A device key's first y: the approval id and until when a second y approves.
  confirming: null,
};
const words = () => wordsFor(state.language);

function announce(text) {
  $("announcer").textContent = text;
}

function applyLanguage() {
  document.documentElement.lang = state.language;
  // What was announced in the other language is not left behind.
  $("announcer").textContent = "";
  for (const node of document.querySelectorAll("[data-text]")) {
    const value = words()[node.dataset.text];
    if (typeof value === "string") node.textContent = value;
  }
  showApprover();
  render();
}

function showApprover() {
  showKeyManager();
  const status = $("approver-status");
  $("command-card").hidden = !(state.approver && state.isAdmin);
  if (state.approver) {
    status.textContent = words().registered(state.approver.approver, state.approver.kind);
    $("register").hidden = true;
  } else {
    status.textContent = words().notRegistered;
    $("register").hidden = false;
  }
}

function actionsFor(approval) {
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
      box.append(element("p", { class: "warning", "data-testid": "declining", text: words().declining(left) }));
      add(words().undo, undoDecline, { "data-action": "undo" });
      return box;
    }
    const confirming = state.confirming?.id === approval.approval_id;
    add(confirming ? words().approveAgain : words().approve, approve, { "data-action": "approve", ...(confirming ? { class: "confirming" } : {}) });
    const reasonId = `reason-${approval.approval_id}`;
    const reason = element("input", { id: reasonId, "data-reason": "", placeholder: words().declineReason, enterkeyhint: "send" });
    // Enter in the reason field declines with that reason (and starts the undo window).
    reason.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.isComposing) {
        event.preventDefault();
        decline(approval.approval_id);
      }
    });
    box.append(element("label", { for: reasonId, class: "visually-hidden", text: words().declineReason }), reason);
    add(words().decline, decline, { class: "secondary", "data-action": "decline" });
  } else if (approval.state === "approved") {
    // A transition the person picked has no agent to apply it: if the inbox's own Apply did not go through
    // (the page closed, the network failed), the person asks again here.
    if (approval.reconfirms) add(words().applyNow, applyPicked, { "data-action": "apply" });
    add(words().cancel, (id) => act(id, "cancel"), { class: "secondary", "data-action": "cancel" });
  } else if (approval.state === "invalidated" && approval.reconfirm) {
    const replacement = [...state.approvals.values()].find(
      (other) => other.reconfirms === approval.approval_id && !["declined", "expired", "cancelled"].includes(other.state),
    );
    if (replacement) {
      box.append(element("p", { text: words().picked(shown(replacement.proposed_change.to), replacement.state) }));
    } else {
      box.append(element("p", { class: "warning", text: words().reconfirmWaiting }), element("p", { text: words().reconfirmFacts(shown(approval.reconfirm.current_status)) }));
      for (const transition of approval.reconfirm.valid_transitions) {
        add(words().pick(shown(transition.label || transition.status)), (id) => pick(id, transition.status), {
          class: "secondary",
          "data-action": `reconfirm-${transition.status}`,
        });
      }
    }
  } else if (approval.state === "in_flight") {
    box.append(element("p", { text: words().inFlight }), element("p", { class: "muted", text: words().inFlightSince(approval.times_ms?.in_flight_at ?? null) }));
    add(words().reconcileApplied, (id) => act(id, "reconcile_applied"), { "data-action": "reconcile_applied" });
    add(words().reconcileNotApplied, (id) => act(id, "reconcile_not_applied"), { class: "secondary", "data-action": "reconcile_not_applied" });
  }
  return box;
}

function render() {
  const now = Date.now();
  const sorted = [...state.approvals.values()].sort((a, b) => (b.created_at_ms ?? 0) - (a.created_at_ms ?? 0));
  // What the person is doing survives a re-render: typed decline reasons and the focused control.
  const reasons = new Map([...document.querySelectorAll("[data-reason]")].map((input) => [input.id, input.value]));
  const active = document.activeElement;
  const focusedId = active?.closest?.(".approval")?.dataset.id;
  const focusedControl = active?.id || active?.dataset?.action || null;
  // Waiting for the person: pending approvals, and reconfirms whose transitions are still to be picked.
  const waitsForYou = (approval) => approval.state === "pending" || needsPick(approval);
  for (const [listId, wanted] of [["pending", waitsForYou], ["history", (a) => !waitsForYou(a)]]) {
    const list = $(listId);
    list.replaceChildren(
      ...sorted
        .filter(wanted)
        .map((approval) => approvalCard(approval, words(), now, actionsFor(approval), historyOf(approval, listId), state.facts.get(approval.approval_id) ?? null)),
    );
  }
  const waiting = sorted.filter(waitsForYou).length;
  $("pending-empty").hidden = waiting > 0;
  document.title = `${waiting > 0 ? `(${waiting}) ` : ""}${words().documentTitle}`;
  showAgentLog($("agent-log"), state.agentLog, words());
  showPresenceNow();
  showCommands($("commands"), state.commands, words());
  for (const [id, value] of reasons) {
    const input = document.getElementById(id);
    if (input) input.value = value;
  }
  if (focusedId) {
    const card = document.querySelector(`.approval[data-id="${CSS.escape(focusedId)}"]`);
    const control = focusedControl && (document.getElementById(focusedControl) ?? card?.querySelector(`[data-action="${CSS.escape(focusedControl)}"]`));
    (control && card?.contains(control) ? control : card)?.focus();
  }
}

/** An approval the node moved on from, whose transitions no one has picked yet: a decision waiting for the person. */
function needsPick(approval) {
  if (approval.state !== "invalidated" || !approval.reconfirm) return false;
  return ![...state.approvals.values()].some(
    (other) => other.reconfirms === approval.approval_id && !["declined", "expired", "cancelled"].includes(other.state),
  );
}

/**
 * The node's state now (the guard asks the skill's Preview) for every pending approval, so each card shows
 * whether the node is still where the proposal starts. Asked again when the agent saw the board change.
 */
async function refreshFacts() {
  const pending = [...state.approvals.values()].filter((approval) => approval.state === "pending");
  const next = new Map();
  await Promise.all(
    pending.map(async (approval) => {
      const answer = await guardApi.preview(approval.approval_id).catch((error) => ({ status: 0, body: { message: error.message } }));
      next.set(approval.approval_id, answer.status === 200 ? answer.body : { error: answer.body?.message ?? `HTTP ${answer.status}` });
    }),
  );
  state.facts = next;
  render();
}

/** On a history card: how it ended and its own audit trail. */
function historyOf(approval, listId) {
  if (listId !== "history") return [];
  const line = outcomeLine(approval, words());
  // A decline's reason is the person's own words: shown apart from the page's sentence.
  const reason = approval.state === "declined" && approval.decision?.reason ? approval.decision.reason : null;
  return [
    line ? element("p", { class: "outcome", "data-testid": "outcome" }, element("span", { text: reason ? `${line} ` : line }), reason ? element("q", { class: "agent-text", text: shown(reason) }) : null) : null,
    trailOf(state.trails.get(approval.approval_id) ?? [], words()),
  ];
}

async function refresh() {
  const startedAt = ++state.clock;
  const [approvals, audit] = await Promise.all([guardApi.approvals(), guardApi.audit()]);
  if (approvals.status === 200) {
    const next = new Map(approvals.body.approvals.map((approval) => [approval.approval_id, approval]));
    for (const [id, view] of state.approvals) {
      if (!next.has(id) || (state.updatedAt.get(id) ?? 0) > startedAt) next.set(id, view);
    }
    state.approvals = next;
  }
  if (audit.status === 200) {
    state.trails = new Map();
    for (const record of audit.body.records) {
      if (record.approval_id === null) continue;
      state.trails.set(record.approval_id, [...(state.trails.get(record.approval_id) ?? []), record]);
    }
    $("audit").replaceChildren(
      ...audit.body.records.map((record) =>
        element("li", { text: `${new Date(record.at).toLocaleString(words().locale)} · ${words().events?.[record.event] ?? record.event} ${record.approval_id ?? ""}` }),
      ),
    );
  }
  await refreshAgentLog(false);
  render();
  await refreshFacts();
}

async function refreshAgentLog(andRender = true) {
  try {
    state.agentLog = await fetchAgentLog();
  } catch {
    // The last tail stays on screen; the next poll tries again.
  }
  if (andRender) showAgentLog($("agent-log"), state.agentLog, words());
}

function needApprover() {
  if (state.approver) return true;
  announce(words().notRegistered);
  $("approver-name").focus();
  return false;
}

async function settle(id, run) {
  if (state.busy.has(id)) return;
  state.busy.add(id);
  try {
    const answer = await run();
    if (answer.status >= 400) announce(words().failed(answer.body.message));
  } catch (error) {
    announce(words().failed(error.message));
  } finally {
    state.busy.delete(id);
    await refresh();
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
function approve(id, { viaKey = false } = {}) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "pending" || state.declining.has(id) || !needApprover()) return;
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
          render();
        }, CONFIRM_WINDOW_MS),
      };
      announce(words().approveAgain);
      render();
      return;
    }
    clearTimeout(state.confirming.timer);
    state.confirming = null;
  }
  state.afterDecline = nextPendingAfter(id);
  return settle(id, async () => {
    const draft = { ...approval.draft, reason: "approved in the inbox", confirmed_at: new Date().toISOString(), ui_action: "inbox_approve" };
    const confirmation = await signApproval(state.approver, draft);
    const decided = await guardApi.decide(id, { decision: "y", confirmation });
    // A transition the person picked after a reconfirm has no agent waiting for it: the inbox asks the guard
    // to apply it, once, and says what happened.
    if (decided.status !== 200 || !approval.reconfirms) return decided;
    return applyAndSay(decided.body.executor_request);
  });
}

/** The Apply of an approved transition the person picked: the guard's Executor decides; never retried by itself. */
function applyPicked(id) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "approved" || !approval.reconfirms || !approval.executor_request) return;
  return settle(id, () => applyAndSay(approval.executor_request));
}

/** Asks the guard to apply and announces its answer's outcome (an error is announced by `settle`). */
async function applyAndSay(executorRequest) {
  const applied = await guardApi.apply(executorRequest);
  if (applied.status === 200) announce(words().applyOutcome(applied.body.outcome));
  return applied;
}

/** The person picks one of the skill's transitions for an approval the node moved on from: a new approval to sign. */
function pick(id, to) {
  return settle(id, async () => {
    const answer = await guardApi.reconfirm(id, to);
    if (answer.status === 201) announce(words().newApproval(answer.body.request.what));
    return answer;
  });
}

/** n: the decline waits DECLINE_UNDO_MS, visibly, before it is signed and sent; Undo cancels it. */
function decline(id) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "pending" || state.declining.has(id) || !needApprover()) return;
  const reason = document.querySelector(`.approval[data-id="${CSS.escape(id)}"] [data-reason]`)?.value ?? "";
  const next = nextPendingAfter(id);
  const deadline = Date.now() + DECLINE_UNDO_MS;
  const tick = setInterval(render, 1000);
  const timer = setTimeout(() => {
    clearInterval(tick);
    state.declining.delete(id);
    sendDecline(id, reason);
  }, DECLINE_UNDO_MS);
  state.declining.set(id, { timer, tick, deadline, reason });
  announce(words().declining(Math.ceil(DECLINE_UNDO_MS / 1000)));
  render();
  // The undo button has the focus: Enter or Space takes the decline back.
  document.querySelector(`.approval[data-id="${CSS.escape(id)}"] [data-action="undo"]`)?.focus();
  state.afterDecline = next;
}

function undoDecline(id) {
  const declining = state.declining.get(id);
  if (!declining) return;
  clearTimeout(declining.timer);
  clearInterval(declining.tick);
  state.declining.delete(id);
  announce(words().declineUndone);
  render();
  const card = document.querySelector(`.approval[data-id="${CSS.escape(id)}"]`);
  const input = card?.querySelector("[data-reason]");
  if (input) input.value = declining.reason;
  card?.focus();
}

function sendDecline(id, reason) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "pending") return render();
  return settle(id, async () => {
    const action = await signHumanAction(state.approver, { action: "decline", approval_id: id, version: approval.version, detail: reason, at: new Date().toISOString(), key_id: null });
    return guardApi.decide(id, { decision: "n", action });
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

function act(id, kind) {
  const approval = state.approvals.get(id);
  if (!approval || !needApprover()) return;
  return settle(id, async () => {
    // The action names the version of the approval the person saw: if it changed meanwhile, the guard refuses it.
    const action = await signHumanAction(state.approver, { action: kind, approval_id: id, version: approval.version, detail: "", at: new Date().toISOString(), key_id: null });
    return kind === "cancel" ? guardApi.cancel(id, action) : guardApi.reconcile(id, action);
  });
}

/** y / n on the focused approval only, j / k between approvals: never from an editable field, never with a modifier held. */
function onKey(event) {
  if (event.defaultPrevented || event.repeat || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && (target.isContentEditable || target.closest("input, textarea, select, [contenteditable]"))) return;
  const card = target instanceof HTMLElement ? target.closest(".approval") : null;
  if (event.key === "j" || event.key === "k") {
    const cards = [...document.querySelectorAll("#pending .approval, #history .approval")];
    if (cards.length === 0) return;
    event.preventDefault();
    const index = card ? cards.indexOf(card) : -1;
    const next = event.key === "j" ? cards[Math.min(cards.length - 1, index + 1)] : cards[Math.max(0, index - 1)];
    next?.focus();
    return;
  }
  if (!card || card.dataset.state !== "pending") return;
  if (event.key === "y") {
    event.preventDefault();
    approve(card.dataset.id, { viaKey: true });
  } else if (event.key === "n") {
    event.preventDefault();
    decline(card.dataset.id);
  }
}

/**
 * The agent this inbox shows and commands: the one the person picked, else the one the local server runs
 * beside it (npm start), else the only one; with several and none picked, the person picks (never guessed).
 */
function currentAgent() {
  const wanted = state.pickedAgent ?? state.localAgent;
  if (wanted) return state.agents.get(wanted) ?? null;
  return state.agents.size === 1 ? [...state.agents.values()][0] : null;
}

function showPresenceNow() {
  showAgentPicker();
  try {
    showPresence($("presence"), currentAgent(), words(), Date.now(), {
      isAdmin: state.approver !== null && state.isAdmin,
      knownApproval: (id) => state.approvals.has(id),
    });
  } catch (error) {
    $("presence").replaceChildren(element("p", { class: "warning", text: words().failed(error.message) }));
  }
  const agent = currentAgent();
  $("command-to").textContent = agent ? words().commandTo(shown(agent.agent_id)) : words().presenceNone;
  $("command-send").disabled = !agent;
}

/** With more than one agent, a choice of which to show and command. */
function showAgentPicker() {
  const picker = $("agent-picker");
  const ids = [...state.agents.keys()].sort();
  picker.hidden = ids.length < 2;
  if (picker.hidden) return;
  const select = $("agent-select");
  const current = currentAgent()?.agent_id ?? "";
  if ([...select.options].map((option) => option.value).join("\n") !== ["", ...ids].join("\n")) {
    select.replaceChildren(element("option", { value: "", text: "—" }), ...ids.map((id) => element("option", { value: id, text: shown(id) })));
  }
  select.value = current;
}

async function loadAgents() {
  const answer = await guardApi.agents().catch(() => null);
  if (answer?.status === 200) for (const status of answer.body.agents) state.agents.set(status.agent_id, status);
  const agent = currentAgent();
  if (agent && state.isAdmin) {
    const listed = await guardApi.commands(agent.agent_id).catch(() => null);
    if (listed?.status === 200) state.commands = listed.body.commands;
  }
}

/** This approver's keys and roles as the guard holds them (the Command UI is shown only to an admin). */
async function loadRoles() {
  state.isAdmin = false;
  state.keyView = null;
  if (state.approver) {
    const answer = await guardApi.approverKeys(state.approver.approver).catch(() => null);
    if (answer?.status === 200) state.keyView = answer.body;
    state.isAdmin = answer?.status === 200 && Array.isArray(answer.body.roles) && answer.body.roles.includes("admin");
  }
  showApprover();
}

function showKeyManager() {
  $("keys-box").hidden = !state.approver || !state.keyView;
  if (state.keyView) $("keys-summary").textContent = words().yourKeysCount(state.keyView.keys.length);
  showKeys($("keys"), state.approver ? state.keyView : null, state.approver, words(), revokeKey, renameKey);
}

/** Names one of this approver's keys with a signed rename_key (made for the key set's current version). */
async function renameKey(key, label) {
  if (!needApprover()) return;
  try {
    const current = await guardApi.approverKeys(state.approver.approver);
    if (current.status !== 200) throw new Error(current.body.message);
    const action = await signHumanAction(state.approver, { action: "rename_key", approval_id: key.key_id, version: current.body.version, detail: label, at: new Date().toISOString(), key_id: null });
    const renamed = await guardApi.renameKey(state.approver.approver, key.key_id, action);
    if (renamed.status !== 200) throw new Error(renamed.body.message);
    announce(words().keyRenamed(label));
  } catch (error) {
    announce(words().failed(error.message));
  }
  await loadRoles();
}

/** Revokes one of this approver's keys with a signed revoke_key; this device's own key is then forgotten here. */
async function revokeKey(key) {
  if (!needApprover()) return;
  try {
    const current = await guardApi.approverKeys(state.approver.approver);
    if (current.status !== 200) throw new Error(current.body.message);
    const action = await signHumanAction(state.approver, { action: "revoke_key", approval_id: key.key_id, version: current.body.version, detail: "", at: new Date().toISOString(), key_id: null });
    const revoked = await guardApi.revokeKey(state.approver.approver, key.key_id, action);
    if (revoked.status !== 200) throw new Error(revoked.body.message);
    announce(words().keyRevokedNotice(key.key_id));
    if (key.key_id === state.approver.keyId) {
      await forgetApprover();
      state.approver = null;
    }
  } catch (error) {
    announce(words().failed(error.message));
  }
  await loadRoles();
  render();
}

/** Signs the command exactly as the agent will receive it and sends it through the guard. */
async function sendCommand() {
  const agent = currentAgent();
  if (!agent) return announce(words().presenceNone);
  if (!needApprover() || state.sendingCommand) return;
  const verb = $("command-verb").value;
  const text = $("command-text").value;
  if (needsText(verb) && text.trim() === "") {
    announce(words().commandNeedsText);
    $("command-text").focus();
    return;
  }
  state.sendingCommand = true;
  try {
    const listed = await guardApi.commands(agent.agent_id);
    if (listed.status !== 200) throw new Error(listed.body.message);
    const detail = commandLine(verb, text);
    const action = await signHumanAction(state.approver, { action: "command", approval_id: `agent:${agent.agent_id}`, version: listed.body.version, detail, at: new Date().toISOString(), key_id: null });
    const sent = await guardApi.sendCommand(agent.agent_id, action);
    if (sent.status !== 201) throw new Error(sent.body.message);
    state.commands = [...state.commands.filter((known) => known.seq !== sent.body.seq), sent.body].sort((a, b) => a.seq - b.seq);
    $("command-text").value = "";
    announce(words().commandSent(detail));
    showCommands($("commands"), state.commands, words());
  } catch (error) {
    announce(words().failed(error.message));
  } finally {
    state.sendingCommand = false;
  }
}

/** An opt-in browser notification for a new approval, when the page is not in view. */
function notify(approval) {
  if (typeof Notification === "undefined" || Notification.permission !== "granted" || document.visibilityState === "visible") return;
  try {
    new Notification(words().newApproval(approval.request.what), { tag: approval.approval_id });
  } catch {
    // Some browsers allow notifications only from a service worker.
  }
}

async function register(kind) {
  const name = $("approver-name");
  if (state.registering || !name.reportValidity()) return;
  state.registering = true;
  try {
    const code = $("enrollment-code").value.trim();
    state.approver =
      kind === "passkey" ? await registerPasskey(guardApi, name.value, state.rpId, code) : await registerDeviceKey(guardApi, name.value, code);
    $("enrollment-code").value = "";
    await loadRoles();
    await loadAgents();
    render();
  } catch (error) {
    announce(words().failed(error.message));
    $("approver-status").textContent = words().failed(error.message);
  } finally {
    state.registering = false;
  }
}

async function main() {
  const saved = localStorage.getItem("inbox-language");
  state.language = saved in TEXT ? saved : navigator.language?.startsWith("ja") ? "ja" : "en";
  $("language").value = state.language;
  $("language").addEventListener("change", (event) => {
    state.language = event.target.value;
    localStorage.setItem("inbox-language", state.language);
    applyLanguage();
  });
  const config = await (await fetch("/config.json")).json();
  state.localAgent = typeof config.agent?.id === "string" ? config.agent.id : null;
  $("agent-select").addEventListener("change", async (event) => {
    state.pickedAgent = event.target.value || null;
    await loadAgents();
    render();
  });
  if (!config.guard) {
    $("approver-status").textContent = words().noGuard;
    return;
  }
  state.rpId = config.guard.rpId;
  state.approver = (await loadApprover()) ?? null;
  // A passkey when this device has a platform authenticator (it is then the first button and Enter's choice);
  // otherwise a device key, and the passkey button only when WebAuthn exists at all (a security key).
  const hasWebAuthn = typeof PublicKeyCredential !== "undefined";
  const platformAuthenticator =
    hasWebAuthn &&
    typeof PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable === "function" &&
    (await PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable().catch(() => false));
  const preferred = platformAuthenticator ? "passkey" : "device";
  if (platformAuthenticator) {
    $("register-passkey").classList.remove("secondary");
    $("register-device").classList.add("secondary");
    $("register-passkey").after($("register-device"));
  }
  $("register").addEventListener("submit", (event) => {
    event.preventDefault();
    register(preferred);
  });
  $("register-device").addEventListener("click", () => register("device"));
  $("register-passkey").addEventListener("click", () => register("passkey"));
  $("register-passkey").hidden = !hasWebAuthn;
  $("command-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sendCommand();
  });
  $("command-verb").addEventListener("change", () => {
    $("command-text").disabled = !needsText($("command-verb").value);
  });
  if (typeof Notification !== "undefined" && Notification.permission !== "denied") {
    $("notify").hidden = Notification.permission === "granted";
    $("notify").addEventListener("click", async () => {
      const permission = await Notification.requestPermission().catch(() => "denied");
      $("notify").hidden = true;
      if (permission === "granted") announce(words().notifyOn);
    });
  }
  // A held Enter or Space repeats a button's click: a repeated key press activates nothing on this page.
  document.addEventListener(
    "keydown",
    (event) => {
      if (event.repeat && (event.key === "Enter" || event.key === " ")) event.preventDefault();
    },
    { capture: true },
  );
  document.addEventListener("keydown", onKey);
  await loadRoles();
  await loadAgents();
  applyLanguage();
  await refresh();
  followFeed({
    approval(approval) {
      const known = state.approvals.has(approval.approval_id);
      state.approvals.set(approval.approval_id, approval);
      state.updatedAt.set(approval.approval_id, ++state.clock);
      if (!known && approval.state === "pending") {
        announce(words().newApproval(approval.request.what));
        notify(approval);
      }
      render();
      // The audit trails and the agent's log follow a moment later, once for a burst of changes.
      clearTimeout(state.refreshTimer);
      state.refreshTimer = setTimeout(refresh, 300);
    },
    agent(status) {
      const before = state.agents.get(status.agent_id);
      state.agents.set(status.agent_id, status);
      // The agent saw the board change: the pending cards' facts are read again.
      if (before && before.board_seen_ms !== status.board_seen_ms) refreshFacts();
      if (before?.state !== status.state) announce(words().presence?.[status.state] ?? status.state);
      showPresenceNow();
      clearTimeout(state.logTimer);
      state.logTimer = setTimeout(() => refreshAgentLog(), 300);
    },
    command(command) {
      state.commands = [...state.commands.filter((known) => known.seq !== command.seq), command].sort((a, b) => a.seq - b.seq);
      showCommands($("commands"), state.commands, words());
    },
  });
  setInterval(render, 30_000);
  // The elapsed times of the agent's presence.
  setInterval(showPresenceNow, 1000);
  // The board may change without the agent: the pending cards' facts are read again every few seconds.
  setInterval(() => {
    if ([...state.approvals.values()].some((approval) => approval.state === "pending")) refreshFacts();
  }, FACTS_REFRESH_MS);
  setInterval(() => refreshAgentLog(), 5_000);
  document.body.dataset.ready = "true";
}

main();
