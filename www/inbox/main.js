// The approval inbox: the guard's pending approvals, live from its feed; approve with this device's key or a
// passkey, decline with a signed reason; cancel an unused approval; reconcile one whose Apply's outcome is
// unknown; history and the audit trail. y and n act only on the focused approval, never from an editable
// field or with a modifier held.
import { guardApi, followFeed } from "./guard-api.js";
import { loadApprover, registerDeviceKey, registerPasskey, signApproval, signHumanAction } from "./approver-keys.js";
import { approvalCard, element } from "./render.js";
import { TEXT, wordsFor } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const state = { approvals: new Map(), approver: null, language: "en", rpId: "localhost", busy: new Set() };
const words = () => wordsFor(state.language);

function announce(text) {
  $("announcer").textContent = text;
}

function applyLanguage() {
  document.documentElement.lang = state.language;
  for (const node of document.querySelectorAll("[data-text]")) {
    const value = words()[node.dataset.text];
    if (typeof value === "string") node.textContent = value;
  }
  showApprover();
  render();
}

function showApprover() {
  const status = $("approver-status");
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
    add(words().approve, approve, { "data-action": "approve" });
    const reasonId = `reason-${approval.approval_id}`;
    box.append(
      element("label", { for: reasonId, class: "visually-hidden", text: words().declineReason }),
      element("input", { id: reasonId, "data-reason": "", placeholder: words().declineReason }),
    );
    add(words().decline, decline, { class: "secondary", "data-action": "decline" });
  } else if (approval.state === "approved") {
    add(words().cancel, (id) => act(id, "cancel"), { class: "secondary", "data-action": "cancel" });
  } else if (approval.state === "in_flight") {
    box.append(element("p", { text: words().inFlight }));
    add(words().reconcileApplied, (id) => act(id, "reconcile_applied"), { "data-action": "reconcile_applied" });
    add(words().reconcileNotApplied, (id) => act(id, "reconcile_not_applied"), { class: "secondary", "data-action": "reconcile_not_applied" });
  }
  return box;
}

function render() {
  const now = Date.now();
  const sorted = [...state.approvals.values()].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  // What the person is doing survives a re-render: typed decline reasons and the focused control.
  const reasons = new Map([...document.querySelectorAll("[data-reason]")].map((input) => [input.id, input.value]));
  const active = document.activeElement;
  const focusedId = active?.closest?.(".approval")?.dataset.id;
  const focusedControl = active?.id || active?.dataset?.action || null;
  for (const [listId, wanted] of [["pending", (a) => a.state === "pending"], ["history", (a) => a.state !== "pending"]]) {
    const list = $(listId);
    list.replaceChildren(...sorted.filter(wanted).map((approval) => approvalCard(approval, words(), now, actionsFor(approval))));
  }
  $("pending-empty").hidden = sorted.some((approval) => approval.state === "pending");
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

async function refresh() {
  const [approvals, audit] = await Promise.all([guardApi.approvals(), guardApi.audit()]);
  if (approvals.status === 200) {
    state.approvals = new Map(approvals.body.approvals.map((approval) => [approval.approval_id, approval]));
  }
  if (audit.status === 200) {
    $("audit").replaceChildren(
      ...audit.body.records.map((record) => element("li", { text: `${new Date(record.at).toISOString()} ${record.event} ${record.approval_id ?? ""}` })),
    );
  }
  render();
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
  }
}

function approve(id) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "pending" || !needApprover()) return;
  return settle(id, async () => {
    const draft = { ...approval.draft, reason: "approved in the inbox", confirmed_at: new Date().toISOString(), ui_action: "inbox_approve" };
    const confirmation = await signApproval(state.approver, draft);
    return guardApi.decide(id, { decision: "y", confirmation });
  });
}

function decline(id) {
  const approval = state.approvals.get(id);
  if (!approval || approval.state !== "pending" || !needApprover()) return;
  const reason = document.querySelector(`.approval[data-id="${CSS.escape(id)}"] [data-reason]`)?.value ?? "";
  return settle(id, async () => {
    const action = await signHumanAction(state.approver, { action: "decline", approval_id: id, detail: reason, at: new Date().toISOString(), key_id: null });
    return guardApi.decide(id, { decision: "n", action });
  });
}

function act(id, kind) {
  if (!needApprover()) return;
  return settle(id, async () => {
    const action = await signHumanAction(state.approver, { action: kind, approval_id: id, detail: "", at: new Date().toISOString(), key_id: null });
    return kind === "cancel" ? guardApi.cancel(id, action) : guardApi.reconcile(id, action);
  });
}

/** y / n on the focused approval only: never from an editable field, never with a modifier held. */
function onKey(event) {
  if (event.defaultPrevented || event.repeat || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && (target.isContentEditable || target.closest("input, textarea, select, [contenteditable]"))) return;
  const card = target instanceof HTMLElement ? target.closest(".approval") : null;
  if (!card || card.dataset.state !== "pending") return;
  if (event.key === "y") {
    event.preventDefault();
    approve(card.dataset.id);
  } else if (event.key === "n") {
    event.preventDefault();
    decline(card.dataset.id);
  }
}

async function register(kind) {
  const name = $("approver-name");
  if (!name.reportValidity()) return;
  try {
    state.approver = kind === "passkey" ? await registerPasskey(guardApi, name.value, state.rpId) : await registerDeviceKey(guardApi, name.value);
    showApprover();
  } catch (error) {
    announce(words().failed(error.message));
    $("approver-status").textContent = words().failed(error.message);
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
  if (!config.guard) {
    $("approver-status").textContent = words().noGuard;
    return;
  }
  state.rpId = config.guard.rpId;
  state.approver = (await loadApprover()) ?? null;
  $("register").addEventListener("submit", (event) => {
    event.preventDefault();
    register("device");
  });
  $("register-passkey").addEventListener("click", () => register("passkey"));
  $("register-passkey").hidden = typeof PublicKeyCredential === "undefined";
  document.addEventListener("keydown", onKey);
  applyLanguage();
  await refresh();
  followFeed((approval) => {
    const known = state.approvals.has(approval.approval_id);
    state.approvals.set(approval.approval_id, approval);
    if (!known && approval.state === "pending") announce(words().newApproval(approval.request.what));
    render();
  });
  setInterval(render, 30_000);
  document.body.dataset.ready = "true";
}

main();
