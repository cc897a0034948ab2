// `agent-governor/approver` signs with no WebAssembly, so it writes the canonical bytes itself: they must be
// the core's, byte for byte, for every value the core accepts (else a person's signature would not verify),
// and a value the core refuses must not be signed as something else.
import assert from "node:assert/strict";
import { test } from "node:test";
import { actionBytes, confirmationBytes, receiptBytes } from "../../dist/approver/canonical.js";
import { passkeyActionChallenge, passkeyChallenge } from "agent-governor/approver";
import { actionChallenge, canonicalAction, canonicalConfirmation, canonicalReceipt, confirmationChallenge } from "agent-governor/guard";
import { xorshift } from "./support/xorshift.mjs";

function generator(seed) {
  const { next, pick } = xorshift(seed);
  const PIECES = [
    "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u0001", "\u001f", "\u007f",
    "\u0080", "\u00e9", "\u2028", "\u2029", "\u202e", "\u200b", "\ufeff", "日本語", "😀", "\ud83d\udc4d", "<", ">", "&",
    "'", "`", "${x}", "\u00a0", "\u3000", "{", "]", ",", ":", "null", "true", "-1e9",
  ];
  const text = (max = 24) => {
    let out = "";
    const length = Math.floor(next() * max);
    for (let i = 0; i < length; i++) out += pick(PIECES);
    return out;
  };
  const nonEmpty = () => `x${text()}`;
  return { next, pick, text, nonEmpty };
}

function confirmationOf(r) {
  const confirmation = {
    confirmation_id: r.nonEmpty(),
    node_id: r.nonEmpty(),
    proposed_change: { type: r.nonEmpty(), from: r.text(), to: r.nonEmpty() },
    intent: r.text(),
    reason: r.text(64),
    confirmed_by: "human",
    confirmed_at: r.pick(["2026-11-25T04:00:00.000Z", "2026-11-25T13:00:00+09:00", "2026-11-25 04:00:00Z"]),
    ui_action: r.text(),
    key_id: null,
    signature: null,
    consumed: false,
    consumed_at: null,
    cancelled: false,
    in_flight_at: null,
    invalidated_at: null,
  };
  if (r.next() < 0.5) confirmation.audience = r.nonEmpty();
  // An action id has no control character (the core refuses one): the rest of the pieces, as generated.
  if (r.next() < 0.5) confirmation.action_id = r.nonEmpty().replace(/\p{Cc}/gu, "");
  return confirmation;
}

function actionOf(r) {
  return {
    action: r.pick(["decline", "cancel", "reconcile_applied", "reconcile_not_applied", "add_key", "revoke_key", "rename_key", "command"]),
    approval_id: r.nonEmpty(),
    detail: r.text(64),
    at: "2026-11-25T04:00:00.000Z",
    nonce: "n".repeat(16) + Math.floor(r.next() * 1e9),
    version: `v${Math.floor(r.next() * 1e6)}`,
    key_id: null,
  };
}

function receiptOf(r) {
  const receipt = {
    seq: Math.floor(r.next() * 2 ** 40),
    approval_id: r.nonEmpty(),
    change_digest: r.text(),
    approver: r.text(),
    outcome: r.pick(["applied", "rejected", "failed"]),
    at: "2026-11-25T04:00:00.000Z",
    prev: r.next() < 0.3 ? null : r.text(),
    key_id: r.nonEmpty(),
    signature: "",
  };
  return receipt;
}

const CASES = 600;

test("confirmation bytes and passkey challenges equal the core's for generated confirmations and key ids", async () => {
  const r = generator(20261125);
  for (let i = 0; i < CASES; i++) {
    const confirmation = confirmationOf(r);
    const keyId = r.nonEmpty();
    const core = canonicalConfirmation(confirmation, keyId);
    assert.deepEqual(confirmationBytes(confirmation, keyId), core, `case ${i}: ${JSON.stringify(confirmation)}`);
    if (i % 20 === 0) assert.deepEqual(await passkeyChallenge(confirmation, keyId), confirmationChallenge(confirmation, keyId));
  }
});

test("human action bytes and passkey challenges equal the core's for every kind", async () => {
  const r = generator(7);
  for (let i = 0; i < CASES; i++) {
    const action = actionOf(r);
    if (r.next() < 0.2) delete action.detail;
    const keyId = r.nonEmpty();
    assert.deepEqual(actionBytes(action, keyId), canonicalAction(action, keyId), `case ${i}: ${JSON.stringify(action)}`);
    if (i % 20 === 0) assert.deepEqual(await passkeyActionChallenge(action, keyId), actionChallenge(action, keyId));
  }
});

