// `Guard.checkAsync`: the same verdicts as `check`, with an ES256 passkey's curve step verified by the host's
// WebCrypto. The host is asked (plumbing: the request reaches `crypto.subtle.verify` with the exact bytes),
// and a host that fails in any way leaves the module's own verifier to decide.
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import { Guard, confirmationChallenge, issueConfirmation, requestFor } from "agent-governor/guard";
import { softwarePasskey } from "./edge-service-support.mjs";

const ORIGIN = "http://localhost:8080";
const hmac = { keyId: "server", secret: "0123456789abcdef0123456789abcdef-host" };
let serial = 0;

async function passkeySetup() {
  const passkey = await softwarePasskey("alice-passkey");
  const { type, algorithm, public_key } = passkey.registration;
  const guard = new Guard({ keys: { "alice-passkey": { type, algorithm, public_key, rp_id: "localhost", origins: [ORIGIN] }, [hmac.keyId]: hmac.secret } });
  return { passkey, guard };
}

/** A fresh passkey approval (a new node each time, so no verification of it is remembered). */
async function passkeyApproval(passkey, options) {
  serial += 1;
  const base = issueConfirmation(
    { node_id: `host-${serial}`, proposed_change: { type: "status_change", from: "todo", to: "done" }, intent: "close it", reason: "done", ui_action: "passkey" },
    hmac,
  );
  const unsigned = { ...base, key_id: "alice-passkey", signature: null };
  return { ...unsigned, assertion: await passkey.assert(confirmationChallenge(unsigned, "alice-passkey"), options) };
}

const options = { currentStatus: "todo" };
const subtle = globalThis.crypto.subtle;
const realVerify = subtle.verify;
const realImportKey = subtle.importKey;
afterEach(() => {
  subtle.verify = realVerify;
  subtle.importKey = realImportKey;
});

/** Records every `crypto.subtle.verify` call, then answers it with `answer` (the real verify by default). */
function spyOnVerify(answer = (...args) => realVerify.apply(subtle, args)) {
  const calls = [];
  subtle.verify = (...args) => {
    calls.push(args);
    return answer(...args);
  };
  return calls;
}

