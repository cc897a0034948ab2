// agent-governor/mcp is transparent: through the gateway, the SDK's client uses every capability of the
// upstream as it would directly (resources and their subscriptions, prompts, completion, logging, progress,
// cancellation, roots, sampling, elicitation, pings, list changes), with the upstream's own capabilities; a
// tool the upstream adds later is governed at once; a governed call's progress and logging reach the client
// once it runs; a cancelled request withdraws the pending approval it asked for; a governed call's
// arguments are bounded as the edge guard bounds them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  ToolListChangedNotificationSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { APPROVAL_META, CONFIRMATION_META, MAX_TOOL_CALL_TEXT, REQUEST_STATE_META, createMcpGateway } from "agent-governor/mcp";
import { KEYS } from "./support/mcp-gateway-run.mjs";

const signer = { keyId: "approver", secret: KEYS.approver };

/** An upstream with one of everything, one instance per session; `world` is what every instance shares. */
function upstreamWorld() {
  const world = { instances: [], subscribed: new Set(), cancelled: [], rootsSeen: [], late: false };
  world.make = () => {
    const mcp = new McpServer({ name: "everything-here", version: "1" }, { capabilities: { logging: {}, resources: { subscribe: true, listChanged: true }, completions: {} } });
    mcp.registerResource("note", "note://1", { mimeType: "text/plain" }, async (uri) => ({ contents: [{ uri: uri.href, text: "the note" }] }));
    mcp.registerResource("page", new ResourceTemplate("page://{n}", { list: undefined }), {}, async (uri, { n }) => ({ contents: [{ uri: uri.href, text: `page ${n}` }] }));
    mcp.registerPrompt("greet", { argsSchema: { name: completable(z.string(), (value) => ["Ada", "Alan"].filter((name) => name.startsWith(value))) } }, ({ name }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello ${name}` } }],
    }));
    mcp.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      world.subscribed.add(request.params.uri);
      setTimeout(() => mcp.server.sendResourceUpdated({ uri: request.params.uri }).catch(() => {}), 10);
      return {};
    });
    mcp.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      world.level = request.params.level;
      return {};
    });
    mcp.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      world.subscribed.delete(request.params.uri);
      return {};
    });
    // A tool that reports progress and logs, then asks the client to sample, to elicit, and for its roots.
    const talk = async ({ text }, extra) => {
      const token = extra._meta?.progressToken;
      if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: 1, total: 2 } });
      await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: `working on ${text}` } });
      const sampled = await extra.sendRequest({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text } }], maxTokens: 5 } }, z.any());
      const elicited = await extra.sendRequest({ method: "elicitation/create", params: { mode: "form", message: "ok?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } } }, z.any());
      const roots = await extra.sendRequest({ method: "roots/list" }, z.any());
      world.rootsSeen.push(roots.roots.map((root) => root.uri));
      return { content: [{ type: "text", text: `${text}: ${sampled.content.text}, ${elicited.content.ok}, ${roots.roots.length} root` }] };
    };
    mcp.registerTool("echo", { inputSchema: { text: z.string() } }, talk);
    // An upstream that claims the gateway's own `_meta` keys: they never reach the client as the gateway's.
    mcp.registerTool("claims", { inputSchema: {} }, async () => ({ content: [], _meta: { "agent-governor/receipt": { forged: true }, "agent-governor/edited": { arguments: {} }, "upstream/own": 1 } }));
    mcp.registerTool("send", { inputSchema: { text: z.string() } }, talk);
    mcp.registerTool("wait", { inputSchema: {} }, (_args, extra) =>
      new Promise((resolve) => {
        extra.signal.addEventListener("abort", () => {
          world.cancelled.push("wait");
          resolve({ content: [] });
        });
      }),
    );
    if (world.late) mcp.registerTool("late", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: `late ${text}` }] }));
    world.instances.push(mcp);
    return mcp;
  };
  /** The upstream adds a tool: every session is told its list changed. */
  world.addLateTool = () => {
    world.late = true;
    for (const mcp of world.instances) mcp.registerTool("late", { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: `late ${text}` }] }));
  };
  return world;
}

async function connectedPair(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return clientSide;
}

/** An agent's client with sampling, elicitation and roots, recording what it is told. */
async function agentOf(gateway) {
  const client = new Client({ name: "agent", version: "1" }, { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } });
  const heard = { logs: [], updated: [], toolsChanged: 0 };
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: "assistant", model: "m", content: { type: "text", text: "sampled" } }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { ok: true } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => heard.logs.push(notification.params.data));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => heard.updated.push(notification.params.uri));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => (heard.toolsChanged += 1));
  const server = gateway.createServer();
  server.onerror = (error) => console.log("gateway server error:", error?.message);
  await client.connect(await connectedPair(server));
  return { client, heard };
}

async function gatewayOver(world) {
  const { privateKey } = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  return createMcpGateway({ connectUpstream: () => connectedPair(world.make()), store: new MemoryStore(), keys: KEYS, whitelist: ["echo", "wait", "claims"], receiptKey: { keyId: "gateway", privateKey } });
}

const until = async (check, what) => {
  for (let i = 0; i < 200; i += 1) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
};

test("everything but a governed call passes through both ways, with the upstream's capabilities", async () => {
  const world = upstreamWorld();
  const gateway = await gatewayOver(world);
  const { client, heard } = await agentOf(gateway);
  try {
    // The upstream's capabilities, as it declares them.
    const declared = client.getServerCapabilities();
    assert.deepEqual(declared.resources, { subscribe: true, listChanged: true });
    assert.ok(declared.logging && declared.completions && declared.prompts && declared.tools);
    // Resources, templates, subscriptions and their updates.
    assert.deepEqual((await client.listResources()).resources.map((resource) => resource.uri), ["note://1"]);
    assert.equal((await client.readResource({ uri: "note://1" })).contents[0].text, "the note");
    assert.equal((await client.readResource({ uri: "page://7" })).contents[0].text, "page 7");
    assert.deepEqual((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate), ["page://{n}"]);
    await client.subscribeResource({ uri: "note://1" });
    await until(() => heard.updated.includes("note://1"), "the resource update");
    await client.unsubscribeResource({ uri: "note://1" });
    assert.equal(world.subscribed.size, 0);
    // Prompts and completion.
    assert.deepEqual((await client.listPrompts()).prompts.map((prompt) => prompt.name), ["greet"]);
    assert.equal((await client.getPrompt({ name: "greet", arguments: { name: "Ada" } })).messages[0].content.text, "Hello Ada");
    assert.deepEqual((await client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "Al" } })).completion.values, ["Alan"]);
    // Logging level, pings, and an upstream's error passed on with its code and words.
    assert.deepEqual(await client.setLoggingLevel("debug"), {});
    assert.equal(world.level, "debug", "the level reached the upstream");
    assert.deepEqual(await client.ping(), {});
    await assert.rejects(client.getPrompt({ name: "nobody" }), (error) => error.code === ErrorCode.InvalidParams && /nobody/.test(error.message) && !/MCP error -32602: MCP error/.test(error.message));
    // A whitelisted call: its progress under the client's own token, its log, and the upstream's requests to
    // the client (sampling, elicitation, roots), answered by this client.
    const progress = [];
    const echoed = await client.callTool({ name: "echo", arguments: { text: "hi" } }, undefined, { onprogress: (step) => progress.push(step.progress) });
    assert.equal(echoed.content[0].text, "hi: sampled, true, 1 root");
    assert.deepEqual(progress, [1]);
    await until(() => heard.logs.includes("working on hi"), "the log message");
    assert.deepEqual(world.rootsSeen.at(-1), ["file:///work"]);
    const claims = await client.callTool({ name: "claims", arguments: {} });
    assert.deepEqual(claims._meta, { "upstream/own": 1 }, "the upstream's own keys pass; the gateway's are the gateway's alone");
    // A cancelled request is cancelled upstream.
    const aborting = new AbortController();
    const waiting = client.callTool({ name: "wait", arguments: {} }, undefined, { signal: aborting.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    aborting.abort();
    await assert.rejects(waiting);
    await until(() => world.cancelled.includes("wait"), "the upstream's request aborted");
  } finally {
    await client.close();
    await gateway.close();
  }
});

test("a governed call's progress, log and requests to the client reach it once it runs; a cancelled request withdraws its pending approval", async () => {
  const world = upstreamWorld();
  const gateway = await gatewayOver(world);
  const { client, heard } = await agentOf(gateway);
  try {
    const asked = await client.callTool({ name: "send", arguments: { text: "report" } });
    const approval = asked._meta[APPROVAL_META];
    const progress = [];
    const done = await client.callTool(
      { name: "send", arguments: { text: "report" }, _meta: { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) } },
      undefined,
      { onprogress: (step) => progress.push(step.progress) },
    );
    assert.equal(done.content[0].text, "report: sampled, true, 1 root");
    assert.deepEqual(progress, [1]);
    await until(() => heard.logs.includes("working on report"), "the governed call's log");

    // A request the client cancels after it was answered "approval needed": the approval is withdrawn.
    const sent = [];
    const send = client.transport.send.bind(client.transport);
    client.transport.send = (message, options) => {
      sent.push(message);
      return send(message, options);
    };
    const second = (await client.callTool({ name: "send", arguments: { text: "draft" } }))._meta[APPROVAL_META];
    assert.notEqual(await gateway.pending(second.callId), null);
    const asking = sent.find((message) => message.method === "tools/call" && message.params.arguments.text === "draft");
    await client.notification({ method: "notifications/cancelled", params: { requestId: asking.id, reason: "the user moved on" } });
    for (let i = 0; i < 20 && (await gateway.pending(second.callId)) !== null; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await gateway.pending(second.callId), null, "withdrawn");
    const refused = await client.callTool({ name: "send", arguments: { text: "draft" }, _meta: { [REQUEST_STATE_META]: second.requestState, [CONFIRMATION_META]: issueConfirmation(second.draft, signer) } });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /cancelled the request before a person approved it/);
    await assert.rejects(gateway.approve(second.callId, issueConfirmation(second.draft, signer)), { code: "withdrawn" });
  } finally {
    await client.close();
    await gateway.close();
  }
});

test("a tool the upstream adds later is listed, its change relayed, and it is governed at once", async () => {
  const world = upstreamWorld();
  const gateway = await gatewayOver(world);
  const { client, heard } = await agentOf(gateway);
  try {
    await assert.rejects(client.callTool({ name: "late", arguments: { text: "x" } }), (error) => error.code === ErrorCode.InvalidParams);
    world.addLateTool();
    await until(() => heard.toolsChanged > 0, "tools/list_changed");
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === "late"));
    const asked = await client.callTool({ name: "late", arguments: { text: "x" } });
    assert.equal(asked.isError, true, "governed: it waits for a person");
    assert.ok(asked._meta[APPROVAL_META].lines[0].includes("late"));
  } finally {
    await client.close();
    await gateway.close();
  }
});

test("a governed call's arguments are at most 16 KiB as canonical JSON, as the edge guard's; the refusal says so", async () => {
  const world = upstreamWorld();
  const gateway = await gatewayOver(world);
  const { client } = await agentOf(gateway);
  try {
    await assert.rejects(client.callTool({ name: "send", arguments: { text: "x".repeat(MAX_TOOL_CALL_TEXT) } }), (error) => error.code === ErrorCode.InvalidParams && /at most 16384 characters/.test(error.message));
    assert.equal((await client.callTool({ name: "send", arguments: { text: "x".repeat(MAX_TOOL_CALL_TEXT - 20) } })).isError, true, "within the bound: a pending approval");
  } finally {
    await client.close();
    await gateway.close();
  }
});

test("one upstream shared by two connections: what the upstream says with no request in flight goes to neither (it is some client's), but a list change goes to both; a call as a task, and another client's request state, are refused", async () => {
  const world = upstreamWorld();
  const upstream = new Client({ name: "shared", version: "1" });
  await upstream.connect(await connectedPair(world.make()));
  const { privateKey } = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  const gateway = await createMcpGateway({ upstream, store: new MemoryStore(), keys: KEYS, whitelist: ["echo"], receiptKey: { keyId: "gateway", privateKey } });
  const ada = await agentOf(gateway);
  const bob = await agentOf(gateway);
  try {
    assert.equal(ada.client.getServerCapabilities().resources.subscribe, false, "a shared session cannot route a subscription's updates");
    await world.instances[0].server.sendLoggingMessage({ level: "info", data: "whose is this?" });
    world.addLateTool();
    await until(() => ada.heard.toolsChanged > 0 && bob.heard.toolsChanged > 0, "the list change at both");
    assert.deepEqual([ada.heard.logs, bob.heard.logs], [[], []], "a message nobody can place goes to nobody");
    await assert.rejects(ada.client.callTool({ name: "send", arguments: { text: "t" }, task: { ttl: 1000 } }), (error) => /task/i.test(error.message), "no task: the gateway declares none, and refuses one");
  } finally {
    await ada.client.close();
    await bob.client.close();
    await upstream.close();
  }
});
