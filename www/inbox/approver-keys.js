// The approver's own key on this device: a non-extractable Ed25519 key kept in IndexedDB (structured clone
// keeps a CryptoKey without exposing it), or a passkey registered with the platform authenticator. Either
// is registered with the guard once, with a one-time enrollment code; only its public half leaves the device.
import {
  approveWithPasskey,
  base64url,
  generateApproverKey,
  passkeyPublicKey,
  signAction,
  signActionWithPasskey,
  signConfirmation,
  signMandate,
  signMandateWithPasskey,
} from "agent-governor/approver";

const DB = "agent-governor-inbox";
const STORE = "approver";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function transact(mode, run) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = db.transaction(STORE, mode);
      const request = run(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request?.result);
      transaction.onerror = () => reject(transaction.error);
    });
  } finally {
    db.close();
  }
}

export const loadApprover = () => transact("readonly", (store) => store.get("me"));
const saveApprover = (record) => transact("readwrite", (store) => store.put(record, "me"));
/** Forgets this device's key (after it was revoked): the device registers again to approve. */
export const forgetApprover = () => transact("readwrite", (store) => store.delete("me"));

/** A code an admin gave the person, or one the local server asks the guard for (npm start). */
async function enrollmentCode(guardApi, approver, given) {
  if (given) return given;
  const code = await guardApi.enrollment(approver);
  if (code.status !== 201) throw new Error(code.body.message);
  return code.body.enrollment_code;
}

async function enroll(guardApi, approver, body, given) {
  const code = await enrollmentCode(guardApi, approver, given);
  const registered = await guardApi.registerKey(approver, { ...body, enrollment_code: code });
  if (registered.status !== 201) throw new Error(registered.body.message);
  // The guard namespaces key ids by approver (`alice/device-1a2b3c4d`): sign with the id it registered.
  return registered.body.key_id;
}

export async function registerDeviceKey(guardApi, approver, code = "") {
  const key = await generateApproverKey({ keyId: `device-${crypto.randomUUID().slice(0, 8)}` });
  const keyId = await enroll(guardApi, approver, { key_id: key.keyId, ...key.publicKey }, code);
  const record = { approver, kind: "device", keyId, privateKey: key.privateKey };
  await saveApprover(record);
  return record;
}

export async function registerPasskey(guardApi, approver, rpId, code = "") {
  const localId = `passkey-${crypto.randomUUID().slice(0, 8)}`;
  const credential = await navigator.credentials.create({
    publicKey: {
      challenge: crypto.getRandomValues(new Uint8Array(32)),
      rp: { id: rpId, name: "agent-governor inbox" },
      user: { id: new TextEncoder().encode(`${approver}/${localId}`), name: approver, displayName: approver },
      pubKeyCredParams: [{ type: "public-key", alg: -8 }, { type: "public-key", alg: -7 }],
      authenticatorSelection: { userVerification: "required", residentKey: "preferred" },
      timeout: 120_000,
    },
  });
  const spec = passkeyPublicKey(credential, { rpId, origins: [location.origin] });
  const credentialId = base64url(credential.rawId);
  const keyId = await enroll(guardApi, approver, { key_id: localId, type: "webauthn", algorithm: spec.algorithm, public_key: spec.public_key, credential_id: credentialId }, code);
  const record = { approver, kind: "passkey", keyId, credentialId, rpId };
  await saveApprover(record);
  return record;
}

/** The signing key of a device-key record (the record also names its approver and kind). */
const deviceKey = (record) => ({ keyId: record.keyId, privateKey: record.privateKey });

/** Signs `draft` (the approval's draft with reason, time and gesture) with this device's key or passkey. */
export function signApproval(approver, draft) {
  if (approver.kind === "passkey") {
    return approveWithPasskey(draft, { keyId: approver.keyId, credentialId: approver.credentialId, rpId: approver.rpId });
  }
  return signConfirmation(draft, deviceKey(approver));
}

export function signHumanAction(approver, action) {
  if (approver.kind === "passkey") {
    return signActionWithPasskey(action, { keyId: approver.keyId, credentialId: approver.credentialId, rpId: approver.rpId });
  }
  return signAction(action, deviceKey(approver));
}

/** Signs a standing approval's terms with this device's key or passkey. */
export function signMandateAs(approver, terms) {
  if (approver.kind === "passkey") {
    return signMandateWithPasskey(terms, { keyId: approver.keyId, credentialId: approver.credentialId, rpId: approver.rpId });
  }
  return signMandate(terms, deviceKey(approver));
}
