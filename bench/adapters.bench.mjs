// What each framework adapter adds to one governed tool call, interleaved in one process with a scripted
// model (no network): the framework's own human-in-the-loop flow with a boolean approval (the peer), and the
// same flow through agent-governor's adapter (draft, a signed HMAC confirmation, the core's check, the
// Executor's single-use Apply through the store). Figures, never assertions: `node bench/adapters.bench.mjs`
// after `npm run build`. MCP: the SDK's client calling the server directly, and through the gateway.
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool as agentTool } from "@openai/agents";
import { Annotation, Command, END, MemorySaver, START, StateGraph, interrupt } from "@langchain/langgraph";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import OpenAI from "openai";
import { z } from "zod";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { governTools } from "agent-governor/ai";
import { createMcpGateway } from "agent-governor/mcp";
import { governGraphTools } from "agent-governor/langgraph";
import { governAgentTools } from "agent-governor/openai-agents";

setTracingDisabled(true);
const signer = { keyId: "bench", secret: "0123456789abcdef0123456789abcdef-bench" };
const keys = { [signer.keyId]: signer.secret };
const email = { to: "bob@example.com", subject: "Q3" };
const ROUNDS = Number(process.env.ROUNDS ?? 60);
const send = async (input) => `sent to ${input.to}`;

