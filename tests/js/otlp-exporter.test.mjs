// The OTLP exporter of the control loop's telemetry, against a local OTLP/HTTP JSON receiver (node:http on
// 127.0.0.1): a real loop's records become `invoke_agent` task spans parenting `execute_tool` spans, with the
// approvals as events; a receiver that is slow, down, refusing or failing never holds the loop back, and
// everything not sent is counted; options are checked with typed errors.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { test } from "node:test";
import { createControlLoop, createOtlpExporter, otelLogRecord } from "agent-governor";

const packageVersion = createRequire(import.meta.url)("agent-governor/package.json").version;

/**
 * An OTLP/HTTP JSON receiver for test `t` (closed after it, pass or fail): `answer(request)` returns
 * `[status, body]`, or null to never answer.
 */
async function startReceiver(t, answer = () => [200, "{}"]) {
  const requests = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const received = { method: request.method, url: request.url, headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
      requests.push(received);
      const reply = answer(received);
      if (reply === null) return;
      response.writeHead(reply[0], { "content-type": "application/json" });
      response.end(reply[1]);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  let closing = null;
  const receiver = {
    endpoint: `http://127.0.0.1:${server.address().port}/v1/traces`,
    requests,
    spans: () => requests.flatMap((request) => request.body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))),
    close() {
      closing ??= new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      });
      return closing;
    },
  };
  t.after(() => receiver.close());
  return receiver;
}

/** An OTLP attribute list as a plain object of its values. */
const valuesOf = (attributes) => Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));
const HEX_32 = /^[0-9a-f]{32}$/;
const HEX_16 = /^[0-9a-f]{16}$/;
const NANOS = /^[1-9][0-9]{18}$/;

// ---- a real control loop, scripted ----
const NULLS = {
  reply: null, action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null,
  setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null,
};
const wait = () => ({ ...NULLS, decision: "wait" });
const move = (node) => ({
  ...NULLS, decision: "act", action_type: "status_change", summary: `move ${node} to done`, impact_scope: `ticket ${node}`,
  node_id: node, from: "review", to: "done",
});
const judgeFrom = (...answers) => () => ({ structuredOutput: answers.shift() ?? wait() });

/** A board skill whose Apply answers `board.status` (200 applies). */
function board() {
  const state = { status: 200 };
  state.skill = {
    preview: () => ({ current_status: "review" }),
    apply: () => ({ status: state.status, body: state.status === 200 ? { applied: true } : { error: "board down" } }),
  };
  return state;
}

/** A loop whose records go to `exporter`; a person approves the first `approvals` requests (then none). */
function governedLoop(exporter, { judge, approvals = 0, whitelist } = {}) {
  const requests = [];
  const tickets = board();
  const loop = createControlLoop({
    goal: "keep the board tidy",
    judge,
    skills: { status_change: tickets.skill },
    ...(whitelist ? { whitelist } : {}),
    approve: (request) => {
      requests.push(request);
      return requests.length <= approvals ? "y" : undefined;
    },
    telemetry: exporter.listener,
  });
  return { loop, requests, tickets };
}

