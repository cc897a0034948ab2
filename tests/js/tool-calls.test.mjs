// governToolCalls, the base of every framework adapter: an unapproved call never runs; an approved call runs
// once with exactly the approved arguments; altered arguments, another call's approval, a replay, an expired
// approval and a restart are refused as the Executor refuses them; a tool that throws leaves its call in flight.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStore, governToolCalls, issueConfirmation, saveConfirmation } from "agent-governor";

const signer = { keyId: "approver", secret: "0123456789abcdef0123456789abcdef-tool-calls" };
const keys = { [signer.keyId]: signer.secret };

function harness({ store = new MemoryStore(), now } = {}) {
  const sent = [];
  const tools = {
    send_email: async (args) => {
      sent.push(args);
      return { sent: true, to: args.to };
    },
    get_weather: async ({ city }) => ({ city, sky: "clear" }),
    flaky: async () => {
      throw new Error("connection reset after the request was sent");
    },
  };
  const governed = governToolCalls(tools, { store, keys, whitelist: ["get_weather"], ...(now ? { now } : {}) });
  return { governed, sent, store };
}

async function approve(store, governed, call, at = Date.now()) {
  const confirmation = issueConfirmation(governed.draft(call), signer, at);
  await saveConfirmation(store, confirmation);
  return confirmation.confirmation_id;
}

const call = { tool: "send_email", arguments: { to: "bob@example.com", subject: "Q3 report" }, callId: "call-1" };

test("a whitelisted tool runs with no approval; any other never runs without one", async () => {
  const { governed, sent } = harness();
  assert.deepEqual(await governed.run({ tool: "get_weather", arguments: { city: "Kyoto" }, callId: "c" }), { outcome: "applied", output: { city: "Kyoto", sky: "clear" }, approved: false });
  await assert.rejects(governed.run(call), { code: "approval_required" });
  const unknown = await governed.run(call, "no-such-confirmation");
  assert.equal(unknown.outcome, "rejected");
  assert.equal(unknown.result.rejection.phase, "not_found");
  assert.deepEqual(sent, []);
});

test("an approved call runs once, with exactly the approved arguments; a replay and a restart are refused", async () => {
  const { governed, sent, store } = harness();
  const id = await approve(store, governed, call);
  const first = await governed.run({ ...call, arguments: { subject: "Q3 report", to: "bob@example.com" } }, id);
  assert.equal(first.outcome, "applied");
  assert.deepEqual(first.output, { sent: true, to: "bob@example.com" });
  assert.deepEqual(sent, [{ subject: "Q3 report", to: "bob@example.com" }]);
  const replay = await governed.run(call, id);
  assert.equal(replay.result.rejection.phase, "already_consumed");
  const restarted = governToolCalls({ send_email: async (args) => sent.push(args) }, { store, keys });
  assert.equal((await restarted.run(call, id)).result.rejection.phase, "already_consumed");
  assert.equal(sent.length, 1);
});

test("altered arguments, another tool, another call's approval and an expired approval run nothing", async () => {
  const { governed, sent, store } = harness();
  const id = await approve(store, governed, call);
  const refused = async (attempt) => (await governed.run(attempt, id)).result.rejection.phase;
  assert.equal(await refused({ ...call, arguments: { ...call.arguments, to: "eve@example.com" } }), "change_mismatch");
  assert.equal(await refused({ ...call, arguments: { ...call.arguments, bcc: "eve@example.com" } }), "change_mismatch");
  assert.equal(await refused({ ...call, callId: "call-2" }), "change_mismatch");
  assert.equal(await refused({ ...call, tool: "flaky", arguments: call.arguments }), "node_mismatch");
  const old = await approve(store, governed, { ...call, callId: "call-3" }, Date.now() - 25 * 3600 * 1000);
  assert.equal((await governed.run({ ...call, callId: "call-3" }, old)).result.rejection.phase, "expired_time");
  assert.deepEqual(sent, []);
  // Still usable for the call it approved.
  assert.equal((await governed.run(call, id)).outcome, "applied");
});

test("a tool that throws leaves its call in flight, never run again by itself", async () => {
  const { governed, store } = harness();
  const flaky = { tool: "flaky", arguments: {}, callId: "call-9" };
  const id = await approve(store, governed, flaky);
  const first = await governed.run(flaky, id);
  assert.notEqual(first.outcome, "applied");
  assert.equal(first.result.confirmation_state, "in_flight");
  assert.equal((await governed.run(flaky, id)).result.rejection.phase, "in_flight");
});

test("bad tools, options and calls are typed errors", async () => {
  const store = new MemoryStore();
  assert.throws(() => governToolCalls([], { store, keys }), { code: "invalid_input", path: "tools" });
  assert.throws(() => governToolCalls({ a: 1 }, { store, keys }), { code: "invalid_input", path: "tools.a" });
  assert.throws(() => governToolCalls({ a: () => 1 }, { store, keys, whitelist: ["b"] }), { code: "invalid_input", path: "options.whitelist" });
  const { governed } = harness();
  assert.throws(() => governed.draft({ ...call, tool: "rm_rf" }), { code: "unknown_tool" });
  assert.throws(() => governed.draft({ ...call, tool: "toString" }), { code: "unknown_tool" });
  assert.throws(() => governed.draft({ ...call, callId: "" }), { code: "invalid_input", path: "call.callId" });
  assert.throws(() => governed.draft({ ...call, arguments: ["x"] }), { code: "invalid_input", path: "arguments" });
  assert.throws(() => governed.draft("send_email"), { code: "invalid_input", path: "call" });
});

test("approve keeps a confirmation for its call; runApproved runs it once and needs one", async () => {
  const { governed, sent, store } = harness();
  await assert.rejects(governed.runApproved(call), { code: "approval_required" });
  const confirmation = issueConfirmation(governed.draft(call), signer);
  assert.equal(await governed.approve(call, confirmation), confirmation.confirmation_id);
  await assert.rejects(governed.approve(call, confirmation), { code: "already_exists" });
  const contexts = [];
  const withContext = governToolCalls({ send_email: async (args, context) => contexts.push(context) }, { store, keys });
  assert.equal((await withContext.runApproved(call, { signal: "s" })).outcome, "applied");
  assert.deepEqual(contexts, [{ signal: "s" }]);
  assert.equal((await governed.runApproved(call)).result.rejection.phase, "already_consumed");
  // Kept for another call id: this call still has none.
  await assert.rejects(governed.runApproved({ ...call, callId: "call-7" }), { code: "approval_required" });
  assert.deepEqual(sent, []);
});
