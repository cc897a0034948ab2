// agent-governor/ai against the real AI SDK (ai 7): its mock model, its ToolLoopAgent, its UI message stream
// and its OpenAI-compatible provider over HTTP. A governed tool runs only with a person's signed, single-use
// confirmation of exactly that call; the SDK's own `approved: true`, a replayed history, edited arguments, an
// expired approval and a restart run nothing.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ToolLoopAgent, convertToModelMessages, generateText, readUIMessageStream, stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { governTools } from "agent-governor/ai";
import { startToolCallingModel } from "./support/tool-calling-model.mjs";

const signer = { keyId: "approver", secret: "0123456789abcdef0123456789abcdef-ai-sdk" };
const keys = { [signer.keyId]: signer.secret };
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const toolCallStep = (toolCallId, toolName, input) => ({
  content: [{ type: "tool-call", toolCallId, toolName, input: typeof input === "string" ? input : JSON.stringify(input) }],
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage,
  warnings: [],
});
const textStep = (text) => ({ content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] });

/** A mock model that calls `sendEmail` first, then answers text for every later step. */
function scriptedModel(input = { to: "bob@example.com", subject: "Q3" }, toolName = "sendEmail") {
  let calls = 0;
  return new MockLanguageModelV4({ doGenerate: async () => (calls++ === 0 ? toolCallStep("call-1", toolName, input) : textStep("done")) });
}

function harness({ store = new MemoryStore(), now } = {}) {
  const sent = [];
  const tools = {
    sendEmail: tool({
      description: "Sends an email",
      inputSchema: z.object({ to: z.string(), subject: z.string() }),
      execute: async (input) => {
        sent.push(input);
        return { sent: true };
      },
    }),
    getWeather: tool({ description: "Reads the weather", inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, sky: "clear" }) }),
  };
  const governed = governTools(tools, { store, keys, whitelist: ["getWeather"], ...(now ? { now } : {}) });
  return { governed, sent, store };
}

/** The first turn: the model calls `sendEmail`, the SDK pauses with an approval request. */
async function firstTurn(governed, model = scriptedModel()) {
  const messages = [{ role: "user", content: "Email Bob the Q3 numbers" }];
  const result = await generateText({ model, tools: governed.tools, messages, stopWhen: stepCountIs(3) });
  const request = result.content.find((part) => part.type === "tool-approval-request");
  assert.ok(request, "the SDK asks for approval of a governed tool");
  return { model, request, history: [...messages, ...result.response.messages] };
}

const continueWith = (governed, model, history, response) =>
  generateText({ model, tools: governed.tools, messages: [...history, { role: "tool", content: [response] }], stopWhen: stepCountIs(3) });

/** What the continuation's tool result carried for the approved call. */
const toolOutput = (result) => result.initialResponseMessages.flatMap((message) => message.content).find((p) => p.type === "tool-result")?.output;
const toolErrors = (result) => result.steps.flatMap((step) => step.content).filter((part) => part.type === "tool-error");
/** What the continuation reported for the approved call (the SDK runs it before the next step): its error text. */
const refusal = (result) => {
  const part = result.initialResponseMessages.flatMap((message) => message.content).find((p) => p.type === "tool-result");
  return part?.output.type === "error-text" ? part.output.value : null;
};

test("the SDK's own approval runs nothing: only a person's signed confirmation does, and only once", async () => {
  const { governed, sent } = harness();
  const { model, request, history } = await firstTurn(governed);
  assert.deepEqual(governed.lines(request), ['Execute: tool sendEmail with {"subject":"Q3","to":"bob@example.com"}', "Impact: sendEmail"]);
  // approved: true from the client, with no confirmation: the tool errors and does not run.
  const unsigned = await continueWith(governed, model, history, { type: "tool-approval-response", approvalId: request.approvalId, approved: true });
  assert.match(refusal(unsigned), /has no approval/);
  assert.deepEqual(sent, []);

  const response = await governed.approve(request, issueConfirmation(governed.draft(request), signer));
  assert.deepEqual(response, { type: "tool-approval-response", approvalId: request.approvalId, approved: true });
  const approved = await continueWith(governed, model, history, response);
  assert.equal(refusal(approved), null);
  assert.deepEqual(sent, [{ to: "bob@example.com", subject: "Q3" }]);

  // The same history sent again (a replayed request, a double submit): the first run's output, nothing sent twice.
  const replay = await continueWith(governed, model, history, response);
  assert.equal(refusal(replay), null);
  assert.deepEqual(toolOutput(replay), toolOutput(approved));
  assert.equal(sent.length, 1);
  // A second person's signature of the same call (a second tab): the same, the tool does not run again.
  const second = await governed.approve(request, issueConfirmation(governed.draft(request), signer));
  const twice = await continueWith(governed, model, history, second);
  assert.deepEqual(toolOutput(twice), toolOutput(approved));
  assert.equal(sent.length, 1);
});

