// Standing approvals in governToolCalls (the base of every framework adapter): a call a registered, live
// mandate covers is approved without asking and runs once, spending one use; a call outside it, another
// agent's, or one past its uses waits for a person; a call approved again runs nothing twice.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStore, generateApproverKey, governToolCalls, signMandate } from "agent-governor";

const key = await generateApproverKey({ keyId: "nora/laptop" });
const keys = { [key.keyId]: key.publicKey };

function harness(agentId = "mail-agent", store = new MemoryStore()) {
  const sent = [];
  const tools = { send_email: async (args) => (sent.push(args), { sent: true, to: args.to }), delete_account: async () => "gone" };
  return { governed: governToolCalls(tools, { store, keys, keepOutputs: true, agentId }), sent, store };
}

const terms = (extra = {}) => ({
  mandate_id: `mandate-${crypto.randomUUID()}`,
  agents: ["mail-agent"],
  action: "tool:send_email",
  constraints: [{ field: "/to", op: "ends_with", value: "@example.com" }],
  max_uses: 2,
  issued_at: new Date().toISOString(),
  expires_at: new Date(Date.now() + 3_600_000).toISOString(),
  ...extra,
});
const call = (callId, to) => ({ tool: "send_email", arguments: { to, subject: "hello" }, callId });

test("covered calls run unasked, once each, until the uses are spent; an approved call approved again runs nothing twice", async () => {
  const { governed, sent } = harness();
  const record = await governed.registerMandate(await signMandate(terms(), key));
  assert.equal(record.used_by.length, 0);
  for (const id of ["c-1", "c-2"]) {
    const approval = await governed.approveByMandate(call(id, `${id}@example.com`));
    assert.equal(approval.approved, true);
    const outcome = await governed.runApproved(call(id, `${id}@example.com`));
    assert.equal(outcome.outcome, "applied");
  }
  assert.equal(sent.length, 2);
  const [{ record: after }] = await governed.mandates();
  assert.equal(after.used_by.length, 2);
  const third = await governed.approveByMandate(call("c-3", "c-3@example.com"));
  assert.equal(third.approved, false);
  assert.match(third.reasons[0], /used all 2 times/);
  // The same call again (a restored framework state): approved, and its kept output answers; nothing runs.
  assert.equal((await governed.approveByMandate(call("c-1", "c-1@example.com"))).approved, true);
  const again = await governed.runApproved(call("c-1", "c-1@example.com"));
  assert.deepEqual(again.output, { sent: true, to: "c-1@example.com" });
  assert.equal(sent.length, 2);
});

test("outside the constraints, another tool, another agent or no agent: a person decides", async () => {
  const { governed, store } = harness();
  const mandate = await signMandate(terms({ max_uses: 10 }), key);
  await governed.registerMandate(mandate);
  const outside = await governed.approveByMandate(call("o-1", "boss@example.com.evil.test"));
  assert.equal(outside.approved, false);
  assert.match(outside.reasons[0], /to is a text ending with @example.com/);
  assert.equal((await governed.approveByMandate({ tool: "delete_account", arguments: {}, callId: "o-2" })).approved, false);
  await assert.rejects(governed.runApproved(call("o-1", "boss@example.com.evil.test")), { code: "approval_required" });
  const other = harness("other-agent", store).governed;
  assert.equal((await other.approveByMandate(call("o-3", "a@example.com"))).approved, false);
  const nobody = governToolCalls({ send_email: async () => 1 }, { store, keys });
  assert.deepEqual(await nobody.approveByMandate(call("o-4", "a@example.com")), { approved: false, reasons: ["no agentId: standing approvals name the agent they let act"] });
  await assert.rejects(governed.registerMandate(mandate), { code: "already_exists" });
  await assert.rejects(governed.registerMandate({ ...(await signMandate(terms(), key)), max_uses: 1000 }), { code: "signature_invalid" });
  assert.throws(() => governToolCalls({ t: async () => 1 }, { store, keys, agentId: "" }), { code: "invalid_input", path: "options.agentId" });
});

test("the AI SDK adapter: a call a standing approval covers runs in the agent's loop with no approval request; the next one asks", async () => {
  const { ToolLoopAgent, stepCountIs } = await import("ai");
  const { MockLanguageModelV4 } = await import("ai/test");
  const { governTools } = await import("agent-governor/ai");
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const toolCallStep = (toolCallId, to) => ({ content: [{ type: "tool-call", toolCallId, toolName: "send_email", input: JSON.stringify({ to, subject: "hi" }) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] });
  const textStep = { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
  const sent = [];
  const governed = governTools({ send_email: { execute: async (args) => (sent.push(args), "sent") } }, { store: new MemoryStore(), keys, agentId: "mail-agent" });
  await governed.governed.registerMandate(await signMandate(terms({ max_uses: 1 }), key));
  const run = async (callId) => {
    let step = 0;
    const model = new MockLanguageModelV4({ doGenerate: async () => (step++ === 0 ? toolCallStep(callId, `${callId}@example.com`) : textStep) });
    const agent = new ToolLoopAgent({ model, tools: governed.tools, toolApproval: governed.toolApproval, stopWhen: stepCountIs(3) });
    return (await agent.generate({ prompt: "email" })).steps.flatMap((s) => s.content);
  };
  const first = await run("call-1");
  // The SDK records the decision as an automatic approval: no person was asked.
  assert.deepEqual(first.filter((part) => part.type === "tool-approval-request").map((part) => part.isAutomatic), [true]);
  assert.equal(first.find((part) => part.type === "tool-result")?.output, "sent");
  assert.deepEqual(sent, [{ to: "call-1@example.com", subject: "hi" }]);
  const second = await run("call-2");
  const asked = second.filter((part) => part.type === "tool-approval-request");
  assert.deepEqual(asked.map((part) => part.isAutomatic === true), [false], "its one use is spent: a person is asked");
  assert.equal(sent.length, 1);
});