describe("Guard.checkAsync", () => {
  test("an ES256 passkey approval is verified by the host's WebCrypto, with the bytes the authenticator signed", async () => {
    const { passkey, guard } = await passkeySetup();
    const approval = await passkeyApproval(passkey);
    const calls = spyOnVerify();
    const verdict = await guard.checkAsync(approval, requestFor(approval), options);
    assert.deepEqual(verdict, { verdict: "pass" });
    assert.equal(calls.length, 1);
    const [algorithm, key, signature, signed] = calls[0];
    assert.deepEqual(algorithm, { name: "ECDSA", hash: "SHA-256" });
    assert.equal(key.algorithm.namedCurve, "P-256");
    assert.equal(signature.length, 64, "r || s, as WebCrypto takes it");
    const authenticatorData = Buffer.from(approval.assertion.authenticator_data, "base64url");
    assert.deepEqual(Buffer.from(signed).subarray(0, authenticatorData.length), authenticatorData);
    assert.equal(signed.length, authenticatorData.length + 32, "authenticator data || SHA-256(client data)");
    // Verified once: the same approval again is remembered, not asked again.
    assert.deepEqual(await guard.checkAsync(approval, requestFor(approval), options), { verdict: "pass" });
    assert.equal(calls.length, 1);
  });

  test("gives check's verdict for every kind of approval and every rejection", async () => {
    const { passkey, guard } = await passkeySetup();
    const good = await passkeyApproval(passkey);
    const other = await passkeyApproval(passkey);
    const swapped = { ...good, assertion: { ...good.assertion, signature: other.assertion.signature } };
    const wrongOrigin = await passkeyApproval(passkey, { origin: "https://evil.example" });
    const altered = { ...(await passkeyApproval(passkey)), proposed_change: { type: "status_change", from: "todo", to: "deleted" } };
    const hmacSigned = issueConfirmation({ node_id: "hmac-1", proposed_change: { type: "status_change", from: "todo", to: "done" }, intent: "i", reason: "r", ui_action: "approve_button" }, hmac);
    const cases = [
      ["ES256, good", good, options],
      ["ES256, another assertion's signature", swapped, options],
      ["ES256, wrong origin", wrongOrigin, options],
      ["ES256, altered change", altered, options],
      ["ES256, status changed", await passkeyApproval(passkey), { currentStatus: "in_review" }],
      ["HMAC", hmacSigned, options],
      ["no confirmation", null, options],
    ];
    for (const [name, confirmation, checkOptions] of cases) {
      const request = requestFor(confirmation ?? good);
      const fixed = { ...checkOptions, now: Date.now() };
      const asynchronous = await guard.checkAsync(confirmation, request, fixed);
      const synchronous = guard.check(confirmation, request, fixed);
      assert.deepEqual(asynchronous, synchronous, name);
    }
    assert.equal(guard.check(swapped, requestFor(swapped), options).phase, "signature_invalid");
  });

  test("a host that refuses, throws, lacks the algorithm or answers nonsense leaves the decision to the module", async () => {
    const { passkey, guard } = await passkeySetup();
    const hosts = {
      "answers false": () => Promise.resolve(false),
      "answers a truthy non-boolean": () => Promise.resolve("true"),
      "rejects": () => Promise.reject(new DOMException("unsupported", "NotSupportedError")),
      "throws": () => {
        throw new TypeError("no verify here");
      },
      "never answers a valid call with true": (...args) => realVerify.apply(subtle, args).then(() => false),
    };
    for (const [name, answer] of Object.entries(hosts)) {
      const approval = await passkeyApproval(passkey);
      const calls = spyOnVerify(answer);
      assert.deepEqual(await guard.checkAsync(approval, requestFor(approval), options), { verdict: "pass" }, `${name}: the module verifies it`);
      assert.equal(calls.length, 1, name);
      // Well formed, for this approval's challenge, but signed over other bytes: the host is asked, and the
      // module's verifier refuses it.
      const target = await passkeyApproval(passkey);
      const forged = { ...target, assertion: { ...target.assertion, signature: approval.assertion.signature } };
      const verdict = await guard.checkAsync(forged, requestFor(forged), options);
      assert.equal(verdict.phase, "signature_invalid", name);
      assert.equal(calls.length, 2, name);
    }
    subtle.importKey = () => Promise.reject(new DOMException("unsupported", "NotSupportedError"));
    const { guard: fresh, passkey: freshKey } = await passkeySetup();
    const approval = await passkeyApproval(freshKey);
    assert.deepEqual(await fresh.checkAsync(approval, requestFor(approval), options), { verdict: "pass" }, "a key the host cannot import");
  });

  test("decides on the arguments as they were when called: a change made while the host verifies is not seen", async () => {
    const { passkey, guard } = await passkeySetup();
    const approval = await passkeyApproval(passkey);
    const request = requestFor(approval);
    const pending = guard.checkAsync(approval, request, options);
    approval.proposed_change.to = "deleted";
    approval.assertion.client_data_json = "";
    assert.deepEqual(await pending, { verdict: "pass" });
    // The changed object is another approval, which the passkey never signed.
    assert.equal((await guard.checkAsync(approval, requestFor(approval), options)).phase, "signature_invalid");
  });

  test("malformed input rejects the promise with the error check throws", async () => {
    const { guard } = await passkeySetup();
    for (const [confirmation, request, checkOptions] of [
      [undefined, {}, undefined],
      [{}, "request", undefined],
      [null, { confirmation_id: "c", node_id: "n", type: "status_change", to: "done" }, { now: Number.NaN }],
    ]) {
      let thrown;
      try {
        guard.check(confirmation, request, checkOptions);
      } catch (error) {
        thrown = error;
      }
      assert.ok(thrown, "check throws");
      await assert.rejects(guard.checkAsync(confirmation, request, checkOptions), (error) => error.code === thrown.code && error.path === thrown.path && error.message === thrown.message);
    }
  });
});
