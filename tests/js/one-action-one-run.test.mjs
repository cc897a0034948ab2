// One action, one run, through the built package: however many signed confirmations approve one tool call
// (two signatures of one draft, a double click, a restored state approved again, a hundred at once), the tool
// runs once and every other answer carries the first run; the tool gets the same idempotency key on every
// attempt; a call that provably never left leaves its approval usable; a person's "not applied" is refused
// while the Apply still runs and never re-arms the call.
import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { test } from "node:test";
import { MemoryStore, canonicalAction, changeDigest, governToolCalls, issueConfirmation, notSent, ranOf, refusalOf, toolCallActionId } from "agent-governor";

const signer = { keyId: "approver", secret: "0123456789abcdef0123456789abcdef-one-action" };
const keys = { [signer.keyId]: signer.secret };
const call = { tool: "send_email", arguments: { to: "bob@example.com", subject: "Q3 report" }, callId: "call_1" };

function harness(options = {}) {
  const sent = [];
  const actions = [];
  const store = options.store ?? new MemoryStore();
  const tools = {
    send_email: async (args, _context, action) => {
      actions.push(action);
      if (options.slow) await options.slow;
      sent.push(args);
      return { sent: sent.length, to: args.to };
    },
    unreachable: async () => {
      throw notSent(new Error("connect ECONNREFUSED 127.0.0.1:9"));
    },
  };
  const governed = governToolCalls(tools, { store, keys, keepOutputs: options.keepOutputs ?? true });
  return { governed, sent, actions, store };
}

const sign = (governed, given = call) => issueConfirmation(governed.draft(given), signer);

async function signedAction(executor, action, confirmationId, detail = "") {
  const unsigned = { action, approval_id: confirmationId, version: await executor.confirmationVersion(confirmationId), nonce: randomUUID(), detail, at: new Date().toISOString(), key_id: null };
  const signature = createHmac("sha256", signer.secret).update(canonicalAction(unsigned, signer.keyId)).digest("hex");
  return { ...unsigned, key_id: signer.keyId, signature };
}

test("the draft names the call's action, and a signature binds it", () => {
  const { governed } = harness();
  const draft = governed.draft(call);
  const digest = changeDigest(draft.node_id, draft.proposed_change);
  assert.equal(draft.action_id, `tool-call/send_email/call_1/${digest}`);
  assert.equal(draft.action_id, toolCallActionId("send_email", "call_1", digest));
  const confirmation = sign(governed);
  assert.equal(confirmation.action_id, draft.action_id);
  assert.equal(governed.check(call, confirmation).verdict, "pass");
  // The same signature with another action, or none, is not the person's.
  for (const action_id of [`tool-call/send_email/call_2/${digest}`, undefined]) {
    const relabelled = { ...confirmation, action_id };
    assert.equal(governed.check(call, relabelled).verdict, "rejected");
  }
  // A confirmation signed for the call's draft without its action does not run it (the Executor's step 5).
  const { action_id: _, ...withoutAction } = draft;
  const unnamed = issueConfirmation(withoutAction, signer);
  assert.equal(governed.check(call, unnamed).phase, "change_mismatch");
});

test("two signatures of one call run the tool once; the second answer is the first run's output", async () => {
  const { governed, sent } = harness();
  const first = await governed.runWith(call, sign(governed));
  assert.equal(first.outcome, "applied");
  const second = await governed.runWith(call, sign(governed));
  assert.equal(second.outcome, "applied");
  assert.equal(second.repeated, true);
  assert.deepEqual(second.output, first.output);
  assert.equal(second.result.rejection.phase, "action_already_ran");
  assert.equal(second.result.first_run.confirmation_id, first.result.confirmation_id);
  assert.equal(sent.length, 1, "the tool ran once");
  // approve + runApproved with a third signature: the same.
  await governed.approve(call, sign(governed));
  const third = await governed.runApproved(call);
  assert.equal(third.repeated, true);
  assert.equal(sent.length, 1);
});

test("without kept outputs, the second answer is a typed action_already_ran carrying the first run", async () => {
  const { governed, sent } = harness({ keepOutputs: false });
  const first = await governed.runWith(call, sign(governed));
  const second = await governed.runWith(call, sign(governed));
  assert.equal(second.outcome, "rejected");
  assert.equal(second.result.first_run.state, "applied");
  assert.equal(ranOf(second.result), "ran");
  const refusal = refusalOf(call, second);
  assert.equal(refusal.code, "action_already_ran");
  assert.equal(refusal.ran, "ran");
  assert.match(refusal.message, new RegExp(`already ran at .* approved by confirmation ${first.result.confirmation_id}`));
  assert.equal(sent.length, 1);
  // Replaying the first confirmation itself is the same fact: it ran, never "did not run".
  const replay = await governed.run(call, first.result.confirmation_id);
  assert.equal(refusalOf(call, replay).code, "action_already_ran");
});