test("receipt bytes equal the core's, whole sequence numbers up to 2^53 - 1 included", () => {
  const r = generator(99);
  for (let i = 0; i < CASES; i++) {
    const receipt = receiptOf(r);
    if (i === 0) receipt.seq = Number.MAX_SAFE_INTEGER;
    if (i === 1) receipt.seq = 0;
    assert.deepEqual(receiptBytes(receipt), canonicalReceipt(receipt), `case ${i}: ${JSON.stringify(receipt)}`);
  }
});

test("what the core refuses is refused here with a typed error, never encoded differently", () => {
  const r = generator(3);
  const refusals = [
    ["a lone surrogate", (c) => (c.reason = "a\ud800b"), "confirmation.reason"],
    ["a missing intent", (c) => delete c.intent, "confirmation.intent"],
    ["a number for a string", (c) => (c.proposed_change.to = 5), "confirmation.proposed_change.to"],
    ["an empty node id", (c) => (c.node_id = "  "), "confirmation.node_id"],
    ["a node id of white space only (U+0085, U+3000)", (c) => (c.node_id = "\u0085\u3000"), "confirmation.node_id"],
    ["an agent's confirmation", (c) => (c.confirmed_by = "agent"), "confirmation.confirmed_by"],
    ["an empty audience", (c) => (c.audience = ""), "confirmation.audience"],
    ["an empty action id", (c) => (c.action_id = " "), "confirmation.action_id"],
    ["an action id with a control character", (c) => (c.action_id = "tool-call/a\u0007b"), "confirmation.action_id"],
    ["an action id over 512 characters", (c) => (c.action_id = "a".repeat(513)), "confirmation.action_id"],
    ["an empty confirmation id", (c) => (c.confirmation_id = ""), "confirmation.confirmation_id"],
    ["a time without an offset", (c) => (c.confirmed_at = "2026-11-23T20:52:05"), "confirmation.confirmed_at"],
    ["a lower-case separator", (c) => (c.confirmed_at = "2026-11-23t20:52:05Z"), "confirmation.confirmed_at"],
    ["a date that does not exist", (c) => (c.confirmed_at = "2026-02-30T00:00:00Z"), "confirmation.confirmed_at"],
    ["an unknown field", (c) => (c.approved = true), "confirmation.approved"],
    ["an unknown field in the change", (c) => (c.proposed_change.extra = "x"), "confirmation.proposed_change.extra"],
    ["a number for the key id", (c) => (c.key_id = 5), "confirmation.key_id"],
    ["a string for a flag", (c) => (c.consumed = "yes"), "confirmation.consumed"],
  ];
  for (const [what, spoil, path] of refusals) {
    const confirmation = confirmationOf(r);
    spoil(confirmation);
    assert.throws(() => canonicalConfirmation(confirmation, "k"), (error) => error.code === "invalid_input", `the core refuses ${what}`);
    assert.throws(() => confirmationBytes(confirmation, "k"), (error) => error.name === "AgentGovernorError" && error.code === "invalid_input" && error.path === path, what);
  }
  const actionRefusals = [
    ["a nonce too short", (a) => (a.nonce = "short"), "action.nonce"],
    ["a nonce with a space", (a) => (a.nonce = "n".repeat(15) + " x"), "action.nonce"],
    ["a version over 128 characters", (a) => (a.version = "v".repeat(129)), "action.version"],
    ["an unknown field", (a) => (a.extra = 1), "action.extra"],
    ["a time that is not RFC 3339", (a) => (a.at = "yesterday"), "action.at"],
  ];
  for (const [what, spoil, path] of actionRefusals) {
    const action = actionOf(r);
    spoil(action);
    assert.throws(() => canonicalAction(action, "k"), (error) => error.code === "invalid_input", `the core refuses ${what}`);
    assert.throws(() => actionBytes(action, "k"), (error) => error.code === "invalid_input" && error.path === path, what);
  }
  // Only JSON data is signed: a Date is refused here as the core refuses it (never its ISO text, silently).
  const dated = { ...confirmationOf(r), confirmed_at: new Date("2026-11-25T04:00:00.000Z") };
  assert.throws(() => canonicalConfirmation(dated, "k"), (error) => error.code === "invalid_input" && error.path === "confirmation.confirmed_at");
  assert.throws(() => confirmationBytes(dated, "k"), (error) => error.code === "invalid_input" && error.path === "confirmation.confirmed_at");
  // U+FEFF is not white space to the core: a node id of it alone is encoded, as the core encodes it.
  const bom = { ...confirmationOf(r), node_id: "\ufeff" };
  assert.deepEqual(confirmationBytes(bom, "k"), canonicalConfirmation(bom, "k"));
  assert.throws(() => actionBytes({ ...actionOf(r), action: "approve" }, "k"), (error) => error.path === "action.action");
  assert.throws(() => receiptBytes({ ...receiptOf(r), seq: 2 ** 53 }), (error) => error.path === "receipt.seq");
  assert.throws(() => confirmationBytes(confirmationOf(r), ""), (error) => error.path === "keyId");
});
