// The package in the real edge runtime: wrangler bundles edge/worker.js (resolving "agent-governor" through
// the `workerd` export condition) and runs it in workerd.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startEdgeWorker } from "./helpers.mjs";

let worker;
before(async () => {
  worker = await startEdgeWorker();
});
after(() => worker?.stop());

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