test("a real loop's tasks arrive as invoke_agent spans parenting execute_tool spans, approvals as events", async (t) => {
  const receiver = await startReceiver(t);
  const exporter = createOtlpExporter({ endpoint: receiver.endpoint, serviceName: "board-agent", agentName: "board tidier", headers: { authorization: "Bearer t-1" } });
  const { loop, requests, tickets } = governedLoop(exporter, { judge: judgeFrom(move("T-1"), move("T-2")), approvals: 2 });
  loop.say("tidy the board");
  await loop.settled();
  await exporter.flush();
  // Spans are sent when they end: the action has, its task (waiting for more work) has not.
  assert.deepEqual(receiver.spans().map((span) => span.name), ["execute_tool status_change"]);
  tickets.status = 500;
  loop.say("now T-2");
  await loop.settled();
  await loop.stop();
  await exporter.shutdown();
  assert.deepEqual(exporter.stats(), { queued: 0, exported: 4, retried: 0, dropped: { queueFull: 0, exportFailed: 0, malformed: 0, afterShutdown: 0 } });

  for (const request of receiver.requests) {
    assert.equal(request.method, "POST");
    assert.equal(request.url, "/v1/traces");
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers.authorization, "Bearer t-1");
    const [resourceSpans] = request.body.resourceSpans;
    assert.deepEqual(resourceSpans.resource, { attributes: [{ key: "service.name", value: { stringValue: "board-agent" } }] });
    assert.deepEqual(resourceSpans.scopeSpans.map((scope) => scope.scope), [{ name: "agent-governor", version: packageVersion }]);
  }
  const spans = receiver.spans();
  const tasks = spans.filter((span) => span.name === "invoke_agent");
  const actions = spans.filter((span) => span.name === "execute_tool status_change");
  assert.equal(tasks.length, 2);
  assert.equal(actions.length, 2);
  for (const span of spans) {
    assert.match(span.traceId, HEX_32);
    assert.match(span.spanId, HEX_16);
    assert.equal(span.kind, 1);
    assert.match(span.startTimeUnixNano, NANOS);
    assert.match(span.endTimeUnixNano, NANOS);
    assert.ok(BigInt(span.startTimeUnixNano) <= BigInt(span.endTimeUnixNano));
  }
  assert.notEqual(tasks[0].traceId, tasks[1].traceId, "one trace per task");
  for (const [index, task] of tasks.entries()) {
    const action = actions[index];
    assert.equal(task.parentSpanId, undefined, "a task's span is a root");
    assert.equal(action.traceId, task.traceId);
    assert.equal(action.parentSpanId, task.spanId, "the action is a child of its task");
    assert.deepEqual(valuesOf(task.attributes), {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "board tidier",
      "agent_governor.task.end": index === 0 ? "superseded" : "stopped",
      "agent_governor.task.actions": "1",
    });
    const attributes = valuesOf(action.attributes);
    assert.equal(attributes["gen_ai.operation.name"], "execute_tool");
    assert.equal(attributes["gen_ai.tool.name"], "status_change");
    assert.equal(attributes["gen_ai.tool.call.id"], requests[index].actionId);
    assert.equal(attributes["agent_governor.event_summary"], `status_change on T-${index + 1}: review -> done`);
    // The approval: events on the task, naming the action; the action's span starts at the approval.
    const approvals = task.events.filter((event) => event.name === "agent_governor.approval" && valuesOf(event.attributes)["gen_ai.tool.call.id"] === requests[index].actionId);
    assert.deepEqual(approvals.map((event) => valuesOf(event.attributes)["agent_governor.event_summary"]), ["approval requested", "approved"]);
    // Who approved, the request they answered and the digest of what they approved.
    assert.deepEqual(valuesOf(approvals[1].attributes), {
      "agent_governor.event_summary": "approved",
      "agent_governor.cause": `status_change on T-${index + 1}: review -> done`,
      "agent_governor.impact_scope": `T-${index + 1}`,
      "agent_governor.change.digest": requests[index].digest,
      "agent_governor.approval.approved_by": "person",
      "agent_governor.approval.request_id": requests[index].requestId,
      "gen_ai.tool.name": "status_change",
      "gen_ai.tool.call.id": requests[index].actionId,
    });
    assert.equal(valuesOf(approvals[0].attributes)["agent_governor.approval.approved_by"], undefined, "not approved yet when requested");
    assert.equal(attributes["agent_governor.change.digest"], requests[index].digest);
    assert.equal(attributes["agent_governor.outcome"], index === 0 ? "succeeded" : "failed");
    assert.equal(action.startTimeUnixNano, approvals[1].timeUnixNano);
    assert.equal(valuesOf(task.events[0].attributes)["agent_governor.event_summary"], "human message");
  }
  assert.deepEqual(actions[0].status, { code: 0 }, "applied");
  assert.equal(actions[1].status.code, 2, "the failed Apply is an error");
  assert.match(actions[1].status.message, /T-2: review -> done failed/);
  assert.equal(valuesOf(tasks[1].events.at(-1).attributes)["agent_governor.event_summary"], "stopped");
  await receiver.close();
});

