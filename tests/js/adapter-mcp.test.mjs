// agent-governor/mcp, the gateway, with the real MCP SDK (1.32) on both sides: the SDK's Client, a sample
// upstream server over stdio and over Streamable HTTP, the gateway served over Streamable HTTP (in this
// process) and over stdio (its own process, restarted). tools/list passes through; a governed tools/call is
// forwarded once, only with a signed confirmation of that tool and those arguments; a replayed requestState,
// altered arguments and a restart are handled as the Executor handles them; every outcome has a receipt.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ElicitationCompleteNotificationSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { MemoryStore, issueConfirmation, verifyReceipts } from "agent-governor";
import { APPROVAL_META, CONFIRMATION_META, RECEIPT_META, REQUEST_STATE_META, SETTLE_ERROR_META, createMcpGateway } from "agent-governor/mcp";
import { fileStore } from "./support/file-store.mjs";
import { KEYS } from "./support/mcp-gateway-run.mjs";
import { startSampleServer } from "./support/mcp-sample-server.mjs";

const signer = { keyId: "approver", secret: KEYS.approver };
const directory = mkdtempSync(join(tmpdir(), "mcp-gateway-"));
const email = { to: "bob@example.com", subject: "Q3" };
const support = (name) => new URL(`./support/${name}`, import.meta.url).pathname;
const sentIn = (log) => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []);

let receiptPair;
before(async () => {
  receiptPair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
});
const receiptKey = () => ({ keyId: "gateway", privateKey: receiptPair.privateKey });
const receiptPublicKey = async () => ({ type: "ed25519", public_key: (await crypto.subtle.exportKey("jwk", receiptPair.publicKey)).x });

/** The gateway over an upstream stdio sample server, served over Streamable HTTP (one server per session). */
async function httpGateway({ store = new MemoryStore(), approvalUrl } = {}) {
  const sentLog = join(directory, `sent-${randomUUID()}.log`);
  const upstream = new Client({ name: "gateway-upstream", version: "1" });
  await upstream.connect(new StdioClientTransport({ command: process.execPath, args: [support("mcp-sample-server.mjs"), "stdio"], env: { ...process.env, SENT_LOG: sentLog } }));
  const gateway = await createMcpGateway({ upstream, store, keys: KEYS, whitelist: ["lookup"], receiptKey: receiptKey(), approvalUrl });
  const transports = new Map();
  const http = createServer(async (request, response) => {
    // The host's authentication, as the SDK's auth middleware leaves it: the client a bearer token names.
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1];
    if (bearer !== undefined) request.auth = { token: bearer, clientId: bearer, scopes: [] };
    const id = request.headers["mcp-session-id"];
    let transport = id ? transports.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sessionId) => transports.set(sessionId, transport) });
      await gateway.createServer().connect(transport);
    }
    await transport.handleRequest(request, response);
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  const url = new URL(`http://127.0.0.1:${http.address().port}/mcp`);
  const clients = [];
  return {
    gateway,
    upstream,
    store,
    sent: () => sentIn(sentLog),
    async client(capabilities = {}, token) {
      const client = new Client({ name: "test-client", version: "1" }, { capabilities });
      await client.connect(new StreamableHTTPClientTransport(url, token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined));
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      await upstream.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

const call = (client, args = email, meta) => client.callTool({ name: "send_email", arguments: args, ...(meta ? { _meta: meta } : {}) });

test("tools/list passes through; a governed call without approval answers with the pending approval and calls nothing", async () => {
  const setup = await httpGateway();
  try {
    const client = await setup.client();
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ["lookup", "send_email"]);
    assert.equal((await client.callTool({ name: "lookup", arguments: { word: "quorum" } })).content[0].text, "quorum: found");
    const first = await call(client);
    assert.equal(first.isError, true);
    const approval = first._meta[APPROVAL_META];
    assert.deepEqual(approval.lines, ['Execute: tool send_email with {"subject":"Q3","to":"bob@example.com"}', "Impact: send_email"]);
    assert.match(approval.requestState, /^ag1\./);
    assert.match(first.content[0].text, /A person must approve this call/);
    // Asking again with the same arguments names the same pending approval, not a second one.
    assert.equal((await call(client))._meta[APPROVAL_META].callId, approval.callId);
    assert.deepEqual(setup.sent(), []);
  } finally {
    await setup.close();
  }
});

test("with the requestState and a signed confirmation the call is forwarded once, with a receipt; a replay or a second signature answers its result, altered arguments nothing", async () => {
  const setup = await httpGateway();
  try {
    const client = await setup.client();
    const approval = (await call(client))._meta[APPROVAL_META];
    const confirmation = issueConfirmation(approval.draft, signer);
    const meta = { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: confirmation };
    const done = await call(client, email, meta);
    assert.equal(done.isError, undefined);
    assert.equal(done.content[0].text, "sent to bob@example.com");
    assert.equal(done._meta[RECEIPT_META].outcome, "applied");
    assert.equal(done._meta[RECEIPT_META].approver, "approver");
    assert.deepEqual(setup.sent(), [email]);

    // Replayed: the call ran; the first result answers, nothing is called again, so nothing is receipted.
    const replay = await call(client, email, meta);
    assert.equal(replay.isError, undefined);
    assert.equal(replay.content[0].text, "sent to bob@example.com");
    // A second person's signature of the same pending call: the same.
    const twice = await call(client, email, { ...meta, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) });
    assert.equal(twice.content[0].text, "sent to bob@example.com");
    const altered = await call(client, { ...email, to: "eve@example.com" }, meta);
    assert.match(altered.content[0].text, /the arguments must be the approved ones/);
    // The next identical call is a new call, for a new approval.
    assert.notEqual((await call(client))._meta[APPROVAL_META].callId, approval.callId);
    assert.deepEqual(setup.sent(), [email]);

    const receipts = await setup.gateway.receipts();
    assert.deepEqual(receipts.map((receipt) => receipt.outcome), ["applied"]);
    assert.equal(verifyReceipts(receipts, await receiptPublicKey()).verdict, "valid");
  } finally {
    await setup.close();
  }
});

