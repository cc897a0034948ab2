// The built package imported exactly as a user imports it, in Node 20.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import * as governor from "agent-governor";

import { createHmac, randomUUID } from "node:crypto";

const { Executor, MemoryStore, applyDirectly, canonicalAction, checkConfirmation, issueConfirmation, requestFor, saveConfirmation } = governor;

const signer = { keyId: "approver", secret: "0123456789abcdef0123456789abcdef-approval" };
const keys = { [signer.keyId]: signer.secret };
const draft = {
  node_id: "node-1",
  proposed_change: { type: "status_change", from: "todo", to: "done" },
  intent: "all subtasks closed",
  reason: "checked by a human",
  ui_action: "approve_button",
};

/** A skill over one node whose Apply answers from `answers` (200 when empty), recording every call. */
function fakeSkill(answers = []) {
  const node = { status: "todo" };
  const calls = [];
  return {
    node,
    calls,
    preview: async () => ({ current_status: node.status }),
    apply: async (request) => {
      calls.push(request);
      const answer = answers.shift() ?? { status: 200, body: { applied: true } };
      if (answer.status === 200) node.status = request.confirm_status;
      return answer;
    },
  };
}

/** A human action signed with the HMAC key, made for the confirmation's current version. */
async function signedAction(executor, action, confirmationId, detail = "") {
  const unsigned = { action, approval_id: confirmationId, version: await executor.confirmationVersion(confirmationId), nonce: randomUUID(), detail, at: new Date().toISOString(), key_id: null };
  const signature = createHmac("sha256", signer.secret).update(canonicalAction(unsigned, signer.keyId)).digest("hex");
  return { ...unsigned, key_id: signer.keyId, signature };
}

async function approved(store) {
  const confirmation = issueConfirmation(draft, signer);
  await saveConfirmation(store, confirmation);
  return confirmation;
}

test("the package resolves through its exports map in Node: import and require", async () => {
  assert.match(import.meta.resolve("agent-governor"), /\/dist\/node\.js$/);
  assert.match(import.meta.resolve("agent-governor/guard"), /\/dist\/guard\/node\.js$/);
  const require = createRequire(import.meta.url);
  assert.match(require.resolve("agent-governor"), /\/dist\/node\.cjs$/);
  assert.match(require.resolve("agent-governor/guard"), /\/dist\/guard\/node\.cjs$/);
  for (const name of ["Executor", "MemoryStore", "checkConfirmation", "issueConfirmation", "requestFor", "saveConfirmation"]) {
    assert.equal(typeof governor[name], "function", name);
  }
});

test("approve, execute: applied and consumed; executing again: rejected already_consumed", async () => {
  const store = new MemoryStore();
  const skill = fakeSkill();
  const audit = [];
  const executor = new Executor({ store, skill, keys, audit: (record) => audit.push(record) });
  const confirmation = await approved(store);
  const first = await executor.execute(requestFor(confirmation));
  assert.equal(first.outcome, "applied");
  assert.equal(first.consumed, true);
  assert.deepEqual(first.applied.from_status, "todo");
  assert.equal(skill.calls.length, 1);
  assert.equal(skill.calls[0].source, "ai_agent");
  assert.equal(skill.calls[0].confirmation.signature, confirmation.signature);
  skill.node.status = "todo";
  const second = await executor.execute(requestFor(confirmation));
  assert.equal(second.outcome, "rejected");
  assert.equal(second.rejection.phase, "already_consumed");
  assert.equal(skill.calls.length, 1);
  assert.deepEqual(audit.map((r) => [r.route, r.outcome]), [["executor", "applied"], ["executor", "rejected"]]);
});

test("422 gives reconfirm_required with the skill's transitions and the confirmation stays usable", async () => {
  const store = new MemoryStore();
  const transitions = [{ status: "review", label: "Send to review" }];
  const skill = fakeSkill([{ status: 422, body: { message: "not allowed", valid_transitions: transitions } }]);
  const executor = new Executor({ store, skill, keys });
  const confirmation = await approved(store);
  const result = await executor.execute(requestFor(confirmation));
  assert.equal(result.outcome, "reconfirm_required");
  assert.deepEqual(result.reconfirm.valid_transitions, transitions);
  assert.equal(result.consumed, false);
  assert.equal(result.confirmation_state, "approved");
  assert.equal(skill.calls.length, 1, "never retried with a candidate");
});

test("a cancelled confirmation is rejected, and saving an id twice is refused", async () => {
  const store = new MemoryStore();
  const executor = new Executor({ store, skill: fakeSkill(), keys });
  const confirmation = await approved(store);
  await assert.rejects(saveConfirmation(store, confirmation), { code: "already_exists" });
  const cancel = await signedAction(executor, "cancel", confirmation.confirmation_id);
  const cancelled = await executor.takeAction(cancel);
  assert.equal(cancelled.outcome, "taken");
  assert.equal(cancelled.confirmation.cancelled, true);
  const replayed = await executor.takeAction(cancel);
  assert.equal(replayed.outcome, "rejected");
  assert.equal(replayed.phase, "action_replayed");
  const result = await executor.execute(requestFor(confirmation));
  assert.equal(result.rejection.phase, "cancelled");
  const missing = await executor.takeAction({ ...(await signedAction(executor, "cancel", confirmation.confirmation_id)), approval_id: "missing" });
  assert.equal(missing.phase, "not_found");
});

