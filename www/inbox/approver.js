// The approver section: who approves from this device (or the registration form, while no key is
// registered), this approver's keys as the guard holds them, renamed or revoked with signed actions, and the
// roles the guard gives it (the Command UI is shown only to an admin).
import { guardApi } from "./guard-api.js";
import { forgetApprover, signHumanAction } from "./approver-keys.js";
import { showKeys } from "./key-manager.js";
import { render } from "./approval-list.js";
import { $, announce, needApprover, words } from "./page.js";

export function showApprover(state) {
  showKeyManager(state);
  const status = $("approver-status");
  $("command-card").hidden = !(state.approver && state.isAdmin);
  $("invite-card").hidden = !(state.approver && state.isAdmin);
  $("mandate-card").hidden = !state.approver;
  if (state.approver) {
    status.textContent = words(state).registered(state.approver.approver, state.approver.kind);
    $("register").hidden = true;
  } else {
    status.textContent = words(state).notRegistered;
    $("register").hidden = false;
  }
}

/** This approver's keys and roles as the guard holds them (the Command UI is shown only to an admin). */
export async function loadRoles(state) {
  state.isAdmin = false;
  state.keyView = null;
  if (state.approver) {
    const answer = await guardApi.approverKeys(state.approver.approver).catch(() => null);
    if (answer?.status === 200) state.keyView = answer.body;
    state.isAdmin = answer?.status === 200 && Array.isArray(answer.body.roles) && answer.body.roles.includes("admin");
  }
  showApprover(state);
}

function showKeyManager(state) {
  $("keys-box").hidden = !state.approver || !state.keyView;
  if (state.keyView) $("keys-summary").textContent = words(state).yourKeysCount(state.keyView.keys.length);
  showKeys($("keys"), state.approver ? state.keyView : null, state.approver, words(state), (key) => revokeKey(state, key), (key, label) => renameKey(state, key, label));
}

/** Names one of this approver's keys with a signed rename_key (made for the key set's current version). */
async function renameKey(state, key, label) {
  if (!needApprover(state)) return;
  try {
    const current = await guardApi.approverKeys(state.approver.approver);
    if (current.status !== 200) throw new Error(current.body.message);
    const action = await signHumanAction(state.approver, { action: "rename_key", approval_id: key.key_id, version: current.body.version, detail: label, at: new Date().toISOString(), key_id: null });
    const renamed = await guardApi.renameKey(state.approver.approver, key.key_id, action);
    if (renamed.status !== 200) throw new Error(renamed.body.message);
    announce(words(state).keyRenamed(label));
  } catch (error) {
    announce(words(state).failed(error.message));
  }
  await loadRoles(state);
}

/** Revokes one of this approver's keys with a signed revoke_key; this device's own key is then forgotten here. */
async function revokeKey(state, key) {
  if (!needApprover(state)) return;
  try {
    const current = await guardApi.approverKeys(state.approver.approver);
    if (current.status !== 200) throw new Error(current.body.message);
    const action = await signHumanAction(state.approver, { action: "revoke_key", approval_id: key.key_id, version: current.body.version, detail: "", at: new Date().toISOString(), key_id: null });
    const revoked = await guardApi.revokeKey(state.approver.approver, key.key_id, action);
    if (revoked.status !== 200) throw new Error(revoked.body.message);
    announce(words(state).keyRevokedNotice(key.key_id));
    if (key.key_id === state.approver.keyId) {
      await forgetApprover();
      state.approver = null;
    }
  } catch (error) {
    announce(words(state).failed(error.message));
  }
  await loadRoles(state);
  render(state);
}