test("an action stays the child of the task it was approved in when a person's message starts another while it runs", async (t) => {
  const receiver = await startReceiver(t);
  const exporter = createOtlpExporter({ endpoint: receiver.endpoint });
  let applying = false;
  let finishApply;
  const applied = new Promise((resolve) => {
    finishApply = resolve;
  });
  const slowSkill = {
    preview: () => ({ current_status: "review" }),
    apply: async () => {
      applying = true;
      await applied;
      return { status: 200, body: { applied: true } };
    },
  };
  const loop = createControlLoop({ goal: "keep the board tidy", judge: judgeFrom(move("T-3")), skills: { status_change: slowSkill }, approve: () => "y", telemetry: exporter.listener });
  loop.say("move T-3");
  for (let turns = 0; !applying && turns < 500; turns += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(applying, "the Apply started");
  loop.say("what is taking so long?");
  finishApply();
  await loop.settled();
  await exporter.shutdown();
  const [first, action, second] = receiver.spans();
  assert.deepEqual([first.name, action.name, second.name], ["invoke_agent", "execute_tool status_change", "invoke_agent"]);
  assert.equal(valuesOf(first.attributes)["agent_governor.task.end"], "superseded");
  assert.equal(action.traceId, first.traceId);
  assert.equal(action.parentSpanId, first.spanId, "approved in the first task");
  assert.notEqual(second.traceId, first.traceId);
  assert.deepEqual(second.events.map((event) => valuesOf(event.attributes)["agent_governor.event_summary"]), ["human message"]);
  assert.equal(valuesOf(second.attributes)["agent_governor.task.end"], "unfinished");
});

test("a task that never ends is sent at shutdown, marked unfinished, with its actions as children", async (t) => {
  const receiver = await startReceiver(t);
  const exporter = createOtlpExporter({ endpoint: receiver.endpoint });
  // A whitelisted action runs with no approval asked; the task then waits for more work.
  const { loop } = governedLoop(exporter, { judge: judgeFrom(move("T-7")), whitelist: ["status_change"] });
  loop.observe({ external: { tickets: ["T-7"] } });
  await loop.settled();
  await exporter.flush();
  assert.deepEqual(receiver.spans().map((span) => span.name), ["execute_tool status_change"]);
  await exporter.shutdown();
  const [action, task] = receiver.spans();
  assert.equal(task.name, "invoke_agent");
  assert.equal(action.parentSpanId, task.spanId);
  assert.equal(action.traceId, task.traceId);
  const attributes = valuesOf(task.attributes);
  assert.equal(attributes["agent_governor.task.end"], "unfinished");
  assert.equal(attributes["gen_ai.agent.name"], "agent-governor", "the service name by default");
  assert.deepEqual(valuesOf(receiver.requests[0].body.resourceSpans[0].resource.attributes), { "service.name": "agent-governor" });
  // After shutdown nothing more is taken, and that is counted.
  exporter.record(otelLogRecord("chat", { event_summary: "late", cause: "c", impact_scope: "s" }, new Date().toISOString()));
  assert.equal(exporter.stats().dropped.afterShutdown, 1);
  assert.equal(exporter.shutdown(), exporter.shutdown(), "shutdown is once");
  await exporter.flush();
  assert.equal(receiver.spans().length, 2);
  await receiver.close();
});

/** `count` records of finished actions, as the loop makes them: one span each. */
function executionRecords(count) {
  const time = new Date().toISOString();
  return Array.from({ length: count }, (_, index) =>
    otelLogRecord("execution", { event_summary: `status_change on T-${index}`, cause: "applied", impact_scope: `T-${index}` }, time, { name: "status_change", callId: `a-${index}-boot` }),
  );
}

test("a receiver that never answers: 10,000 records return at once, the queue stays bounded, the loop is not held", async (t) => {
  const receiver = await startReceiver(t, () => null);
  // The exporter's own requests, counted as it makes them: never two at once.
  let inFlight = 0;
  let mostInFlight = 0;
  const counted = async (url, init) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      return await fetch(url, init);
    } finally {
      inFlight -= 1;
    }
  };
  const exporter = createOtlpExporter({ endpoint: receiver.endpoint, fetch: counted, maxQueue: 1000, maxBatch: 500, timeoutMs: 300 });
  const records = executionRecords(10_000);
  let microtaskRan = false;
  queueMicrotask(() => {
    microtaskRan = true;
  });
  const started = performance.now();
  const returned = records.map((record) => exporter.record(record));
  const elapsed = performance.now() - started;
  assert.equal(microtaskRan, false, "no record call awaited anything");
  assert.ok(returned.every((value) => value === undefined));
  console.log(`[otlp] 10,000 record calls in ${elapsed.toFixed(1)} ms`);
  assert.ok(elapsed < 5000, `${elapsed} ms`);
  // The newest span waits for the rest of its step (a microtask); every span beyond the bound is dropped.
  assert.deepEqual(exporter.stats(), { queued: 1001, exported: 0, retried: 0, dropped: { queueFull: 8999, exportFailed: 0, malformed: 0, afterShutdown: 0 } });

  // A loop whose exporter's request hangs still runs and settles.
  const silent = await startReceiver(t, () => null);
  const hanging = createOtlpExporter({ endpoint: silent.endpoint, maxBatch: 1, timeoutMs: 60_000 });
  const { loop } = governedLoop(hanging, { judge: judgeFrom(move("T-1"), move("T-2")), approvals: 2 });
  loop.say("tidy the board");
  await loop.settled({ timeoutMs: 5000 });
  loop.say("now T-2");
  await loop.settled({ timeoutMs: 5000 });
  assert.equal(loop.state().mode, "idle");
  assert.ok(hanging.stats().queued >= 1, "its spans are waiting behind the request in flight");

  // The first exporter's batches time out one after another, never two at once; every span is counted
  // (the 10,000 actions and their task's span, sent at shutdown).
  await exporter.shutdown();
  const { queued, exported, dropped } = exporter.stats();
  assert.deepEqual({ queued, exported }, { queued: 0, exported: 0 });
  assert.ok(dropped.exportFailed >= 1000, JSON.stringify(dropped));
  assert.equal(dropped.queueFull + dropped.exportFailed, 10_001);
  assert.equal(mostInFlight, 1, "one request in flight at a time");
  assert.ok(receiver.requests.length >= 2, "every batch was tried");
  await receiver.close();

  // The hanging request fails when its receiver goes away; the spans behind it are sent and refused: counted.
  await loop.stop();
  const stopping = hanging.shutdown();
  await silent.close();
  await stopping;
  assert.deepEqual(hanging.stats(), { queued: 0, exported: 0, retried: 0, dropped: { queueFull: 0, exportFailed: 4, malformed: 0, afterShutdown: 0 } });
});

