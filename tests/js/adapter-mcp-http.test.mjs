// agent-governor/mcp/http: the gateway served over Streamable HTTP in Node, as the README shows it. Two
// clients each get their own session (and their own upstream session); a client that loses its stream
// resumes it; after a restart of the gateway (same store) an old session is refused with 404, the client
// initializes again and continues its pending approval with its requestState, and the call runs once.
// Stateless, a server per request: a pending approval continues with its requestState.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { APPROVAL_META, CONFIRMATION_META, REQUEST_STATE_META, createMcpGateway } from "agent-governor/mcp";
import { memoryEventStore, serveMcpGateway } from "agent-governor/mcp/http";
import { KEYS } from "./support/mcp-gateway-run.mjs";
import { startSampleServer } from "./support/mcp-sample-server.mjs";

const signer = { keyId: "approver", secret: KEYS.approver };
const sentLog = join(mkdtempSync(join(tmpdir(), "mcp-http-")), "sent.log");
const sent = () => (existsSync(sentLog) ? readFileSync(sentLog, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []);
let upstream;
let receiptKey;

before(async () => {
  upstream = await startSampleServer(sentLog, { stateful: true });
  const { privateKey } = await crypto.subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
  receiptKey = { keyId: "gateway", privateKey };
});
after(async () => upstream?.close());

const gatewayOn = (store) =>
  createMcpGateway({ connectUpstream: () => new StreamableHTTPClientTransport(new URL(upstream.url)), store, keys: KEYS, whitelist: ["lookup"], receiptKey });

async function clientOf(url, name) {
  const client = new Client({ name, version: "1" });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  return { client, transport };
}

test("two clients, two sessions; a restart of the gateway: the old session is refused, a new one continues the pending approval, and the call runs once", async () => {
  const store = new MemoryStore();
  let gateway = await gatewayOn(store);
  let served = await serveMcpGateway(gateway);
  const port = Number(served.url.port);
  const ada = await clientOf(served.url, "ada");
  const bob = await clientOf(served.url, "bob");
  try {
    assert.equal(served.sessions().length, 2);
    assert.notEqual(ada.transport.sessionId, bob.transport.sessionId);
    assert.equal((await bob.client.callTool({ name: "lookup", arguments: { word: "quorum" } })).content[0].text, "quorum: found");
    const args = { to: "ada@example.com", subject: "restart" };
    const approval = (await ada.client.callTool({ name: "send_email", arguments: args }))._meta[APPROVAL_META];
    // Bob's identical call is his own request (another session, another asker).
    assert.notEqual((await bob.client.callTool({ name: "send_email", arguments: args }))._meta[APPROVAL_META].callId, approval.callId);

    // The gateway restarts on the same port with the same store.
    await served.close();
    await gateway.close();
    gateway = await gatewayOn(store);
    served = await serveMcpGateway(gateway, { port });
    await assert.rejects(ada.client.ping(), (error) => /404|session/i.test(String(error?.message)), "the old session is unknown here");
    await ada.client.close().catch(() => {});
    const again = await clientOf(served.url, "ada");
    ada.client = again.client;
    const done = await again.client.callTool({ name: "send_email", arguments: args, _meta: { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) } });
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.deepEqual(sent().filter((email) => email.subject === "restart"), [args], "ran once");
    const replay = await again.client.callTool({ name: "send_email", arguments: args, _meta: { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) } });
    assert.equal(sent().filter((email) => email.subject === "restart").length, 1, "a replay runs nothing more");
    assert.equal(replay.content[0].text, done.content[0].text, "answered with the first result");
  } finally {
    await ada.client.close().catch(() => {});
    await bob.client.close().catch(() => {});
    await served.close();
    await gateway.close();
  }
});

test("stateless: a server per request, no session; a pending approval continues with its requestState", async () => {
  const gateway = await gatewayOn(new MemoryStore());
  const served = await serveMcpGateway(gateway, { stateless: true });
  const { client, transport } = await clientOf(served.url, "carl");
  try {
    assert.equal(transport.sessionId, undefined);
    assert.deepEqual(served.sessions(), []);
    const args = { to: "carl@example.com", subject: "stateless" };
    const approval = (await client.callTool({ name: "send_email", arguments: args }))._meta[APPROVAL_META];
    const done = await client.callTool({ name: "send_email", arguments: args, _meta: { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) } });
    assert.equal(done.isError, undefined, JSON.stringify(done));
  } finally {
    await client.close();
    await served.close();
    await gateway.close();
  }
});

test("bad options are refused by name; the event store replays a stream's events after the last one seen, bounded", async () => {
  const gateway = await gatewayOn(new MemoryStore());
  try {
    await assert.rejects(serveMcpGateway(gateway, { prot: 80 }), (error) => error.code === "invalid_input" && /did you mean `port`/.test(error.message));
    await assert.rejects(serveMcpGateway(gateway, { port: -1 }), { code: "invalid_input", path: "options.port" });
    await assert.rejects(serveMcpGateway(gateway, { path: "mcp" }), { code: "invalid_input", path: "options.path" });
    await assert.rejects(serveMcpGateway({}, {}), { code: "invalid_input", path: "gateway" });
    // Every interface needs the Host names it answers; on loopback another Host header is refused.
    await assert.rejects(serveMcpGateway(gateway, { host: "0.0.0.0" }), { code: "invalid_input", path: "options.allowedHosts" });
    const served = await serveMcpGateway(gateway);
    try {
      // A page elsewhere whose name now points here (DNS rebinding): its Host header is its own name.
      const rebound = await new Promise((resolve, reject) => {
        const sent = httpRequest(served.url, { method: "POST", headers: { host: "evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" } }, (response) => {
          response.resume();
          resolve(response.statusCode);
        });
        sent.on("error", reject);
        sent.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } }));
      });
      assert.equal(rebound, 403);
      assert.deepEqual(served.sessions(), [], "nothing kept for a refused request");
      const notInitialize = await fetch(served.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
      assert.equal(notInitialize.status, 400);
      assert.deepEqual(served.sessions(), []);
    } finally {
      await served.close();
    }
  } finally {
    await gateway.close();
  }
  const events = memoryEventStore(3);
  const first = await events.storeEvent("a", { n: 1 });
  await events.storeEvent("b", { n: 2 });
  await events.storeEvent("a", { n: 3 });
  const replayed = [];
  assert.equal(await events.replayEventsAfter(first, { send: async (_id, message) => replayed.push(message.n) }), "a");
  assert.deepEqual(replayed, [3]);
  await events.storeEvent("a", { n: 4 });
  assert.equal(await events.replayEventsAfter(first, { send: async () => {} }), "", "forgotten beyond the bound");
});
