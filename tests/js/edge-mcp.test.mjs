// The MCP gateway inside the edge guard (workerd): the SDK's client calls `POST /v1/mcp` with the agent's
// token; the upstream is the sample MCP server over Streamable HTTP. A governed tools/call becomes an approval
// in the inbox, which a person signs as any other; the call with its requestState is then applied once by
// the inbox's Executor, with its receipt in the inbox's chain. A replay, altered arguments, a foreign
// requestState and a restart of the guard run nothing more.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { AGENT, INBOX, approve, registerEd25519, startGuardService } from "./edge-service-support.mjs";
import { startSampleServer } from "./support/mcp-sample-server.mjs";

const sentLog = join(mkdtempSync(join(tmpdir(), "edge-mcp-")), "sent.log");
const lines = (path) => (existsSync(path) ? readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []);
const sent = () => lines(sentLog);
/** The idempotency key each call the upstream received carried (`_meta`), in order. */
const keysSent = () => lines(`${sentLog}.keys`);
const email = { to: "bob@example.com", subject: "Q3" };
const OTHER_AGENT = "other-agent-token";
const vars = () => ({ MCP_UPSTREAM_URL: upstream.url, MCP_WHITELIST: "lookup", INBOX_URL: "https://inbox.example/inbox.html", AGENT_TOKENS: `${AGENT},other-agent=${OTHER_AGENT}` });
let upstream;
let board;
let guard;
let key;

before(async () => {
  // With sessions, as a real upstream keeps them: `upstream.restart()` forgets them all.
  upstream = await startSampleServer(sentLog, { stateful: true });
  board = await startTaskBoard();
  guard = await startGuardService(board, { vars: vars() });
  key = await registerEd25519(guard.client, "ivy", "laptop");
});

after(async () => {
  await guard?.dispose();
  await board?.close();
  await upstream?.close();
});

