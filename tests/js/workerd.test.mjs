// The package in the real edge runtime: wrangler bundles edge/worker.js (resolving "agent-governor" through
// the `workerd` export condition) and runs it in workerd.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeLlm } from "../support/fake-llm-server.mjs";
import { startEdgeWorker } from "./helpers.mjs";

let worker;
let fakeLlm;
before(async () => {
  fakeLlm = await startFakeLlm(0);
  worker = await startEdgeWorker({ LLM_BASE_URL: `http://127.0.0.1:${fakeLlm.address().port}/ok/v1`, LLM_MODEL: "edge-model" });
});
after(() => {
  worker?.stop();
  fakeLlm?.close();
});

test("workerd: one execute applies, the second is rejected already_consumed", async () => {
  const response = await fetch(`${worker.url}/smoke`, { method: "POST" });
  assert.equal(response.status, 200, worker.output());
  const { first, second, applies } = await response.json();
  assert.equal(first.outcome, "applied");
  assert.equal(first.consumed, true);
  assert.match(first.confirmation_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(second.outcome, "rejected");
  assert.equal(second.rejection.phase, "already_consumed");
  assert.equal(applies, 1);
});

test("workerd: malformed input to the guard is a typed 400, not a crash", async () => {
  const response = await fetch(`${worker.url}/check`, {
    method: "POST",
    body: JSON.stringify({ confirmation: null, request: { confirmation_id: 5 } }),
  });
  assert.equal(response.status, 400);
  const error = await response.json();
  assert.equal(error.code, "invalid_input");
  assert.equal(error.path, "request.confirmation_id");
  const missing = await fetch(`${worker.url}/check`, {
    method: "POST",
    body: JSON.stringify({ confirmation: null, request: { confirmation_id: "c", apply_request: { node_id: "n", confirm_status: "done", intent: "", reason: "" } } }),
  });
  const verdict = await missing.json();
  assert.deepEqual([verdict.verdict, verdict.phase], ["rejected", "not_found"]);
});

test("workerd: the built-in client reaches the model and the Closer decides", async () => {
  const response = await fetch(`${worker.url}/closer`, {
    method: "POST",
    body: JSON.stringify({ structuredOutput: { status: "done" }, stepId: "complete.task", c3l: { c2: "complete", c3: "task" } }),
  });
  assert.equal(response.status, 200, worker.output());
  const result = await response.json();
  assert.equal(result.complete, true);
  assert.equal(result.queries, 1);
  assert.match(result.output.summary, /^model=edge-model;strict=true;schema=true;/);
});
