// What verifying an approver's signature costs: `Guard.check` with an HMAC key, an Ed25519 key and an ES256
// passkey (each approval seen for the first time, and seen again), and `Guard.checkAsync` with the ES256
// passkey (the curve step in the host's WebCrypto), against the host's own WebCrypto verifying the same kind
// of signature alone. Figures, never assertions: `node bench/signatures.bench.mjs` after `npm run build`.
import { createHash, webcrypto } from "node:crypto";
import {
  Guard,
  base64url,
  confirmationChallenge,
  generateApproverKey,
  issueConfirmation,
  requestFor,
  signConfirmation,
} from "agent-governor/guard";
import { derSignature } from "../tests/js/edge-service-support.mjs";

const COUNT = Number(process.env.COUNT ?? 400);
const subtle = webcrypto.subtle;
const hmac = { keyId: "server", secret: "0123456789abcdef0123456789abcdef-bench" };
const draft = (index) => ({
  node_id: `node-${index}`,
  proposed_change: { type: "status_change", from: "todo", to: "done" },
  intent: "close the finished task",
  reason: "every checklist item is done",
  ui_action: "approve_button",
});
const base = Array.from({ length: COUNT }, (_, index) => issueConfirmation(draft(index), hmac));

function perCheck(guard, confirmations) {
  const started = performance.now();
  for (const confirmation of confirmations) {
    const verdict = guard.check(confirmation, requestFor(confirmation), { currentStatus: "todo" });
    if (verdict.verdict !== "pass") throw new Error(JSON.stringify(verdict));
  }
  return ((performance.now() - started) / confirmations.length) * 1000;
}

async function perCheckAsync(guard, confirmations) {
  const started = performance.now();
  for (const confirmation of confirmations) {
    const verdict = await guard.checkAsync(confirmation, requestFor(confirmation), { currentStatus: "todo" });
    if (verdict.verdict !== "pass") throw new Error(JSON.stringify(verdict));
  }
  return ((performance.now() - started) / confirmations.length) * 1000;
}

async function perVerify(verify, count) {
  const started = performance.now();
  for (let index = 0; index < count; index += 1) if (!(await verify())) throw new Error("did not verify");
  return ((performance.now() - started) / count) * 1000;
}

// HMAC (a server issuing approvals itself).
const hmacGuard = new Guard({ keys: { [hmac.keyId]: hmac.secret } });

// Ed25519: one approver key, every approval signed once.
const alice = await generateApproverKey({ keyId: "alice-1" });
const ed25519Signed = await Promise.all(base.map((confirmation) => signConfirmation(confirmation, alice)));
const ed25519Guard = () => new Guard({ keys: { [alice.keyId]: alice.publicKey } });

// ES256 passkey: a software authenticator answering the challenge of each approval.
const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
const spki = base64url(await subtle.exportKey("spki", pair.publicKey));
const passkeyKeys = { "alice-passkey": { type: "webauthn", algorithm: -7, public_key: spki, rp_id: "localhost", origins: ["http://localhost:8080"] } };
const passkeySignedFrom = (first) =>
  Promise.all(
  base.map(async (confirmation, index) => {
    const unsigned = { ...confirmation, key_id: "alice-passkey", signature: null };
    const clientData = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: base64url(confirmationChallenge(unsigned, "alice-passkey")), origin: "http://localhost:8080" }));
    const authenticatorData = Buffer.alloc(37);
    createHash("sha256").update("localhost").digest().copy(authenticatorData);
    authenticatorData[32] = 0x05;
    authenticatorData.writeUInt32BE(first + index, 33);
    const signed = Buffer.concat([authenticatorData, createHash("sha256").update(clientData).digest()]);
    const signature = new Uint8Array(await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, signed));
    return { ...unsigned, assertion: { authenticator_data: base64url(authenticatorData), client_data_json: base64url(clientData), signature: base64url(derSignature(signature)) } };
  }),
  );
// Two sets with different counters, so neither finds the other's verifications remembered.
const passkeySigned = await passkeySignedFrom(1);
const passkeySignedForHost = await passkeySignedFrom(1 + COUNT);
const passkeyGuard = () => new Guard({ keys: passkeyKeys });

// WebCrypto peers over a message of the canonical encoding's size.
const message = new Uint8Array(360);
const edPair = await subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
const edSignature = await subtle.sign({ name: "Ed25519" }, edPair.privateKey, message);
const ecSignature = await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, message);

const rows = [];
for (let round = 0; round < 3; round += 1) {
  const fresh = { ed: ed25519Guard(), passkey: passkeyGuard() };
  rows.push({
    "HMAC-SHA256 (wasm)": perCheck(hmacGuard, base),
    "Ed25519, first sight (wasm)": perCheck(fresh.ed, ed25519Signed),
    "Ed25519, seen before (wasm, remembered)": perCheck(fresh.ed, ed25519Signed.slice(-100)),
    "ES256 passkey, first sight (wasm)": perCheck(fresh.passkey, passkeySigned),
    "ES256 passkey, first sight, checkAsync (WebCrypto)": await perCheckAsync(fresh.passkey, passkeySignedForHost),
    "WebCrypto Ed25519 verify only (host)": await perVerify(() => subtle.verify({ name: "Ed25519" }, edPair.publicKey, edSignature, message), COUNT),
    "WebCrypto ECDSA P-256 verify only (host)": await perVerify(() => subtle.verify({ name: "ECDSA", hash: "SHA-256" }, pair.publicKey, ecSignature, message), COUNT),
  });
}
console.log(`µs per operation, median of 3 rounds of ${COUNT} (Guard.check: the whole check, signature included)`);
const median = {};
for (const name of Object.keys(rows[0])) {
  const values = rows.map((row) => row[name]).sort((a, b) => a - b);
  median[name] = values[1];
  console.log(`${name.padEnd(52)} ${values[1].toFixed(1).padStart(8)}`);
}
const ratio = (numerator, denominator) => (median[numerator] / median[denominator]).toFixed(2);
console.log(`ES256 first check (checkAsync) / WebCrypto P-256 verify alone: ${ratio("ES256 passkey, first sight, checkAsync (WebCrypto)", "WebCrypto ECDSA P-256 verify only (host)")}x (goal at most 2x)`);
console.log(`ES256 first check (check, wasm) / WebCrypto P-256 verify alone: ${ratio("ES256 passkey, first sight (wasm)", "WebCrypto ECDSA P-256 verify only (host)")}x`);
console.log(`Ed25519 first check (check, wasm) / WebCrypto Ed25519 verify alone: ${ratio("Ed25519, first sight (wasm)", "WebCrypto Ed25519 verify only (host)")}x (goal at most 1.2x)`);