test("arguments edited in the history after approval, an expired approval and another call's approval run nothing", async () => {
  const { governed, sent } = harness();
  const { model, request, history } = await firstTurn(governed);
  const response = await governed.approve(request, issueConfirmation(governed.draft(request), signer));
  // The client controls the history it sends: it swaps the approved recipient.
  const edited = structuredClone(history);
  for (const message of edited) {
    for (const part of Array.isArray(message.content) ? message.content : []) if (part.type === "tool-call") part.input.to = "eve@example.com";
  }
  const altered = await continueWith(governed, model, edited, response);
  // No confirmation is kept for the edited arguments: nothing runs.
  assert.match(refusal(altered), /has no approval/);
  assert.deepEqual(sent, []);

  let clock = Date.now();
  const late = harness({ now: () => clock });
  const lateTurn = await firstTurn(late.governed);
  const old = await late.governed.approve(lateTurn.request, issueConfirmation(late.governed.draft(lateTurn.request), signer, clock));
  clock += 25 * 3600 * 1000;
  const expired = await continueWith(late.governed, lateTurn.model, lateTurn.history, old);
  assert.match(refusal(expired), /did not run \(expired_time\)/);
  assert.deepEqual(late.sent, []);

  // A confirmation signed for another call id is kept for the call it names, not this one.
  const other = harness();
  const otherTurn = await firstTurn(other.governed);
  const foreign = issueConfirmation(other.governed.draft({ ...otherTurn.request.toolCall, toolCallId: "call-2" }), signer);
  await assert.rejects(other.governed.approve(otherTurn.request, foreign), { code: "not_approved" });
  await other.governed.approve({ ...otherTurn.request.toolCall, toolCallId: "call-2" }, foreign);
  const mismatched = await continueWith(other.governed, otherTurn.model, otherTurn.history, { type: "tool-approval-response", approvalId: otherTurn.request.approvalId, approved: true });
  assert.match(refusal(mismatched), /has no approval/);
  assert.deepEqual(other.sent, []);
});

test("after a restart an approved call runs once and a used approval stays used", async () => {
  const store = new MemoryStore();
  const before = harness({ store });
  const { model, request, history } = await firstTurn(before.governed);
  const response = await before.governed.approve(request, issueConfirmation(before.governed.draft(request), signer));
  const restarted = harness({ store });
  await continueWith(restarted.governed, model, history, response);
  assert.equal(restarted.sent.length, 1);
  const again = harness({ store });
  const replay = await continueWith(again.governed, model, history, response);
  assert.equal(refusal(replay), null, "the first run's output, kept in the store");
  assert.equal(again.sent.length, 0);
  // Without kept outputs, a replay is refused as a call that already ran (never "did not run").
  const bare = governTools({ sendEmail: { execute: async () => again.sent.push("x") } }, { store, keys, keepOutputs: false });
  const bareReplay = await continueWith(bare, model, history, response);
  assert.match(refusal(bareReplay), /already ran/);
  assert.equal(again.sent.length, 0);
});

test("ToolLoopAgent with the adapter's toolApproval: the person reads the machine's lines; whitelisted tools run freely", async () => {
  const { governed, sent } = harness();
  let step = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async () => [toolCallStep("w-1", "getWeather", { city: "Kyoto" }), toolCallStep("call-1", "sendEmail", { to: "bob@example.com", subject: "Q3" }), textStep("done")][Math.min(step++, 2)],
  });
  const agent = new ToolLoopAgent({ model, tools: governed.tools, toolApproval: governed.toolApproval, stopWhen: stepCountIs(5) });
  const result = await agent.generate({ prompt: "Weather, then email Bob" });
  const parts = result.steps.flatMap((s) => s.content);
  assert.deepEqual(parts.find((part) => part.type === "tool-result")?.output, { city: "Kyoto", sky: "clear" });
  const request = parts.find((part) => part.type === "tool-approval-request");
  assert.equal(request.reason, 'Execute: tool sendEmail with {"subject":"Q3","to":"bob@example.com"}\nImpact: sendEmail');
  assert.deepEqual(sent, []);
  const response = await governed.approve(request, issueConfirmation(governed.draft(request), signer));
  await agent.generate({ messages: [{ role: "user", content: "Weather, then email Bob" }, ...result.response.messages, { role: "tool", content: [response] }] });
  assert.deepEqual(sent, [{ to: "bob@example.com", subject: "Q3" }]);
});

