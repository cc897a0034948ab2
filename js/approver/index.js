// Approver-side helpers: make a key only the approver holds, and sign with it. Plain JavaScript over the
// host's WebCrypto (Node, browsers and workerd all have it) with no WebAssembly, so a page that only signs
// loads no wasm: `agent-governor/approver`. A private key can stay non-extractable and never leaves
// WebCrypto; passkeys sign inside the authenticator. The bytes signed are the core's canonical encoding
// (./canonical.js), so any guard verifies them.
import { actionPayload, confirmationPayload, isBlank, keyIdText, mandatePayload, receiptBytes, sha256 } from "./canonical.js";
import { typedError } from "./errors.js";
import { isPlainObject } from "./plain-object.js";
import { readOptions } from "./options.js";

const ED25519 = { name: "Ed25519" };

function subtle() {
  const crypto = globalThis.crypto;
  if (!crypto?.subtle) throw typedError("unsupported", "", "this host has no WebCrypto (crypto.subtle)");
  return crypto.subtle;
}

/** Any object: a browser's PublicKeyCredential is an instance of its class. */
function isAnyObject(value) {
  return value !== null && typeof value === "object";
}

/** Reads a caller's value with `read`; anything it throws that is not already typed becomes `invalid_input` at `path`. */
function readValue(path, read) {
  try {
    return read();
  } catch (error) {
    if (error?.name === "AgentGovernorError") throw error;
    throw typedError("invalid_input", path, `${path || "the value"} could not be read: ${error?.message ?? String(error)}`);
  }
}

function nonEmptyText(path, value) {
  if (typeof value !== "string" || isBlank(value)) throw typedError("invalid_input", path, `${path} must be a non-empty string`);
  return value;
}

export function base64url(bytes) {
  if (!(bytes instanceof ArrayBuffer) && !(bytes instanceof Uint8Array)) {
    throw typedError("invalid_input", "bytes", "bytes must be an ArrayBuffer or a Uint8Array");
  }
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let text = "";
  for (const byte of view) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The longest text `fromBase64url` decodes: keys, credential ids and signatures are far shorter. */
const MAX_BASE64URL_CHARS = 1 << 20;

export function fromBase64url(text) {
  if (typeof text === "string" && text.length > MAX_BASE64URL_CHARS) {
    throw typedError("invalid_input", "text", `text is longer than ${MAX_BASE64URL_CHARS} characters`);
  }
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) {
    throw typedError("invalid_input", "text", "text must be unpadded base64url");
  }
  if (text.length % 4 === 1) throw typedError("invalid_input", "text", "text is not whole base64url bytes");
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
}

function hex(bytes) {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function readSigningKey(key) {
  return readValue("key", () => {
    if (!isPlainObject(key)) throw typedError("invalid_key", "key", "key must be { keyId, privateKey }");
    // The whole key `generateApproverKey` returns may be given (its `publicKey` is not used here).
    const { keyId, privateKey } = readOptions("a signing key", "key", key, { keyId: "any", privateKey: "any", publicKey: "any" });
    if (typeof keyId !== "string" || isBlank(keyId)) {
      throw typedError("invalid_key", "key.keyId", "keyId must be a non-empty string");
    }
    if (typeof CryptoKey === "undefined" || !(privateKey instanceof CryptoKey) || privateKey.type !== "private") {
      throw typedError("invalid_key", "key.privateKey", "privateKey must be a private Ed25519 CryptoKey");
    }
    return { keyId, privateKey };
  });
}

function readPasskey(passkey) {
  return readValue("passkey", () => {
    if (!isPlainObject(passkey)) throw typedError("invalid_input", "passkey", "passkey must be { keyId, rpId, credentialId?, timeout? }");
    const { keyId, rpId, credentialId, timeout = 120_000 } = readOptions("a passkey", "passkey", passkey, { keyId: "any", rpId: "any", credentialId: "any", timeout: "any" });
    nonEmptyText("passkey.keyId", keyId);
    nonEmptyText("passkey.rpId", rpId);
    if (credentialId !== undefined) fromBase64url(nonEmptyText("passkey.credentialId", credentialId));
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600_000) {
      throw typedError("invalid_input", "passkey.timeout", "timeout must be whole milliseconds from 1 to 600000");
    }
    return { keyId, rpId, credentialId, timeout };
  });
}

function randomKeyId() {
  return `approver-${globalThis.crypto.randomUUID()}`;
}

/**
 * A new Ed25519 approver key. The private key is non-extractable unless asked otherwise (it can still be
 * kept in IndexedDB: structured clone keeps CryptoKeys); `publicKey` is what a guard is configured with.
 */
