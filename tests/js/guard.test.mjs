// `agent-governor/guard`, the guard-only module, in every host: Node (the package's subpath export), workerd
// (a worker that imports only the guard) and Chromium (the browser entry). Its `Guard` must give exactly the
// verdicts of `checkConfirmation` from the full module.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as full from "agent-governor";
import * as guardModule from "agent-governor/guard";
import { startServer } from "../../examples/serve.mjs";
import { launchChromium, startEdgeWorker } from "./helpers.mjs";

const { Guard, Executor, MemoryStore, issueConfirmation, requestFor, saveConfirmation } = guardModule;

const signer = { keyId: "approver", secret: "0123456789abcdef0123456789abcdef-approval" };
const keys = { [signer.keyId]: signer.secret };
const draft = {
  node_id: "node-1",
  proposed_change: { type: "status_change", from: "todo", to: "done" },
  intent: "all subtasks closed",
  reason: "checked by a human",
  ui_action: "approve_button",
};
const HOUR = 3_600_000;

/** Every verdict the check can give: each rejection phase, reconfirm, pending and pass. */
function verdictCases() {
  const now = Date.now();
  const confirmation = issueConfirmation(draft, signer, now);
  const request = requestFor(confirmation);
  const otherKey = issueConfirmation(draft, { keyId: "someone-else", secret: "x".repeat(40) }, now);
  return [
    ["pass", confirmation, request, { now, currentStatus: "todo" }],
    ["pending precondition", confirmation, request, { now }],
    ["reconfirm required", confirmation, request, { now, currentStatus: "in_review" }],
    ["not found (no confirmation)", null, request, { now }],
    ["not found (another id)", confirmation, { ...request, confirmation_id: "another" }, { now }],
    ["signature: altered change", { ...confirmation, proposed_change: { ...confirmation.proposed_change, to: "deleted" } }, request, { now }],
    ["signature: unknown key", otherKey, requestFor(otherKey), { now }],
    ["signature: unsigned", { ...confirmation, signature: null }, request, { now }],
    ["already consumed", { ...confirmation, consumed: true, consumed_at: "2026-01-01T00:00:00Z" }, request, { now }],
    ["in flight", { ...confirmation, in_flight_at: "2026-01-01T00:00:00Z" }, request, { now }],
    ["not yet valid", confirmation, request, { now: now - HOUR }],
    ["expired", confirmation, request, { now: now + 24 * HOUR }],
    ["cancelled", { ...confirmation, cancelled: true }, request, { now }],
    ["invalidated", { ...confirmation, invalidated_at: "2026-01-01T00:00:00Z" }, request, { now }],
    ["node mismatch", confirmation, { ...request, apply_request: { ...request.apply_request, node_id: "node-2" } }, { now }],
    ["change mismatch", confirmation, { ...request, apply_request: { ...request.apply_request, confirm_status: "archived" } }, { now }],
  ];
}