test("the UI message stream shows the request; the continuation from UI messages runs the approved call once", async () => {
  const { governed, sent } = harness();
  let calls = 0;
  const streamOf = (parts) => ({ stream: new ReadableStream({ start(controller) { for (const part of parts) controller.enqueue(part); controller.close(); } }) });
  const finish = (reason) => ({ type: "finish", finishReason: { unified: reason, raw: reason }, usage });
  const model = new MockLanguageModelV4({
    doStream: async () =>
      calls++ === 0
        ? streamOf([{ type: "tool-call", toolCallId: "call-1", toolName: "sendEmail", input: JSON.stringify({ to: "bob@example.com", subject: "Q3" }) }, finish("tool-calls")])
        : streamOf([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "sent" }, { type: "text-end", id: "t" }, finish("stop")]),
  });
  const user = { id: "u1", role: "user", parts: [{ type: "text", text: "Email Bob" }] };
  const first = streamText({ model, tools: governed.tools, messages: await convertToModelMessages([user]), stopWhen: stepCountIs(3) });
  let assistant;
  for await (const message of readUIMessageStream({ stream: first.toUIMessageStream() })) assistant = message;
  const part = assistant.parts.find((p) => p.type === "tool-sendEmail");
  assert.equal(part.state, "approval-requested");
  // The browser signs (here the server's HMAC stands in for the approver's key) and answers as useChat does.
  await governed.approve({ toolCallId: part.toolCallId, toolName: "sendEmail", input: part.input }, issueConfirmation(governed.draft({ toolCallId: part.toolCallId, toolName: "sendEmail", input: part.input }), signer));
  const answered = { ...assistant, parts: assistant.parts.map((p) => (p === part ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: true } } : p)) };
  const second = streamText({ model, tools: governed.tools, messages: await convertToModelMessages([user, answered]), stopWhen: stepCountIs(3) });
  await second.consumeStream();
  assert.deepEqual(sent, [{ to: "bob@example.com", subject: "Q3" }]);
});

let server;
before(async () => {
  server = await startToolCallingModel((body, requests) =>
    requests.length % 2 === 1 ? { toolCalls: [{ id: `call_${requests.length}`, name: "sendEmail", arguments: JSON.stringify({ to: "bob@example.com", subject: "Q3" }) }] } : { text: "done" },
  );
});
after(() => server?.close());

test("through the OpenAI-compatible provider over HTTP: the tool call becomes a request, runs once when signed", async () => {
  const { governed, sent } = harness();
  const provider = createOpenAICompatible({ name: "scripted", baseURL: server.url });
  const model = provider("scripted-model");
  const { request, history } = await firstTurn(governed, model);
  assert.equal(server.requests[0].tools[0].function.name, "sendEmail");
  assert.deepEqual(sent, []);
  const response = await governed.approve(request, issueConfirmation(governed.draft(request), signer));
  await continueWith(governed, model, history, response);
  assert.deepEqual(sent, [{ to: "bob@example.com", subject: "Q3" }]);
});

test("bad input: unknown tools, malformed and oversized arguments, a bad tool set and forged confirmations are refused", async () => {
  const { governed, sent } = harness();
  // The model names a tool that does not exist, or sends arguments that are not JSON: the SDK refuses them.
  for (const [name, input] of [["deleteAll", {}], ["sendEmail", "{not json"]]) {
    const result = await generateText({ model: scriptedModel(input, name), tools: governed.tools, prompt: "x", stopWhen: stepCountIs(2) });
    assert.ok(toolErrors(result).length === 1 && !result.content.some((part) => part.type === "tool-approval-request"));
  }
  const big = { toolCallId: "c", toolName: "sendEmail", input: { to: "x".repeat(1_100_000), subject: "" } };
  assert.throws(() => governed.draft(big), { code: "invalid_input", path: "arguments" });
  assert.equal((await governed.toolApproval({ toolCall: big })).type, "denied");
  assert.throws(() => governed.draft({ toolCallId: "c", toolName: "nope", input: {} }), { code: "unknown_tool" });
  assert.throws(() => governed.draft("sendEmail"), { code: "invalid_input" });
  assert.throws(() => governTools([], { store: new MemoryStore(), keys }), { code: "invalid_input", path: "tools" });
  assert.throws(() => governTools({ a: { inputSchema: {} } }, { store: new MemoryStore(), keys }), { code: "invalid_input", path: "tools.a" });
  const call = { toolCallId: "c", toolName: "sendEmail", input: { to: "b", subject: "s" } };
  const confirmation = issueConfirmation(governed.draft(call), signer);
  // Kept twice (a retried request): no error, and still one run.
  await governed.approve(call, confirmation);
  await governed.approve(call, confirmation);
  await assert.rejects(governed.approve(call, { ...confirmation, signature: 42 }), { code: "invalid_input" });
  await assert.rejects(governed.approve(call, { ...confirmation, confirmation_id: "forged" }), { code: "not_approved" });
  await assert.rejects(governed.approve({ ...call, input: { to: "eve", subject: "s" } }, issueConfirmation(governed.draft(call), signer)), { code: "not_approved" });
  assert.deepEqual(sent, []);
});