export async function generateApproverKey(options = {}) {
  const { keyId = randomKeyId(), extractable = false } = readOptions("generateApproverKey", "options", options, { keyId: "any", extractable: "boolean" });
  if (typeof keyId !== "string" || isBlank(keyId)) {
    throw typedError("invalid_key", "options.keyId", "keyId must be a non-empty string");
  }
  if (typeof extractable !== "boolean") {
    throw typedError("invalid_input", "options.extractable", "extractable must be a boolean");
  }
  const pair = await subtle().generateKey(ED25519, extractable, ["sign", "verify"]);
  const raw = await subtle().exportKey("raw", pair.publicKey);
  return { keyId, privateKey: pair.privateKey, publicKey: { type: "ed25519", public_key: base64url(raw) } };
}

/** Signs `confirmation`'s binding fields with an Ed25519 approver key; returns it with `key_id` and `signature`. */
export async function signConfirmation(confirmation, key) {
  const { keyId, privateKey } = readSigningKey(key);
  // Signed and returned as the guard will read it (its JSON form), so what is sent is what was signed.
  const { value, bytes } = readValue("confirmation", () => confirmationPayload(confirmation, keyId));
  const signature = await subtle().sign(ED25519, privateKey, bytes);
  const { assertion: _dropped, ...rest } = value;
  return { ...rest, key_id: keyId, signature: hex(signature) };
}

/** A fresh single-use nonce: 16 random bytes, base64url (22 characters). */
export function newNonce() {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(16)));
}

/** The action with a fresh nonce unless it already carries one. */
function withNonce(action) {
  return readValue("action", () => {
    if (!isAnyObject(action) || Array.isArray(action)) throw typedError("invalid_input", "action", "action must be an object");
    return action.nonce === undefined || action.nonce === null ? { ...action, nonce: newNonce() } : { ...action };
  });
}

/**
 * Signs a human action (decline, cancel, reconcile, key changes) with an Ed25519 approver key. The action
 * names the `version` of what it acts on (the guard shows it); a fresh `nonce` is added when it has none.
 */
export async function signAction(unsignedAction, key) {
  const { keyId, privateKey } = readSigningKey(key);
  const action = withNonce(unsignedAction);
  const { value, bytes } = readValue("action", () => actionPayload(action, keyId));
  const signature = await subtle().sign(ED25519, privateKey, bytes);
  const { assertion: _dropped, ...rest } = value;
  return { ...rest, key_id: keyId, signature: hex(signature) };
}

/**
 * Signs a receipt with the guard's own Ed25519 key (WebCrypto): returns it with `key_id` and `signature`.
 * Anyone with the guard's public key verifies a chain of them with `verifyReceipts`.
 */
export async function signReceipt(receipt, key) {
  const { keyId, privateKey } = readSigningKey(key);
  const unsigned = readValue("receipt", () => ({ ...receipt, key_id: keyId, signature: "" }));
  const bytes = readValue("receipt", () => receiptBytes(unsigned));
  const signature = await subtle().sign(ED25519, privateKey, bytes);
  return { ...unsigned, signature: hex(signature) };
}

/** The passkey challenge (32 bytes: SHA-256 of the canonical bytes) that binds `confirmation` for key `keyId`. */
export async function passkeyChallenge(confirmation, keyId) {
  const { bytes } = readValue("confirmation", () => confirmationPayload(confirmation, keyIdText("keyId", keyId)));
  return sha256(subtle(), bytes);
}

/** The passkey challenge (32 bytes) that binds a human action for key `keyId`. */
export async function passkeyActionChallenge(action, keyId) {
  const { bytes } = readValue("action", () => actionPayload(action, keyIdText("keyId", keyId)));
  return sha256(subtle(), bytes);
}

/** The parts of a `PublicKeyCredential` from `navigator.credentials.get` that a guard verifies. */
export function passkeyAssertion(credential) {
  return readValue("credential", () => {
    const response = isAnyObject(credential) ? credential.response : undefined;
    const parts = [response?.authenticatorData, response?.clientDataJSON, response?.signature];
    if (!parts.every((part) => part instanceof ArrayBuffer || ArrayBuffer.isView(part))) {
      throw typedError("invalid_input", "credential", "credential must be a PublicKeyCredential from navigator.credentials.get");
    }
    const [authenticatorData, clientDataJson, signature] = parts.map((part) =>
      part instanceof ArrayBuffer ? new Uint8Array(part) : new Uint8Array(part.buffer, part.byteOffset, part.byteLength),
    );
    return {
      authenticator_data: base64url(authenticatorData),
      client_data_json: base64url(clientDataJson),
      signature: base64url(signature),
    };
  });
}