test("a hundred concurrent runs with distinct signatures of one call run it once", async () => {
  let release;
  const slow = new Promise((resolve) => (release = resolve));
  const { governed, sent } = harness({ slow });
  const runs = Array.from({ length: 100 }, (_, index) => (index % 2 ? governed.runWith(call, sign(governed)) : governed.approve(call, sign(governed)).then(() => governed.runApproved(call))));
  setTimeout(release, 50);
  const outcomes = await Promise.all(runs);
  assert.equal(sent.length, 1, "the tool ran once");
  const fresh = outcomes.filter((outcome) => outcome.outcome === "applied" && !outcome.repeated);
  assert.equal(fresh.length, 1);
  for (const outcome of outcomes.filter((o) => o !== fresh[0])) {
    if (outcome.outcome === "applied") assert.equal(outcome.repeated, true);
    else assert.ok(["action_in_flight", "action_already_ran"].includes(refusalOf(call, outcome).code), JSON.stringify(outcome.result.rejection));
  }
});

test("the tool gets the call's action and the same idempotency key on every attempt", async () => {
  const { governed, actions } = harness();
  const unreached = harness();
  // The same call governed in two processes (two stores): the same key.
  await governed.runWith(call, sign(governed));
  await unreached.governed.runWith(call, sign(unreached.governed));
  assert.equal(actions.length, 1);
  assert.match(actions[0].actionId, /^tool-call\/send_email\/call_1\/[0-9a-f]{64}$/);
  assert.match(actions[0].idempotencyKey, /^[0-9a-f]{64}$/);
  assert.equal(unreached.actions[0].idempotencyKey, actions[0].idempotencyKey, "the same call has the same key in any process");
  const other = harness();
  await other.governed.runWith({ ...call, callId: "call_2" }, sign(other.governed, { ...call, callId: "call_2" }));
  assert.notEqual(other.actions[0].idempotencyKey, actions[0].idempotencyKey);
});

test("a call that provably never left is not run, and its approval stays usable", async () => {
  const { governed } = harness();
  const unreachable = { tool: "unreachable", arguments: {}, callId: "call_9" };
  const confirmation = sign(governed, unreachable);
  const outcome = await governed.runWith(unreachable, confirmation);
  assert.equal(outcome.outcome, "error");
  assert.equal(outcome.result.confirmation_state, "approved");
  assert.equal(ranOf(outcome.result), "not_run");
  assert.equal(refusalOf(unreachable, outcome).code, "not_approved");
  // Another approval of the same call is not blocked by it.
  assert.equal((await governed.runWith(unreachable, sign(governed, unreachable))).result.confirmation_state, "approved");
});

test("a person's 'not applied' while the Apply still runs is refused; the call runs once", async () => {
  let started;
  const inTool = new Promise((resolve) => (started = resolve));
  let release;
  const slow = new Promise((resolve) => (release = resolve));
  const sent = [];
  const governed = governToolCalls(
    {
      send_email: async (args) => {
        started();
        await slow;
        sent.push(args);
        return "sent";
      },
    },
    { store: new MemoryStore(), keys },
  );
  const confirmation = sign(governed);
  const running = governed.runWith(call, confirmation);
  await inTool;
  const early = await governed.executor.takeAction(await signedAction(governed.executor, "reconcile_not_applied", confirmation.confirmation_id, "looks unchanged"));
  assert.equal(early.outcome, "rejected");
  assert.equal(early.phase, "apply_running");
  release();
  assert.equal((await running).outcome, "applied");
  // Nothing re-armed it: another signature does not run it again.
  assert.equal((await governed.runWith(call, sign(governed))).result.rejection.phase, "action_already_ran");
  assert.equal(sent.length, 1);
});

test("after 'not applied', neither the same approval nor a new signature of the call runs it", async () => {
  let fail = true;
  const store = new MemoryStore();
  const governed = governToolCalls({ send_email: async () => { if (fail) throw new Error("socket hang up"); return "sent"; } }, { store, keys });
  const confirmation = sign(governed);
  const unknown = await governed.runWith(call, confirmation);
  assert.equal(refusalOf(call, unknown).code, "outcome_unknown");
  fail = false;
  const settled = await governed.executor.takeAction(await signedAction(governed.executor, "reconcile_not_applied", confirmation.confirmation_id, "the mail server has no record"));
  assert.equal(settled.outcome, "taken");
  assert.equal(settled.confirmation.cancelled, true);
  const again = await governed.run(call, confirmation.confirmation_id);
  assert.equal(again.outcome, "rejected");
  const resigned = await governed.runWith(call, sign(governed));
  assert.equal(resigned.result.rejection.phase, "action_already_ran");
  assert.equal(resigned.result.first_run.state, "reconciled_not_applied");
  assert.equal(ranOf(resigned.result), "not_run");
  // Doing the same again is a new action: a new call id.
  assert.equal((await governed.runWith({ ...call, callId: "call_1b" }, sign(governed, { ...call, callId: "call_1b" }))).outcome, "applied");
});