test("a receiver answering 500 drops the batch and counts it; 503 is sent once more; a partial success counts the rejected", async (t) => {
  let answers = [];
  const receiver = await startReceiver(t, () => answers.shift() ?? [200, "{}"]);
  const exporter = createOtlpExporter({ endpoint: receiver.endpoint, maxBatch: 3 });
  answers = [[500, '{"message":"broken"}']];
  for (const record of executionRecords(5)) exporter.record(record);
  await exporter.flush();
  assert.equal(receiver.requests.length, 2, "two batches, no retry after 500");
  assert.deepEqual(receiver.requests.map((request) => request.body.resourceSpans[0].scopeSpans[0].spans.length), [3, 2]);
  assert.deepEqual(exporter.stats(), { queued: 0, exported: 2, retried: 0, dropped: { queueFull: 0, exportFailed: 3, malformed: 0, afterShutdown: 0 } });

  answers = [[503, "{}"]];
  exporter.record(executionRecords(1)[0]);
  await exporter.flush();
  assert.equal(receiver.requests.length, 4, "sent once more after 503");
  assert.deepEqual(receiver.requests[3].body, receiver.requests[2].body);
  assert.equal(exporter.stats().retried, 1);
  assert.equal(exporter.stats().exported, 3);

  answers = [[429, "{}"], [429, "{}"]];
  exporter.record(executionRecords(1)[0]);
  await exporter.flush();
  assert.equal(receiver.requests.length, 6, "one retry only");
  assert.equal(exporter.stats().dropped.exportFailed, 4);

  answers = [[200, '{"partialSuccess":{"rejectedSpans":"1","errorMessage":"too old"}}']];
  for (const record of executionRecords(2)) exporter.record(record);
  await exporter.flush();
  assert.deepEqual(exporter.stats(), { queued: 0, exported: 4, retried: 2, dropped: { queueFull: 0, exportFailed: 5, malformed: 0, afterShutdown: 0 } });
  await exporter.shutdown();
  await receiver.close();
});

test("a closed port (connection refused) and a fetch port that throws are counted, never thrown", async (t) => {
  const closed = await startReceiver(t);
  const endpoint = closed.endpoint;
  await closed.close();
  const refused = createOtlpExporter({ endpoint });
  for (const record of executionRecords(3)) refused.record(record);
  await refused.flush();
  assert.deepEqual(refused.stats().dropped, { queueFull: 0, exportFailed: 3, malformed: 0, afterShutdown: 0 });
  await refused.shutdown();

  const calls = [];
  const throwing = createOtlpExporter({
    endpoint: "https://collector.example/v1/traces",
    fetch: (url, init) => {
      calls.push({ url, init });
      throw new TypeError("no network here");
    },
  });
  for (const record of executionRecords(2)) throwing.record(record);
  await throwing.shutdown();
  assert.equal(calls.length, 1);
  assert.equal(calls[0].url, "https://collector.example/v1/traces");
  assert.equal(calls[0].init.method, "POST");
  assert.ok(calls[0].init.signal instanceof AbortSignal);
  // The two actions and, at shutdown, their task.
  assert.equal(JSON.parse(calls[0].init.body).resourceSpans[0].scopeSpans[0].spans.length, 3);
  assert.deepEqual(throwing.stats().dropped, { queueFull: 0, exportFailed: 3, malformed: 0, afterShutdown: 0 });
});