/**
 * The verification key of a passkey registered with `navigator.credentials.create` (ES256 or EdDSA), for a
 * guard that accepts assertions from `origins` for the relying party `rpId`.
 */
export function passkeyPublicKey(credential, relyingParty) {
  const { rpId, origins } = readValue("relyingParty", () => {
    if (!isPlainObject(relyingParty)) throw typedError("invalid_input", "relyingParty", "relyingParty must be { rpId, origins }");
    const { rpId, origins } = readOptions("passkeyPublicKey's relyingParty", "relyingParty", relyingParty, { rpId: "any", origins: "any" });
    nonEmptyText("relyingParty.rpId", rpId);
    if (!Array.isArray(origins) || origins.length === 0) {
      throw typedError("invalid_input", "relyingParty.origins", "origins must be a non-empty array of origins");
    }
    origins.forEach((origin, index) => nonEmptyText(`relyingParty.origins[${index}]`, origin));
    return { rpId, origins: [...origins] };
  });
  return readValue("credential", () => {
    const response = isAnyObject(credential) ? credential.response : undefined;
    if (typeof response?.getPublicKey !== "function" || typeof response?.getPublicKeyAlgorithm !== "function") {
      throw typedError("invalid_input", "credential", "credential must be a PublicKeyCredential from navigator.credentials.create");
    }
    const publicKey = response.getPublicKey();
    const algorithm = response.getPublicKeyAlgorithm();
    if (!(publicKey instanceof ArrayBuffer) || (algorithm !== -7 && algorithm !== -8)) {
      throw typedError("invalid_key", "credential", "the passkey must use ES256 (-7) or EdDSA (-8)");
    }
    return { type: "webauthn", algorithm, public_key: base64url(publicKey), rp_id: rpId, origins };
  });
}

async function getAssertion(challenge, { credentialId, rpId, timeout }) {
  if (!globalThis.navigator?.credentials?.get) throw typedError("unsupported", "", "this host has no WebAuthn");
  const credential = await navigator.credentials.get({
    publicKey: {
      challenge,
      rpId,
      timeout,
      userVerification: "required",
      allowCredentials: credentialId ? [{ type: "public-key", id: fromBase64url(credentialId) }] : [],
    },
  });
  if (!credential) throw typedError("aborted", "", "no passkey assertion was made");
  return passkeyAssertion(credential);
}

/**
 * Approves `confirmation` with the person's passkey: the authenticator signs its hash (the person's gesture
 * and user verification are required). Returns the confirmation with `key_id` and `assertion`.
 */
export async function approveWithPasskey(confirmation, passkey) {
  const ref = readPasskey(passkey);
  const { value, bytes } = readValue("confirmation", () => confirmationPayload(confirmation, ref.keyId));
  const assertion = await getAssertion(await sha256(subtle(), bytes), ref);
  const { signature: _dropped, ...rest } = value;
  return { ...rest, key_id: ref.keyId, signature: null, assertion };
}

/** Signs a human action with the person's passkey (a fresh `nonce` is added when it has none). */
export async function signActionWithPasskey(unsignedAction, passkey) {
  const ref = readPasskey(passkey);
  const action = withNonce(unsignedAction);
  const { value, bytes } = readValue("action", () => actionPayload(action, ref.keyId));
  const assertion = await getAssertion(await sha256(subtle(), bytes), ref);
  const { signature: _dropped, ...rest } = value;
  return { ...rest, key_id: ref.keyId, signature: null, assertion };
}

/**
 * Signs a standing approval (a mandate: which agents may run what, within which constraints, how often, until
 * when) with an Ed25519 approver key. Returns its terms with `key_id` and `signature`.
 */
export async function signMandate(mandate, key) {
  const { keyId, privateKey } = readSigningKey(key);
  const { value, bytes } = readValue("mandate", () => mandatePayload(mandate, keyId));
  const signature = await subtle().sign(ED25519, privateKey, bytes);
  return { ...value, key_id: keyId, signature: hex(signature) };
}

/** Signs a standing approval with the person's passkey: returns its terms with `key_id` and `assertion`. */
export async function signMandateWithPasskey(mandate, passkey) {
  const ref = readPasskey(passkey);
  const { value, bytes } = readValue("mandate", () => mandatePayload(mandate, ref.keyId));
  const assertion = await getAssertion(await sha256(subtle(), bytes), ref);
  return { ...value, key_id: ref.keyId, assertion };
}