test("URL-mode elicitation: the client is sent to the approval page; once a person approves, the same call runs once", async () => {
  const setup = await httpGateway({ approvalUrl: (callId) => `https://inbox.example/approvals/${callId}` });
  try {
    const client = await setup.client({ elicitation: { url: {} } });
    const completed = [];
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => completed.push(notification.params.elicitationId));
    const refused = await call(client).catch((error) => error);
    assert.ok(refused instanceof McpError && refused.code === ErrorCode.UrlElicitationRequired, String(refused));
    const [elicitation] = refused.data.elicitations;
    assert.equal(elicitation.mode, "url");
    assert.equal(elicitation.url, `https://inbox.example/approvals/${elicitation.elicitationId}`);
    assert.match(elicitation.message, /^Execute: tool send_email/);
    const pending = await setup.gateway.pending(elicitation.elicitationId);
    await assert.rejects(setup.gateway.approve(elicitation.elicitationId, issueConfirmation(setup.gateway.governed.draft({ tool: "send_email", arguments: { ...email, to: "eve@example.com" }, callId: elicitation.elicitationId }), signer)), { code: "not_approved" });
    await setup.gateway.approve(elicitation.elicitationId, issueConfirmation(pending.draft, signer));
    for (let wait = 0; completed.length === 0 && wait < 50; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(completed, [elicitation.elicitationId]);
    assert.equal((await call(client)).content[0].text, "sent to bob@example.com");
    assert.deepEqual(setup.sent(), [email]);
    // The same call again is a new one: the page is asked for again, nothing runs.
    assert.equal((await call(client).catch((error) => error)).code, ErrorCode.UrlElicitationRequired);
    assert.deepEqual(setup.sent(), [email]);
  } finally {
    await setup.close();
  }
});

test("the gateway over stdio, restarted between the request and the approved call: runs once; a replay or a new signature after another restart runs nothing", async () => {
  const sentLog = join(directory, "stdio-sent.log");
  const upstream = await startSampleServer(sentLog);
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey("pkcs8", receiptPair.privateKey)).toString("base64url");
  const env = { ...process.env, UPSTREAM_URL: upstream.url, STORE_PATH: join(directory, "stdio-store.json"), RECEIPT_KEY: pkcs8 };
  const session = async (work) => {
    const client = new Client({ name: "desktop-app", version: "1" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [support("mcp-gateway-run.mjs")], env }));
    try {
      return await work(client);
    } finally {
      await client.close();
    }
  };
  try {
    const approval = await session(async (client) => (await call(client))._meta[APPROVAL_META]);
    const meta = { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) };
    const done = await session((client) => call(client, email, meta));
    assert.equal(done.content[0].text, "sent to bob@example.com");
    const replay = await session((client) => call(client, email, meta));
    assert.equal(replay.content[0].text, "sent to bob@example.com", "the first result, from the store");
    // Approved again with a new signature, after another restart: nothing more is sent.
    const resigned = await session((client) => call(client, email, { ...meta, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) }));
    assert.equal(resigned.content[0].text, "sent to bob@example.com");
    assert.deepEqual(sentIn(sentLog), [email]);
  } finally {
    await upstream.close();
  }
});