test("malformed records are counted and ignored, never thrown", async (t) => {
  const receiver = await startReceiver(t);
  const exporter = createOtlpExporter({ endpoint: receiver.endpoint });
  const time = new Date().toISOString();
  const valid = otelLogRecord("execution", { event_summary: "s", cause: "c", impact_scope: "i" }, time, { name: "status_change", callId: "a-1-b" });
  const malformed = [
    undefined, null, 42, "invoke_agent", [], {}, new Date(0),
    { ...valid, kind: "metric" },
    { ...valid, name: "" },
    { ...valid, time: "yesterday" },
    { ...valid, time: "1969-12-31T23:59:59.000Z" },
    { ...valid, time: 1_795_000_000_000 },
    { ...valid, attributes: null },
    { ...valid, attributes: { ...valid.attributes, "gen_ai.tool.call.id": 7 } },
    { ...valid, attributes: { "gen_ai.operation.name": "execute_tool" } },
    { ...valid, attributes: { "gen_ai.operation.name": "chat" } },
    { ...valid, attributes: { ...valid.attributes, ...Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`k${index}`, "v"])) } },
    new Proxy(valid, { get() { throw new Error("proxy trap"); } }),
    Object.defineProperty({ ...valid }, "attributes", { get() { throw new Error("getter"); }, enumerable: true }),
  ];
  for (const record of malformed) assert.equal(exporter.record(record), undefined);
  assert.equal(exporter.stats().dropped.malformed, malformed.length);
  exporter.record(valid);
  await exporter.shutdown();
  assert.equal(exporter.stats().exported, 2, "the valid record's action and task");
  const [action] = receiver.spans();
  assert.equal(valuesOf(action.attributes)["gen_ai.tool.call.id"], "a-1-b");
  await receiver.close();
});

test("options are checked: a typed invalid_input error with the option's path", () => {
  const endpoint = "http://localhost:4318/v1/traces";
  const cases = [
    [undefined, "options"],
    [null, "options"],
    ["http://localhost:4318/v1/traces", "options"],
    [[], "options"],
    [new Proxy({}, { ownKeys() { throw new Error("proxy trap"); } }), "options"],
    [{}, "options.endpoint"],
    [{ endpoint: 4318 }, "options.endpoint"],
    [{ endpoint: "localhost:4318 traces" }, "options.endpoint"],
    [{ endpoint: "ftp://localhost/v1/traces" }, "options.endpoint"],
    [{ endpoint: "https://user:key@otlp.example/v1/traces" }, "options.endpoint"],
    [{ endpoint, fetch: "fetch" }, "options.fetch"],
    [{ endpoint, headers: "authorization: x" }, "options.headers"],
    [{ endpoint, headers: { authorization: 7 } }, "options.headers.authorization"],
    [{ endpoint, headers: { "x-key": "a\r\nx-evil: 1" } }, "options.headers.x-key"],
    [{ endpoint, headers: { "bad name": "v" } }, "options.headers.bad name"],
    [{ endpoint, headers: { "Content-Type": "text/plain" } }, "options.headers.Content-Type"],
    [{ endpoint, serviceName: "" }, "options.serviceName"],
    [{ endpoint, serviceName: 1 }, "options.serviceName"],
    [{ endpoint, agentName: " " }, "options.agentName"],
    [{ endpoint, maxQueue: 0 }, "options.maxQueue"],
    [{ endpoint, maxQueue: -5 }, "options.maxQueue"],
    [{ endpoint, maxQueue: 1.5 }, "options.maxQueue"],
    [{ endpoint, maxQueue: "2048" }, "options.maxQueue"],
    [{ endpoint, maxBatch: Number.NaN }, "options.maxBatch"],
    [{ endpoint, maxBatch: Number.POSITIVE_INFINITY }, "options.maxBatch"],
    [{ endpoint, flushIntervalMs: 0 }, "options.flushIntervalMs"],
    [{ endpoint, flushIntervalMs: 2 ** 31 }, "options.flushIntervalMs"],
    [{ endpoint, timeoutMs: -1 }, "options.timeoutMs"],
    [{ endpoint, timeoutMs: 10n }, "options.timeoutMs"],
    [{ endpoint, maxQeue: 10 }, "options.maxQeue"],
  ];
  for (const [options, path] of cases) {
    assert.throws(() => createOtlpExporter(options), (error) => {
      assert.equal(error.name, "AgentGovernorError");
      assert.equal(error.code, "invalid_input");
      assert.equal(error.path, path, error.message);
      return true;
    });
  }
  // Every option at a valid value is taken.
  const exporter = createOtlpExporter({
    endpoint: "https://otlp.example:4318/v1/traces", fetch: async () => ({ status: 200 }), headers: { "x-api-key": "k" },
    serviceName: "s", agentName: "a", maxQueue: 10, maxBatch: 5, flushIntervalMs: 100, timeoutMs: 100,
  });
  assert.deepEqual(exporter.stats().dropped, { queueFull: 0, exportFailed: 0, malformed: 0, afterShutdown: 0 });
});