test("a forged confirmation is rejected signature_invalid before anything else", async () => {
  const store = new MemoryStore();
  const skill = fakeSkill();
  const executor = new Executor({ store, skill, keys });
  const confirmation = issueConfirmation(draft, signer);
  const forged = { ...confirmation, proposed_change: { ...confirmation.proposed_change, to: "deleted" } };
  await saveConfirmation(store, forged);
  const result = await executor.execute(requestFor(forged));
  assert.equal(result.rejection.phase, "signature_invalid");
  assert.equal(skill.calls.length, 0);
});

test("route A: a direct human apply is audited as such", async () => {
  const skill = fakeSkill();
  const audit = [];
  const confirmation = issueConfirmation(draft, signer);
  const { apply_request, result } = await applyDirectly({ skill, audit: (r) => audit.push(r) }, confirmation);
  assert.equal(apply_request.source, "human_ui");
  assert.equal(result.outcome, "applied");
  assert.equal(audit[0].route, "human_ui_direct");
});

test("the pure check is exported and typed errors carry code and path", () => {
  const confirmation = issueConfirmation(draft, signer, Date.parse("2026-01-01T00:00:00Z"));
  const request = requestFor(confirmation);
  const at = (iso) => Date.parse(iso);
  const verdict = (now, current_status) => checkConfirmation({ confirmation, request, now, keys, current_status });
  assert.equal(verdict(at("2026-01-01T12:00:00Z"), "todo").verdict, "pass");
  assert.equal(verdict(at("2026-01-02T00:00:00Z"), "todo").phase, "expired_time");
  assert.equal(verdict(at("2026-01-01T12:00:00Z"), "done").verdict, "reconfirm_required");
  assert.equal(verdict(at("2026-01-01T12:00:00Z")).verdict, "pending_precondition");
  assert.throws(() => checkConfirmation({ confirmation, request: { confirmation_id: 1 }, now: 0, keys }), (error) => {
    assert.equal(error.code, "invalid_input");
    assert.equal(error.path, "request.confirmation_id");
    return true;
  });
  assert.throws(() => new Executor({ store: new MemoryStore(), skill: {}, keys }), { code: "invalid_port", path: "skill.preview" });
});

test("bad input of any shape is a typed error, never a trap", async () => {
  const executor = new Executor({ store: new MemoryStore(), skill: fakeSkill(), keys });
  const cyclic = {};
  cyclic.self = cyclic;
  const shapes = [undefined, null, 0, "text", [], cyclic, { confirmation_id: 1n }, { confirmation_id: "x".repeat(3_000_000) }];
  for (const shape of shapes) {
    await assert.rejects(executor.execute(shape), (error) => error.code === "invalid_input");
  }
  const random = new Uint8Array(4096);
  for (let round = 0; round < 50; round++) {
    crypto.getRandomValues(random);
    const text = Buffer.from(random).toString("latin1");
    assert.throws(() => checkConfirmation(text), { code: "invalid_input" });
  }
  const store = new MemoryStore();
  const confirmation = await approved(store);
  assert.equal((await new Executor({ store, skill: fakeSkill(), keys }).execute(requestFor(confirmation))).outcome, "applied");
});

test("an Apply with an unknown fate stays in_flight until a human reconciles it", async () => {
  const store = new MemoryStore();
  const skill = fakeSkill();
  skill.apply = async () => {
    throw new Error("connection reset");
  };
  const executor = new Executor({ store, skill, keys });
  const confirmation = await approved(store);
  const first = await executor.execute(requestFor(confirmation));
  assert.equal(first.confirmation_state, "in_flight");
  const blocked = await executor.execute(requestFor(confirmation));
  assert.equal(blocked.rejection.phase, "in_flight");
  const settled = await executor.takeAction(await signedAction(executor, "reconcile_not_applied", confirmation.confirmation_id, "the node did not change"));
  assert.equal(settled.outcome, "taken");
  assert.equal(settled.confirmation.in_flight_at, null);
  assert.equal(settled.confirmation.cancelled, true, "closed: doing it again is a new approval");
  const late = await executor.takeAction(await signedAction(executor, "reconcile_applied", confirmation.confirmation_id));
  assert.equal(late.phase, "not_in_flight");
  const working = fakeSkill();
  const retried = await new Executor({ store, skill: working, keys }).execute(requestFor(confirmation));
  assert.equal(retried.outcome, "rejected", "a person's 'not applied' never re-arms the approval");
  const again = await approved(store);
  assert.equal((await new Executor({ store, skill: working, keys }).execute(requestFor(again))).outcome, "applied", "a new approval runs");
});