test("bad input: unknown tools, oversized or malformed arguments, a forged requestState, a forged or expired confirmation call nothing", async () => {
  const setup = await httpGateway({ store: fileStore(join(directory, "bad-input-store.json")) });
  try {
    const client = await setup.client();
    // Said once: one "MCP error -32602: " before the gateway's words, not two.
    await assert.rejects(client.callTool({ name: "rm_rf", arguments: {} }), (error) => error.code === ErrorCode.InvalidParams && error.message === 'MCP error -32602: unknown tool "rm_rf"');
    await assert.rejects(call(client, { to: "x".repeat(1_100_000), subject: "" }), (error) => error.code === ErrorCode.InvalidParams);
    for (const state of ["ag1.no-such-call", "not-a-state", 42, "ag1." + "x".repeat(300)]) {
      const answer = await call(client, email, { [REQUEST_STATE_META]: state, [CONFIRMATION_META]: {} });
      assert.match(answer.content[0].text, /requestState is unknown or malformed/);
    }
    const approval = (await call(client))._meta[APPROVAL_META];
    const expired = issueConfirmation(approval.draft, signer, Date.now() - 25 * 3600 * 1000);
    for (const confirmation of [{}, "yes", { ...issueConfirmation(approval.draft, signer), signature: "AAAA" }, issueConfirmation({ ...approval.draft, intent: "tool call other" }, signer), expired]) {
      const answer = await call(client, email, { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: confirmation });
      assert.equal(answer.isError, true);
      assert.match(answer.content[0].text, /was not called/);
    }
    assert.deepEqual(setup.sent(), []);
    await assert.rejects(createMcpGateway({ upstream: {}, store: new MemoryStore(), keys: KEYS, receiptKey: receiptKey() }), { code: "invalid_input", path: "options.upstream" });
    await assert.rejects(setup.gateway.approve("no-such-call", {}), { code: "not_found" });
  } finally {
    await setup.close();
  }
});

test("URL mode: an approval is for the connection that asked; another sending the same call gets its own request", async () => {
  const setup = await httpGateway({ approvalUrl: (callId) => `https://inbox.example/approvals/${callId}` });
  try {
    const alice = await setup.client({ elicitation: { url: {} } });
    const mallory = await setup.client({ elicitation: { url: {} } });
    const asked = (await call(alice).catch((error) => error)).data.elicitations[0];
    await setup.gateway.approve(asked.elicitationId, issueConfirmation((await setup.gateway.pending(asked.elicitationId)).draft, signer));
    const riding = await call(mallory).catch((error) => error);
    assert.equal(riding.code, ErrorCode.UrlElicitationRequired);
    assert.notEqual(riding.data.elicitations[0].elicitationId, asked.elicitationId);
    assert.deepEqual(setup.sent(), []);
    assert.equal((await call(alice)).content[0].text, "sent to bob@example.com");
    assert.deepEqual(setup.sent(), [email]);
  } finally {
    await setup.close();
  }
});

test("two gateways over one store: each approved call runs once and the receipt chain stays whole", async () => {
  const store = new MemoryStore();
  const first = await httpGateway({ store });
  const second = await httpGateway({ store });
  try {
    const [a, b] = [await first.client(), await second.client()];
    const results = [];
    for (let round = 0; round < 3; round += 1) {
      const approval = (await call(a))._meta[APPROVAL_META];
      const meta = { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) };
      results.push(...(await Promise.all([call(a, email, meta), call(b, email, meta)])));
    }
    // One run per call: the other gateway's answer is refused while it runs, or is its result afterwards
    // (a repeated answer, with no receipt of its own).
    const applied = results.filter((result) => result._meta?.[RECEIPT_META]?.outcome === "applied");
    assert.equal(applied.length, 3);
    assert.ok(results.filter((result) => !result.isError).every((result) => result.content[0].text === "sent to bob@example.com"));
    assert.equal(first.sent().length + second.sent().length, 3);
    // Every receipt either gateway made is in one chain (a refusal the Executor made is receipted too).
    const receipts = await first.gateway.receipts();
    assert.equal(receipts.length, results.filter((result) => result._meta?.[RECEIPT_META]).length);
    assert.equal(verifyReceipts(receipts, await receiptPublicKey()).verdict, "valid");
  } finally {
    await first.close();
    await second.close();
  }
});

test("a receipt key that cannot sign is refused when the gateway is made, before any call", async () => {
  const upstream = { listTools: async () => ({ tools: [] }), callTool: async () => ({ content: [] }) };
  const { publicKey } = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  await assert.rejects(createMcpGateway({ upstream, store: new MemoryStore(), keys: KEYS, receiptKey: { keyId: "g", privateKey: publicKey } }), { code: "invalid_key", path: "options.receiptKey" });
});