describe("the guard module in Node", () => {
  test("exports the guard API and none of the model-facing components", () => {
    const expected = [
      "Executor", "Guard", "MemoryStore", "applyDirectly", "checkConfirmation", "issueConfirmation", "requestFor",
      "saveConfirmation", "parseTime", "formatTime", "readJson", "stateVersion", "changeLines", "verifyReceipts", "signReceipt",
    ];
    for (const name of expected) assert.equal(typeof guardModule[name], "function", `${name} is exported`);
    // A human's transitions are signed actions (Executor.takeAction), never unsigned calls on a store.
    for (const name of ["cancelConfirmation", "reconcileConfirmation"]) assert.equal(name in guardModule, false, `${name} is gone`);
    for (const name of ["Closer", "Watcher", "createGovernor", "openAICompatible", "parseCloserAnswer"]) {
      if (name in full) assert.equal(name in guardModule, false, `${name} is not in the guard module`);
    }
  });

  for (const language of ["en", "ja"]) {
    test(`Guard.check gives checkConfirmation's verdict in every case (${language})`, () => {
      const guard = new Guard({ keys, language });
      for (const [name, confirmation, request, options] of verdictCases()) {
        const expected = full.checkConfirmation({
          confirmation, request, keys, now: options.now, current_status: options.currentStatus, language,
        });
        assert.deepEqual(guard.check(confirmation, request, options), expected, name);
        assert.deepEqual(guardModule.checkConfirmation({
          confirmation, request, keys, now: options.now, current_status: options.currentStatus, language,
        }), expected, `${name} (the guard module's checkConfirmation)`);
      }
    });
  }

  test("Guard.check returns a plain result with only the verdict's fields", () => {
    const guard = new Guard({ keys });
    const [, confirmation, request] = verdictCases()[0];
    assert.deepEqual(guard.check(confirmation, request, { currentStatus: "todo" }), { verdict: "pass" });
    const rejected = guard.check(confirmation, { ...request, confirmation_id: "x" });
    assert.deepEqual(Object.keys(rejected), ["verdict", "phase", "reason"]);
  });

  test("bad setup and options are typed errors naming the field, never a pass", () => {
    const [, confirmation, request] = verdictCases()[0];
    const cases = [
      [() => new Guard(), ""],
      [() => new Guard({}), "keys"],
      [() => new Guard({ keys: { short: "too short" } }), "keys.short"],
      [() => new Guard({ keys, clockSkewMs: -1 }), "clockSkewMs"],
      [() => new Guard({ keys, language: "fr" }), "language"],
      [() => new Guard({ keys, clockskewms: 10 }), "setup.clockskewms"],
      [() => new Guard({ keys }).check(confirmation, request, { currentstatus: "todo" }), "options.currentstatus"],
      [() => new Guard({ keys }).check(confirmation, request, { now: "now" }), "options.now"],
      [() => new Guard({ keys }).check(confirmation, request, { currentStatus: 5 }), "options.currentStatus"],
      [() => new Guard({ keys }).check(confirmation, request, []), "options"],
      [() => new Guard({ keys }).check(undefined, request), "confirmation"],
      [() => new Guard({ keys }).check(confirmation, { ...request, confirmation_id: 5 }), "request.confirmation_id"],
      [() => new Guard({ keys }).check({ ...confirmation, consumed: "false" }, request), "confirmation.consumed"],
      [() => new Guard({ keys }).check([confirmation], request), "confirmation"],
    ];
    for (const [call, path] of cases) {
      assert.throws(call, (error) => error.name === "AgentGovernorError" && typeof error.code === "string" && error.path === path,
        `expected a coded error at "${path}"`);
    }
  });

  test("the guard module's Executor applies an approval exactly once", async () => {
    const store = new MemoryStore();
    const node = { status: "todo", applies: 0 };
    const executor = new Executor({
      store,
      keys,
      skill: {
        preview: () => ({ current_status: node.status }),
        apply: (request) => {
          node.applies += 1;
          node.status = request.confirm_status;
          return { status: 200, body: { applied: true } };
        },
      },
    });
    const confirmation = issueConfirmation(draft, signer);
    await saveConfirmation(store, confirmation);
    const request = requestFor(confirmation);
    const [first, second] = [await executor.execute(request), await executor.execute(request)];
    assert.equal(first.outcome, "applied");
    assert.equal(second.rejection.phase, "already_consumed");
    assert.equal(node.applies, 1);
  });
});

describe("the guard module in workerd", () => {
  let worker;
  before(async () => {
    worker = await startEdgeWorker({}, { dir: "edge/guard" });
  });
  after(() => worker?.stop());

  const signerFromWorker = { keyId: "edge-demo", secret: "edge-demo-secret-0123456789abcdef-0123456789" };
  const post = (body) => fetch(`${worker.url}/check`, { method: "POST", body: JSON.stringify(body) });

  test("a guard-only worker passes a valid approval and rejects an altered one", async () => {
    const confirmation = issueConfirmation(draft, signerFromWorker);
    const request = requestFor(confirmation);
    const pass = await post({ confirmation, request, current_status: "todo" });
    assert.equal(pass.status, 200, worker.output());
    assert.deepEqual(await pass.json(), { verdict: "pass" });
    const altered = await (await post({ confirmation: { ...confirmation, node_id: "node-2" }, request })).json();
    assert.deepEqual([altered.verdict, altered.phase], ["rejected", "signature_invalid"]);
  });

  test("malformed input is a typed 400", async () => {
    const response = await post({ confirmation: null, request: { confirmation_id: 5 } });
    assert.equal(response.status, 400);
    const error = await response.json();
    assert.deepEqual([error.code, error.path], ["invalid_input", "request.confirmation_id"]);
  });
});

