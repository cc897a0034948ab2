// governToolCalls, the base of every framework adapter: an unapproved call never runs; an approved call runs
// once with exactly the approved arguments; altered arguments, another call's approval, a replay, an expired
// approval and a restart are refused as the Executor refuses them; a tool that throws leaves its call in flight.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStore, changeLines, governToolCalls, issueConfirmation, refusalOf, saveConfirmation } from "agent-governor";
import { xorshift } from "./support/xorshift.mjs";

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
  // Another tool is another action: refused before the node is compared.
  assert.equal(await refused({ ...call, tool: "flaky", arguments: call.arguments }), "change_mismatch");
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
  assert.equal(await governed.approve(call, confirmation), confirmation.confirmation_id, "keeping it again is no error");
  const contexts = [];
  const withContext = governToolCalls({ send_email: async (args, context) => contexts.push(context) }, { store, keys });
  assert.equal((await withContext.runApproved(call, { signal: "s" })).outcome, "applied");
  assert.deepEqual(contexts, [{ signal: "s" }]);
  assert.equal((await governed.runApproved(call)).result.rejection.phase, "already_consumed");
  // Kept for another call id: this call still has none.
  await assert.rejects(governed.runApproved({ ...call, callId: "call-7" }), { code: "approval_required" });
  assert.deepEqual(sent, []);
});

test("the whitelist is read once: a name added later, or a proxy, whitelists nothing", async () => {
  const whitelist = ["get_weather"];
  const sent = [];
  const governed = governToolCalls({ send_email: async (args) => sent.push(args), get_weather: async () => "sunny" }, { store: new MemoryStore(), keys, whitelist });
  whitelist.push("send_email");
  await assert.rejects(governed.run(call), { code: "approval_required" });
  const sneaky = new Proxy(["get_weather"], { get: (target, key) => (key === "includes" || key === "has" ? () => true : Reflect.get(target, key)) });
  const proxied = governToolCalls({ send_email: async (args) => sent.push(args), get_weather: async () => "sunny" }, { store: new MemoryStore(), keys, whitelist: sneaky });
  await assert.rejects(proxied.run(call), { code: "approval_required" });
  assert.deepEqual(sent, []);
});

test("each run's context reaches its own tool call: a concurrent run of the same confirmation never swaps it", async () => {
  const store = new MemoryStore();
  const seen = [];
  const slowAudit = () => new Promise((resolve) => setTimeout(resolve, 30));
  const governed = governToolCalls({ send_email: async (args, context) => seen.push(context) }, { store, keys, audit: slowAudit });
  const id = await governed.approve(call, issueConfirmation(governed.draft(call), signer));
  const other = governed.run({ ...call, arguments: { ...call.arguments, to: "eve@example.com" } }, id, { user: "mallory" });
  const legit = governed.run(call, id, { user: "alice" });
  const [refused, applied] = await Promise.all([other, legit]);
  assert.equal(refused.outcome, "rejected");
  assert.equal(applied.outcome, "applied");
  assert.deepEqual(seen, [{ user: "alice" }]);
});

test("with a sealKey, kept confirmations are sealed by the Executor and run", async () => {
  const governed = governToolCalls({ send_email: async () => "sent" }, { store: new MemoryStore(), keys, sealKey: "0123456789abcdef0123456789abcdef-seal" });
  await governed.approve(call, issueConfirmation(governed.draft(call), signer));
  assert.equal((await governed.runApproved(call)).outcome, "applied");
});

test("a tool that throws is an unknown outcome, reported as such (never as 'did not run'); its call stays in flight", async () => {
  const { governed, store } = harness();
  const flaky = { tool: "flaky", arguments: {}, callId: "call-10" };
  await governed.approve(flaky, issueConfirmation(governed.draft(flaky), signer));
  const outcome = await governed.runApproved(flaky);
  const refusal = refusalOf(flaky, outcome);
  assert.equal(refusal.code, "outcome_unknown");
  assert.match(refusal.message, /may have run/);
  assert.equal(refusalOf(flaky, await governed.runApproved(flaky)).code, "outcome_unknown");
});