test("a requestState with another prefix before a real call id names nothing", async () => {
  const setup = await httpGateway();
  try {
    const client = await setup.client();
    const approval = (await call(client))._meta[APPROVAL_META];
    const confirmation = issueConfirmation(approval.draft, signer);
    for (const requestState of [`zz9.${approval.callId}`, `xag1.${approval.callId}`, `AG1.${approval.callId}`, approval.callId]) {
      const answer = await call(client, email, { [REQUEST_STATE_META]: requestState, [CONFIRMATION_META]: confirmation });
      assert.match(answer.content[0].text, /requestState is unknown or malformed/, requestState);
    }
    assert.deepEqual(setup.sent(), []);
  } finally {
    await setup.close();
  }
});

test("approved twice by a person (two signatures of one pending call): the call runs once, both answers carry its result", async () => {
  const setup = await httpGateway();
  try {
    const client = await setup.client();
    const approval = (await call(client))._meta[APPROVAL_META];
    await setup.gateway.approve(approval.callId, issueConfirmation(approval.draft, signer));
    const done = await call(client, email, { [REQUEST_STATE_META]: approval.requestState });
    assert.equal(done.content[0].text, "sent to bob@example.com");
    // A second approval of the same pending call is accepted, and the old requestState runs nothing more.
    await setup.gateway.approve(approval.callId, issueConfirmation(approval.draft, signer));
    const again = await call(client, email, { [REQUEST_STATE_META]: approval.requestState });
    assert.equal(again.isError, undefined, JSON.stringify(again));
    assert.equal(again.content[0].text, "sent to bob@example.com");
    assert.deepEqual(again._meta[RECEIPT_META], done._meta[RECEIPT_META], "the first run's receipt");
    assert.deepEqual(setup.sent(), [email]);
    assert.deepEqual((await setup.gateway.receipts()).map((receipt) => receipt.outcome), ["applied"]);
  } finally {
    await setup.close();
  }
});

test("a store that fails to settle a call after the upstream ran never turns it into 'not called'", async () => {
  const inner = new MemoryStore();
  let failSettles = false;
  const store = {
    get: (key) => inner.get(key),
    put: (key, value) => {
      if (failSettles && key.startsWith("mcp-digest/")) throw new Error("disk full");
      return inner.put(key, value);
    },
    compareAndSwap: (key, expected, next) => inner.compareAndSwap(key, expected, next),
  };
  const setup = await httpGateway({ store });
  try {
    const client = await setup.client();
    const approval = (await call(client))._meta[APPROVAL_META];
    const meta = { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: issueConfirmation(approval.draft, signer) };
    failSettles = true;
    const done = await call(client, email, meta);
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.equal(done.content[0].text, "sent to bob@example.com");
    assert.match(done._meta[SETTLE_ERROR_META], /disk full/);
    // Asked again: the call ran, and says so; it is not run again.
    const again = await call(client, email, meta);
    assert.equal(again.content[0].text, "sent to bob@example.com");
    assert.equal(again._meta["agent-governor/ran"], "ran");
    assert.doesNotMatch(JSON.stringify(again), /not called|did not run/);
    assert.deepEqual(setup.sent(), [email]);
  } finally {
    await setup.close();
  }
});

test("a call that never reached the upstream (its connection is gone) is not run, and its approval stays usable", async () => {
  const setup = await httpGateway();
  try {
    const client = await setup.client();
    const approval = (await call(client))._meta[APPROVAL_META];
    const confirmation = issueConfirmation(approval.draft, signer);
    await setup.upstream.close();
    const refused = await call(client, email, { [REQUEST_STATE_META]: approval.requestState, [CONFIRMATION_META]: confirmation });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /did not run/);
    assert.equal(refused._meta["agent-governor/ran"], "not_run");
    assert.doesNotMatch(refused.content[0].text, /may have run/);
    const stored = JSON.parse(await setup.store.get(`confirmation/${confirmation.confirmation_id}`));
    assert.equal(stored.in_flight_at, null, "not in flight: nothing for a person to reconcile");
    assert.equal(stored.consumed, false);
  } finally {
    await setup.close();
  }
});

test("an authenticated client's identical retries over new connections join one pending call; another client's do not", async () => {
  const setup = await httpGateway();
  try {
    const ids = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const client = await setup.client({}, "agent-7");
      ids.push((await call(client))._meta[APPROVAL_META].callId);
    }
    assert.equal(new Set(ids).size, 1, "three identical retries, one approval");
    const other = await setup.client({}, "agent-8");
    assert.notEqual((await call(other))._meta[APPROVAL_META].callId, ids[0]);
    const anonymous = await setup.client();
    assert.notEqual((await call(anonymous))._meta[APPROVAL_META].callId, ids[0]);
    // Approved once: a retry from a new connection of the same client runs it, once.
    await setup.gateway.approve(ids[0], issueConfirmation((await setup.gateway.pending(ids[0])).draft, signer));
    const done = await call(await setup.client({}, "agent-7"));
    assert.equal(done.content[0].text, "sent to bob@example.com");
    assert.deepEqual(setup.sent(), [email]);
  } finally {
    await setup.close();
  }
});