async function agentClient(token = AGENT) {
  const client = new Client({ name: "agent", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${guard.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const call = (client, args = email, meta) => client.callTool({ name: "send_email", arguments: args, ...(meta ? { _meta: meta } : {}) });

test("tools/list passes through; a governed call becomes an approval in the inbox and calls nothing", async () => {
  const client = await agentClient();
  try {
    assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), ["lookup", "send_email"]);
    assert.equal((await client.callTool({ name: "lookup", arguments: { word: "quorum" } })).content[0].text, "quorum: found");
    const asked = await call(client);
    assert.equal(asked.isError, true);
    const approval = asked._meta["agent-governor/approval"];
    assert.deepEqual(approval.lines, ['Execute: tool send_email with {"subject":"Q3","to":"bob@example.com"}', "Impact: send_email"]);
    assert.equal(approval.url, `https://inbox.example/inbox.html#approval-${approval.approvalId}`);
    const view = (await guard.client.get(`/v1/approvals/${approval.approvalId}`)).body;
    assert.equal(view.state, "pending");
    assert.deepEqual(view.proposed_change, { type: "tool_call", from: "", to: '{"subject":"Q3","to":"bob@example.com"}' });
    // Still pending: asking again with its request state calls nothing.
    assert.match((await call(client, email, { requestState: approval.requestState })).content[0].text, /must approve/);
    assert.deepEqual(sent(), []);
  } finally {
    await client.close();
  }
});

test("once a person signs it in the inbox, the call runs once with its receipt; a replay, other arguments and a restart run nothing", async () => {
  const client = await agentClient();
  try {
    const approval = (await call(client))._meta["agent-governor/approval"];
    const view = (await guard.client.get(`/v1/approvals/${approval.approvalId}`)).body;
    const decided = await approve(guard.client, view, key);
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const altered = await call(client, { ...email, to: "eve@example.com" }, { requestState: approval.requestState });
    assert.match(altered.content[0].text, /names another call/);
    // Another agent's token cannot use it.
    const other = await agentClient(OTHER_AGENT);
    try {
      assert.match((await call(other, email, { requestState: approval.requestState })).content[0].text, /another agent asked for/);
    } finally {
      await other.close();
    }
    const done = await call(client, email, { requestState: approval.requestState });
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.equal(done.content[0].text, "sent to bob@example.com");
    assert.equal(done._meta["agent-governor/receipt"].outcome, "applied");
    assert.deepEqual(sent(), [email]);
    const replay = await call(client, email, { requestState: approval.requestState });
    assert.match(replay.content[0].text, /ran once already with this approval/);
    assert.equal(replay._meta["agent-governor/ran"], "ran");
    assert.equal(done._meta["agent-governor/ran"], "ran");
    assert.equal((await guard.client.get(`/v1/approvals/${approval.approvalId}`)).body.state, "consumed");
    for (const requestState of ["ag1.no-such-approval", "nonsense", 42]) {
      assert.match((await call(client, email, { requestState })).content[0].text, /unknown or malformed/);
    }
    // The guard restarts on its stored state: the replay is still refused.
    await client.close();
    await guard.kill();
    guard = await startGuardService(board, { persistTo: guard.persistTo, vars: vars() });
    const restarted = await agentClient();
    try {
      assert.match((await call(restarted, email, { requestState: approval.requestState })).content[0].text, /ran once already with this approval/);
    } finally {
      await restarted.close();
    }
    assert.deepEqual(sent(), [email]);
  } finally {
    await client.close();
  }
});

test("bad input: an unknown tool or oversized arguments are protocol errors; no token is 401", async () => {
  const client = await agentClient();
  try {
    await assert.rejects(client.callTool({ name: "rm_rf", arguments: {} }), (error) => error.code === -32602 && error.message === 'MCP error -32602: unknown tool "rm_rf"');
    await assert.rejects(call(client, { to: "x".repeat(70_000), subject: "" }));
    // Within the body limit, over what the inbox shows: the caller's error (invalid params), nothing proposed.
    await assert.rejects(call(client, { to: "x".repeat(20_000), subject: "" }), (error) => error.code === -32602);
    assert.deepEqual(sent(), [email], "only the approved call ever ran");
  } finally {
    await client.close();
  }
  // A duplicate key is refused by the core's reader, as in every other body here.
  const duplicate = await fetch(`${guard.url}/v1/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${AGENT}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_email","arguments":{"to":"a","to":"evil","subject":"s"}}}',
  });
  assert.equal(duplicate.status, 400);
  assert.equal((await duplicate.json()).error.code, -32700);
  const anonymous = await fetch(`${guard.url}/v1/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
  assert.equal(anonymous.status, 401);
});

test("a tool call proposed directly is exactly the core's change for its arguments, or refused", async () => {
  const propose = (proposed_change, node_id = "send_email") => guard.client.post("/v1/proposals", { node_id, proposed_change, intent: "tool call direct-1" }, AGENT);
  const canonical = '{"subject":"Q3","to":"bob@example.com"}';
  for (const [change, node] of [
    [{ type: "tool_call", from: "", to: "not json at all" }],
    [{ type: "tool_call", from: "", to: '{"to":"bob@example.com","subject":"Q3"}' }],
    [{ type: "tool_call", from: "dry run only", to: canonical }],
    [{ type: "tool_call", from: "", to: "[1,2]" }],
    [{ type: "tool_call", from: "", to: canonical }, "send email"],
  ]) {
    const answer = await propose(change, node);
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body.code, "invalid_input");
  }
  assert.equal((await propose({ type: "tool_call", from: "", to: canonical })).status, 201);
});

test("an agent's identical retries join one approval, counted; once signed, the next retry runs it once with its idempotency key", async () => {
  const client = await agentClient();
  const retried = { to: "dan@example.com", subject: "retries" };
  try {
    const asked = [];
    for (let attempt = 0; attempt < 3; attempt++) asked.push((await call(client, retried))._meta["agent-governor/approval"]);
    assert.equal(new Set(asked.map((approval) => approval.approvalId)).size, 1, "one approval for three identical calls");
    const view = (await guard.client.get(`/v1/approvals/${asked[0].approvalId}`)).body;
    assert.equal(view.asks, 3);
    // Another agent's identical call is its own approval.
    const other = await agentClient(OTHER_AGENT);
    try {
      assert.notEqual((await call(other, retried))._meta["agent-governor/approval"].approvalId, asked[0].approvalId);
    } finally {
      await other.close();
    }
    const before = sent().length;
    assert.equal((await approve(guard.client, view, key)).status, 200);
    // The agent retries once more, still without its request state: the signed approval runs, once.
    const done = await call(client, retried);
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.equal(done.content[0].text, "sent to dan@example.com");
    assert.equal(sent().length, before + 1);
    assert.match(keysSent().at(-1), /^[0-9a-f]{64}$/, "the upstream got the action's idempotency key");
    // Used: the next identical call is a new call, for a new approval.
    const next = (await call(client, retried))._meta["agent-governor/approval"];
    assert.notEqual(next.approvalId, asked[0].approvalId);
    assert.equal(sent().length, before + 1);
    // The person deciding on it is told the same call already ran, by which approval, with its receipt.
    const nextView = (await guard.client.get(`/v1/approvals/${next.approvalId}`)).body;
    assert.equal(nextView.ran_before.approval_id, asked[0].approvalId);
    assert.equal(nextView.ran_before.seq, done._meta["agent-governor/receipt"].seq);
    assert.equal(nextView.ran_before.at_ms, Date.parse(done._meta["agent-governor/receipt"].at), "the receipt's time, read by the core");
    assert.equal(nextView.asks, 1);
  } finally {
    await client.close();
  }
});

test("an upstream that restarted and forgot the session is connected to again; the signed call runs once", async () => {
  const client = await agentClient();
  const after = { to: "erin@example.com", subject: "after a restart" };
  try {
    const approval = (await call(client, after))._meta["agent-governor/approval"];
    const view = (await guard.client.get(`/v1/approvals/${approval.approvalId}`)).body;
    assert.equal((await approve(guard.client, view, key)).status, 200);
    const before = sent().length;
    upstream.restart();
    const done = await call(client, after, { requestState: approval.requestState });
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.equal(done.content[0].text, "sent to erin@example.com");
    assert.equal(sent().length, before + 1);
    // tools/list after another restart works too.
    upstream.restart();
    assert.ok((await client.listTools()).tools.some((tool) => tool.name === "send_email"));
  } finally {
    await client.close();
  }
});

test("a person edits a governed call's arguments before approving: checked against the tool's schema, the edit runs once, and the agent is told what ran", async () => {
  const client = await agentClient();
  const asked = { to: "mallory@example.com", subject: "edit me" };
  try {
    const approval = (await call(client, asked))._meta["agent-governor/approval"];
    const id = approval.approvalId;
    // What the inbox's form is drawn from: the tool's input schema as the upstream lists it now, and the arguments.
    const options = await guard.client.get(`/v1/approvals/${id}/edit`);
    assert.equal(options.status, 200, JSON.stringify(options.body));
    assert.equal(options.body.tool, "send_email");
    assert.deepEqual(options.body.arguments, asked);
    assert.equal(options.body.input_schema.properties.to.type, "string");
    // Refused, each with its reason, nothing drafted.
    const edit = (body) => guard.client.post(`/v1/approvals/${id}/edit`, body, INBOX);
    const refusals = [
      [{ arguments: { to: 5, subject: "x" } }, 422, "invalid_arguments"],
      [{ arguments: { subject: "no recipient" } }, 422, "invalid_arguments"],
      [{ arguments: asked }, 422, "unchanged"],
      [{ arguments_json: '{"to":"a@example.com","to":"evil@example.com","subject":"s"}' }, 400, "invalid_input"],
      [{ arguments_json: "[1]" }, 400, "invalid_input"],
      [{ arguments: { to: "a@example.com", subject: "s" }, arguments_json: "{}" }, 400, "invalid_input"],
      [{ to: "done" }, 400, "invalid_input"],
      [{ arguments: { to: "a@example.com", subject: "s".repeat(17_000) } }, 413, "payload_too_large"],
    ];
    for (const [body, status, code] of refusals) {
      const answer = await edit(body);
      assert.equal(answer.status, status, `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, code);
    }
    // The edit: a new approval whose lines the guard renders from the edited arguments (read by the core from JSON text).
    const drafted = await edit({ arguments_json: '{ "subject": "edited", "to": "carol@example.com" }' });
    assert.equal(drafted.status, 201, JSON.stringify(drafted.body));
    assert.equal(drafted.body.request.what, 'Execute: tool send_email with {"subject":"edited","to":"carol@example.com"}');
    assert.equal(drafted.body.edits, id);
    // Until a person approves the edit, the client's call still waits.
    assert.match((await call(client, asked, { requestState: approval.requestState })).content[0].text, /must approve/);
    const before = sent().length;
    assert.equal((await approve(guard.client, drafted.body, key)).status, 200);
    assert.equal((await guard.client.get(`/v1/approvals/${id}`)).body.state, "edited");
    // The client calls again as it asked: the edited call runs, once, and the answer says so first.
    const done = await call(client, asked, { requestState: approval.requestState });
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.match(done.content[0].text, /^A person edited the arguments before approving; this ran with \{"subject":"edited","to":"carol@example.com"\} instead of/);
    assert.equal(done.content[1].text, "sent to carol@example.com");
    assert.deepEqual(done._meta["agent-governor/edited"].arguments, { subject: "edited", to: "carol@example.com" });
    assert.deepEqual(sent().slice(before), [{ to: "carol@example.com", subject: "edited" }], "exactly the edited call ran, once");
    // Again, with either request state or none: nothing more runs.
    const again = await call(client, asked, { requestState: approval.requestState });
    assert.equal(again._meta["agent-governor/ran"], "ran");
    assert.equal((await call(client, asked, { requestState: `ag1.${drafted.body.approval_id}` }))._meta["agent-governor/ran"], "ran");
    assert.equal(sent().length, before + 1);
    // The audit keeps the proposal and the edit.
    const audit = (await guard.client.get(`/v1/audit?approval_id=${drafted.body.approval_id}`)).body.records.map((record) => record.event);
    assert.ok(audit.includes("edit_proposed") && audit.includes("apply"), audit.join(", "));
  } finally {
    await client.close();
  }
});

test("everything but a governed call passes through the edge gateway: resources, prompts, logging, progress and pings, with the upstream's capabilities", async () => {
  const client = await agentClient();
  const logs = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => logs.push(notification.params.data));
  try {
    assert.ok(client.getServerCapabilities().logging && client.getServerCapabilities().resources && client.getServerCapabilities().prompts, JSON.stringify(client.getServerCapabilities()));
    assert.deepEqual((await client.listResources()).resources.map((resource) => resource.uri), ["mail://signature"]);
    assert.equal((await client.readResource({ uri: "mail://signature" })).contents[0].text, "-- the sample mail server");
    assert.deepEqual((await client.listPrompts()).prompts.map((prompt) => prompt.name), ["compose"]);
    assert.equal((await client.getPrompt({ name: "compose", arguments: { to: "ann" } })).messages[0].content.text, "Write to ann");
    assert.deepEqual(await client.setLoggingLevel("info"), {});
    assert.deepEqual(await client.ping(), {});
    // A whitelisted call: its progress under the client's own token and its log, on the call's stream.
    const progress = [];
    const answer = await client.callTool({ name: "lookup", arguments: { word: "relay" } }, undefined, { onprogress: (step) => progress.push(step.progress) });
    assert.equal(answer.content[0].text, "relay: found");
    assert.deepEqual(progress, [1]);
    assert.ok(logs.includes("looking up relay"), JSON.stringify(logs));
    // An upstream's error comes back with its code and words.
    await assert.rejects(client.getPrompt({ name: "nobody" }), (error) => error.code === -32602 && /nobody/.test(error.message));
  } finally {
    await client.close();
  }
});