test("the exporter's timer never keeps a Node process alive", async () => {
  const script = `
    import { createOtlpExporter, otelLogRecord } from "agent-governor";
    const exporter = createOtlpExporter({ endpoint: "http://127.0.0.1:9/v1/traces", flushIntervalMs: 60000 });
    exporter.record(otelLogRecord("execution", { event_summary: "s", cause: "c", impact_scope: "i" }, new Date().toISOString(), { name: "t", callId: "a-1" }));
    console.log(exporter.stats().queued);
  `;
  const cwd = fileURLToPath(new URL("../..", import.meta.url));
  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { cwd, timeout: 20_000 });
  assert.equal(stdout.trim(), "1");
  assert.ok(performance.now() - started < 20_000);
});

test("Chromium: the exporter sends a loop's spans from a page through the browser's fetch (a CORS receiver)", { timeout: 120_000 }, async (t) => {
  const { launchChromium } = await import("./helpers.mjs");
  const { startServer } = await import("../../examples/serve.mjs");
  const bodies = [];
  const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type", "access-control-allow-methods": "POST" };
  const receiver = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "POST") bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      response.writeHead(request.method === "OPTIONS" ? 204 : 200, { ...cors, "content-type": "application/json" });
      response.end(request.method === "OPTIONS" ? undefined : "{}");
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const server = await startServer(0);
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    server.close();
    receiver.close();
  });
  const page = await browser.context.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  const stats = await page.evaluate(async (endpoint) => {
    const { createControlLoop, createOtlpExporter } = await import("/pkg/index.js");
    const exporter = createOtlpExporter({ endpoint, serviceName: "browser-agent" });
    const nulls = { action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null, setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null };
    const loop = createControlLoop({ goal: "g", judge: () => ({ structuredOutput: { ...nulls, decision: "reply", reply: "tidy" } }), telemetry: exporter.listener });
    loop.say("tidy?");
    await loop.settled();
    await exporter.shutdown();
    return exporter.stats();
  }, `http://127.0.0.1:${receiver.address().port}/v1/traces`);
  assert.equal(stats.dropped.exportFailed, 0, JSON.stringify(stats));
  assert.ok(stats.exported >= 1, JSON.stringify(stats));
  const spans = bodies.flatMap((body) => body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
  assert.deepEqual(spans.map((span) => span.name), ["invoke_agent"]);
  assert.deepEqual(bodies[0].resourceSpans[0].resource.attributes, [{ key: "service.name", value: { stringValue: "browser-agent" } }]);
});

test("workerd: a Worker's loop sends its spans through the runtime's fetch", { timeout: 120_000 }, async (t) => {
  const { startEdgeWorker } = await import("./helpers.mjs");
  const receiver = await startReceiver(t);
  const worker = await startEdgeWorker({ OTLP_ENDPOINT: receiver.endpoint }, { dir: "tests/js/support/otlp-worker" });
  t.after(() => worker.stop());
  const stats = await (await fetch(`${worker.url}/run`)).json();
  assert.equal(stats.dropped.exportFailed, 0, JSON.stringify(stats));
  assert.deepEqual(receiver.spans().map((span) => span.name), ["invoke_agent"]);
  assert.equal(receiver.requests[0].headers["content-type"], "application/json");
  assert.deepEqual(receiver.requests[0].body.resourceSpans[0].resource.attributes, [{ key: "service.name", value: { stringValue: "worker-agent" } }]);
});