test("call ids with control characters are refused; ids with slashes stay apart in the store", async () => {
  const { governed } = harness();
  for (const callId of ["a\nb", "a\u0000b", "a b", "\u202e", "x".repeat(257)]) {
    assert.throws(() => governed.draft({ ...call, callId }), { code: "invalid_input", path: "call.callId" });
  }
  const sneaky = { ...call, callId: "../confirmation/x" };
  await governed.approve(sneaky, issueConfirmation(governed.draft(sneaky), signer));
  assert.equal((await governed.runApproved(sneaky)).outcome, "applied");
});

test("a call or confirmation whose fields throw, and a store that fails, are typed errors", async () => {
  const { governed } = harness();
  const hostile = { get tool() { throw new Error("boom"); } };
  assert.throws(() => governed.draft(hostile), { code: "invalid_input", path: "call" });
  await assert.rejects(governed.approve(call, null), { code: "invalid_input", path: "confirmation" });
  const failing = governToolCalls({ send_email: async () => 1 }, { store: { get: () => { throw new Error("db down"); }, put: () => {}, compareAndSwap: () => true }, keys });
  await assert.rejects(failing.runApproved(call), { code: "storage_error" });
});

test("any arguments either round-trip through JSON exactly and run as the person saw them, or are refused before a draft", async () => {
  const { next, pick } = xorshift(1839);
  const leaves = [0, 2.5, -1e-7, 9.999999999999997e-7, 0.30000000000000004, 1e21, NaN, -Infinity, "", "日本語", "a\uD800", true, null, undefined, 10n, new Date(0), new Set(), () => 1];
  const value = (depth) => {
    const roll = next();
    if (depth > 2 || roll < 0.45) return pick(leaves);
    if (roll < 0.7) {
      const array = Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
      if (next() < 0.1) array.length += 1; // a hole
      return array;
    }
    const object = {};
    for (let i = Math.floor(next() * 3); i > 0; i--) object[pick(["a", "b", "c"])] = value(depth + 1);
    return object;
  };
  // JSON.parse(JSON.stringify(v)) is v, member for member.
  const exact = (v) => {
    if (v === null || typeof v === "boolean") return true;
    if (typeof v === "string") return v.isWellFormed();
    if (typeof v === "number") return Number.isFinite(v);
    if (Array.isArray(v)) return Object.keys(v).length === v.length && v.every(exact);
    if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) return Object.values(v).every((member) => member !== undefined && exact(member));
    return false;
  };
  const store = new MemoryStore();
  const received = [];
  const governed = governToolCalls({ act: async (args) => received.push(args) }, { store, keys });
  let ran = 0;
  for (let i = 0; i < 300; i++) {
    const call = { tool: "act", arguments: { v: value(0) }, callId: `call-${i}` };
    let draft;
    try {
      draft = governed.draft(call);
    } catch (error) {
      assert.equal(error.code, "invalid_input", error.message);
      assert.ok(!exact(call.arguments), `refused JSON data: ${error.message}`);
      continue;
    }
    assert.ok(exact(call.arguments), `drafted what JSON would change: ${draft.proposed_change.to}`);
    const [shown] = changeLines(draft.node_id, draft.proposed_change);
    const confirmationId = await approve(store, governed, call);
    const outcome = await governed.run(call, confirmationId);
    assert.equal(outcome.outcome, "applied");
    ran += 1;
    const got = received.at(-1);
    // The tool receives the caller's value, and the person's line shows exactly that value's canonical text.
    assert.deepEqual(got, call.arguments);
    assert.ok(shown.endsWith(` with ${draft.proposed_change.to}`), shown);
    assert.deepEqual(JSON.parse(draft.proposed_change.to), got);
  }
  assert.ok(ran > 60, `only ${ran} ran: the generator should make plenty of JSON data`);
});