// ---- Vercel AI SDK: generateText, approval request, then the continuation that runs the tool ----
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let aiCall = 0;
const aiModel = () =>
  new MockLanguageModelV4({
    doGenerate: async ({ prompt }) =>
      prompt.at(-1).role === "tool"
        ? { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }
        : { content: [{ type: "tool-call", toolCallId: `call-${++aiCall}`, toolName: "sendEmail", input: JSON.stringify(email) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] },
  });
const sendEmail = tool({ inputSchema: z.object({ to: z.string(), subject: z.string() }), execute: send });

async function aiTurn(governed) {
  const model = aiModel();
  const tools = governed ? governed.tools : { sendEmail: { ...sendEmail, needsApproval: true } };
  const messages = [{ role: "user", content: "email Bob" }];
  const first = await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
  const request = first.content.find((part) => part.type === "tool-approval-request");
  const response = governed
    ? await governed.approve(request, issueConfirmation(governed.draft(request), signer))
    : { type: "tool-approval-response", approvalId: request.approvalId, approved: true };
  await generateText({ model, tools, messages: [...messages, ...first.response.messages, { role: "tool", content: [response] }], stopWhen: stepCountIs(3) });
}

// ---- OpenAI Agents SDK: run, interruption, approve, run again (scripted chat completions in process) ----
let agentCall = 0;
const scriptedClient = new OpenAI({
  apiKey: "scripted",
  fetch: async (_url, init) => {
    const body = JSON.parse(init.body);
    const toolTurn = body.messages.at(-1).role === "tool";
    const message = toolTurn
      ? { role: "assistant", content: "done" }
      : { role: "assistant", content: null, tool_calls: [{ id: `call_${++agentCall}`, type: "function", function: { name: "send_email", arguments: JSON.stringify(email) } }] };
    const answer = { id: "c", object: "chat.completion", created: 1, model: body.model, choices: [{ index: 0, finish_reason: toolTurn ? "stop" : "tool_calls", message }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
  },
});
const agentModel = new OpenAIChatCompletionsModel(scriptedClient, "scripted");
const plainAgentTool = agentTool({ name: "send_email", description: "Sends", parameters: z.object({ to: z.string(), subject: z.string() }), execute: send, needsApproval: true });

async function agentsTurn(governed) {
  const agent = new Agent({ name: "mailer", model: agentModel, tools: governed ? governed.tools : [plainAgentTool] });
  const result = await run(agent, "email Bob");
  for (const interruption of result.interruptions) {
    if (governed) await governed.approve(result.state, interruption, issueConfirmation(governed.draft(interruption), signer));
    else result.state.approve(interruption);
  }
  await run(agent, result.state);
}

// ---- LangGraph.js: a node that interrupts, resumed with a Command ----
const State = Annotation.Root({ result: Annotation() });
let thread = 0;
function graphOf(governed) {
  const node = governed
    ? async () => ({ result: await governed.call("send_email", email, "email-1") })
    : async () => ({ result: interrupt({ email }) === true ? await send(email) : "declined" });
  return new StateGraph(State).addNode("send", node).addEdge(START, "send").addEdge("send", END).compile({ checkpointer: new MemorySaver() });
}
async function graphTurn(graph, governed) {
  const config = { configurable: { thread_id: `t-${++thread}` } };
  const paused = await graph.invoke({}, config);
  const resume = governed ? issueConfirmation(paused.__interrupt__[0].value.draft, signer) : true;
  await graph.invoke(new Command({ resume }), config);
}

// ---- MCP: the client calls the server directly, or through the gateway (a request, then the signed call) ----
async function linked(client, server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}
function mailServer() {
  const server = new McpServer({ name: "mail", version: "1" });
  server.registerTool("send_email", { inputSchema: { to: z.string(), subject: z.string() } }, async (args) => ({ content: [{ type: "text", text: await send(args) }] }));
  return server;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
async function timed(work) {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function main() {
  const direct = await linked(new Client({ name: "direct", version: "1" }), mailServer());
  const upstream = await linked(new Client({ name: "gateway", version: "1" }), mailServer());
  const { privateKey } = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  const gateway = await createMcpGateway({ upstream, store: new MemoryStore(), keys, receiptKey: { keyId: "gateway", privateKey } });
  const viaGateway = await linked(new Client({ name: "agent", version: "1" }), gateway.createServer());

  const plainGraph = graphOf(null);
  // One governed graph for every round, as the peer: each round is a new thread, the same call id in it.
  const governedGraph = graphOf(governGraphTools({ send_email: send }, { store: new MemoryStore(), keys }));
  const rows = {
    "Vercel AI SDK (ai 7): generateText, approval, continuation": [() => aiTurn(null), () => aiTurn(governTools({ sendEmail }, { store: new MemoryStore(), keys }))],
    "OpenAI Agents SDK 0.20: run, interruption, approve, run": [() => agentsTurn(null), () => agentsTurn(governAgentTools([{ name: "send_email", description: "Sends", parameters: z.object({ to: z.string(), subject: z.string() }), execute: send }], { store: new MemoryStore(), keys }))],
    "LangGraph.js 1.7: interrupt, Command resume (MemorySaver)": [() => graphTurn(plainGraph, false), () => graphTurn(governedGraph, true)],
    // The gateway's figure is two calls (the one that asks, the one that runs) against one direct call.
    "MCP SDK 1.32: tools/call (direct vs through the gateway)": [
      () => direct.callTool({ name: "send_email", arguments: email }),
      async () => {
        const approval = (await viaGateway.callTool({ name: "send_email", arguments: email }))._meta["agent-governor/approval"];
        await viaGateway.callTool({ name: "send_email", arguments: email, _meta: { requestState: approval.requestState, "agent-governor/confirmation": issueConfirmation(approval.draft, signer) } });
      },
    ],
  };
  const figures = Object.fromEntries(Object.keys(rows).map((name) => [name, { peer: [], governed: [] }]));
  for (let round = 0; round < ROUNDS + 5; round += 1) {
    for (const [name, [peer, governed]] of Object.entries(rows)) {
      const peerMs = await timed(peer);
      const governedMs = await timed(governed);
      if (round >= 5) {
        figures[name].peer.push(peerMs);
        figures[name].governed.push(governedMs);
      }
    }
  }
  console.log(`ms per approved tool call, median of ${ROUNDS} interleaved rounds (Node ${process.version}):`);
  for (const [name, { peer, governed }] of Object.entries(figures)) {
    const p = median(peer);
    const g = median(governed);
    console.log(`${name}\n  framework's own flow ${p.toFixed(2)} ms | governed ${g.toFixed(2)} ms | added ${(g - p).toFixed(2)} ms (${(g / p).toFixed(2)}x)`);
  }
  await Promise.all([direct.close(), upstream.close(), viaGateway.close()]);
}

await main();
