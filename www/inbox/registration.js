// Registering this device's approver key with the guard: a passkey or a key kept on this device, under the
// name the person gives, with the enrollment code an admin gave (or one the local server asks the guard for).
import { guardApi } from "./guard-api.js";
import { registerDeviceKey, registerPasskey } from "./approver-keys.js";
import { loadRoles } from "./approver.js";
import { loadAgents } from "./agents.js";
import { render } from "./approval-list.js";
import { $, announce, words } from "./page.js";

/** The registration form's buttons, in the order this device prefers, and what its Enter registers. */
export async function setUpRegistration(state) {
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
    register(state, preferred);
  });
  $("register-device").addEventListener("click", () => register(state, "device"));
  $("register-passkey").addEventListener("click", () => register(state, "passkey"));
  $("register-passkey").hidden = !hasWebAuthn;
}

async function register(state, kind) {
  const name = $("approver-name");
  if (state.registering || !name.reportValidity()) return;
  state.registering = true;
  try {
    const code = $("enrollment-code").value.trim();
    state.approver =
      kind === "passkey" ? await registerPasskey(guardApi, name.value, state.rpId, code) : await registerDeviceKey(guardApi, name.value, code);
    $("enrollment-code").value = "";
    await loadRoles(state);
    await loadAgents(state);
    render(state);
  } catch (error) {
    announce(words(state).failed(error.message));
    $("approver-status").textContent = words(state).failed(error.message);
  } finally {
    state.registering = false;
  }
}