describe("the guard module in Chromium", () => {
  let server;
  let browser;
  before(async () => {
    server = await startServer(0);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  test("the browser entry loads the guard module and Guard.check decides", async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const verdicts = await page.evaluate(async ([draft, signer]) => {
      const { Guard, issueConfirmation, requestFor } = await import("/pkg/guard/index.js");
      const guard = new Guard({ keys: { [signer.keyId]: signer.secret } });
      const confirmation = issueConfirmation(draft, signer);
      const request = requestFor(confirmation);
      return [
        guard.check(confirmation, request, { currentStatus: "todo" }).verdict,
        guard.check({ ...confirmation, consumed: true }, request).phase,
      ];
    }, [draft, signer]);
    assert.deepEqual(verdicts, ["pass", "already_consumed"]);
  });

  test("Guard.checkAsync asks the browser's WebCrypto to verify a passkey's ES256 signature", async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const seen = await page.evaluate(async ([draft, signer]) => {
      const { Guard, issueConfirmation, requestFor, base64url, confirmationChallenge } = await import("/pkg/guard/index.js");
      // A software authenticator: what navigator.credentials.get returns for the approval's challenge.
      const subtle = crypto.subtle;
      const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
      const keys = { pk: { type: "webauthn", algorithm: -7, public_key: base64url(new Uint8Array(await subtle.exportKey("spki", pair.publicKey))), rp_id: location.hostname, origins: [location.origin] } };
      const unsigned = { ...issueConfirmation(draft, signer), key_id: "pk", signature: null };
      const clientData = new TextEncoder().encode(JSON.stringify({ type: "webauthn.get", challenge: base64url(confirmationChallenge(unsigned, "pk")), origin: location.origin }));
      const authenticatorData = new Uint8Array(37);
      authenticatorData.set(new Uint8Array(await subtle.digest("SHA-256", new TextEncoder().encode(location.hostname))));
      authenticatorData[32] = 0x05;
      const signed = new Uint8Array([...authenticatorData, ...new Uint8Array(await subtle.digest("SHA-256", clientData))]);
      const raw = new Uint8Array(await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, signed));
      const integer = (bytes) => {
        let start = 0;
        while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
        const trimmed = bytes.slice(start);
        return trimmed[0] & 0x80 ? [0x02, trimmed.length + 1, 0, ...trimmed] : [0x02, trimmed.length, ...trimmed];
      };
      const r = integer(raw.slice(0, 32));
      const s = integer(raw.slice(32));
      const der = new Uint8Array([0x30, r.length + s.length, ...r, ...s]);
      const approval = { ...unsigned, assertion: { authenticator_data: base64url(authenticatorData), client_data_json: base64url(clientData), signature: base64url(der) } };
      const guard = new Guard({ keys });
      const calls = [];
      const verify = subtle.verify;
      subtle.verify = (...args) => {
        calls.push(args[0]);
        return verify.apply(subtle, args);
      };
      const verdict = await guard.checkAsync(approval, requestFor(approval), { currentStatus: "todo" });
      subtle.verify = verify;
      return { verdict: verdict.verdict, calls };
    }, [draft, signer]);
    assert.equal(seen.verdict, "pass");
    assert.deepEqual(seen.calls, [{ name: "ECDSA", hash: "SHA-256" }]);
  });
});

test("a key whose value is undefined (an unset environment variable) is named, not taken for no key at all", () => {
  for (const [label, module] of [["guard", guardModule], ["full", full]]) {
    assert.throws(
      () => new module.Guard({ keys: { "approver-2026": undefined, other: "0123456789abcdef0123456789abcdef" } }),
      (error) => error.code === "invalid_input" && error.path === "keys.approver-2026" && /undefined/.test(error.message),
      label,
    );
  }
});
