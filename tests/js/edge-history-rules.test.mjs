// History rules in the edge guard service (workerd): at most N applies of a change type within a window,
// counted from the guard's own audit of Applies; beyond it a new proposal is not asked for and an approved
// change is not applied (its approval stays usable), each refused with the rule's words.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ADMIN, AGENT, INBOX, approve, nextNode, propose, registerEd25519, boardAndGuard, holdApplies } from "./edge-service-support.mjs";

const running = boardAndGuard();

test("at most one status change an hour: the second approved one is not applied, and a third is not asked for", async () => {
  const { board, guard } = running;
  const api = guard.client;
  assert.equal((await api.put("/v1/history-rules", { max_applies: { status_change: { count: 1, window_ms: 3_600_000 } } }, INBOX)).status, 403);
  for (const bad of [{ status_change: { count: 0, window_ms: 60_000 } }, { status_change: { count: 1, window_ms: 10 } }, { tool_call: { count: 1, window_ms: 60_000 } }, { status_change: { count: 1, window_ms: 60_000, extra: 1 } }]) {
    assert.equal((await api.put("/v1/history-rules", { max_applies: bad }, ADMIN)).status, 400, JSON.stringify(bad));
  }
  const key = await registerEd25519(api, "hugo", "desk");
  const ready = async () => {
    const node = nextNode();
    board.board.set(node, "todo");
    const proposal = await propose(api, node);
    return { node, decided: (await approve(api, proposal, key)).body };
  };
  const first = await ready();
  const second = await ready();
  assert.equal((await api.put("/v1/history-rules", { max_applies: { status_change: { count: 1, window_ms: 3_600_000 } } }, ADMIN)).status, 200);
  assert.equal((await api.post("/v1/apply", first.decided.executor_request, AGENT)).body.outcome, "applied");
  const refused = await api.post("/v1/apply", second.decided.executor_request, AGENT);
  assert.equal(refused.status, 429);
  assert.equal(refused.body.code, "history_rule");
  assert.match(refused.body.message, /applied 1 times in the last 60 min, and at most 1 are allowed/);
  assert.equal(board.board.get(second.node), "todo", "nothing applied");
  assert.equal((await api.get(`/v1/approvals/${second.decided.approval_id}`)).body.state, "approved", "its approval stays usable");
  const node = nextNode();
  board.board.set(node, "todo");
  const third = await api.post("/v1/proposals", { node_id: node, proposed_change: { type: "status_change", from: "todo", to: "in_progress" }, intent: "more" }, AGENT);
  assert.equal(third.status, 429);
  // Without the rule, the approved change applies.
  assert.equal((await api.put("/v1/history-rules", { max_applies: {} }, ADMIN)).status, 200);
  assert.equal((await api.post("/v1/apply", second.decided.executor_request, AGENT)).body.outcome, "applied");
});

test("the same change applied within the window is not asked for again; without the rule it is", async () => {
  const { board, guard } = running;
  const api = guard.client;
  assert.equal((await api.put("/v1/history-rules", { same_change_within_ms: 5 }, ADMIN)).status, 400);
  assert.equal((await api.put("/v1/history-rules", { same_change_within_ms: 3_600_000 }, ADMIN)).status, 200);
  const key = await registerEd25519(api, "iris", "desk");
  const node = nextNode();
  board.board.set(node, "todo");
  const proposal = await propose(api, node);
  const decided = (await approve(api, proposal, key)).body;
  assert.equal((await api.post("/v1/apply", decided.executor_request, AGENT)).body.outcome, "applied");
  // Someone moved the task back: the same change again, so soon, is refused with when it ran.
  board.board.set(node, "todo");
  const again = await api.post("/v1/proposals", { node_id: node, proposed_change: { type: "status_change", from: "todo", to: "in_progress" }, intent: "again" }, AGENT);
  assert.equal(again.status, 429);
  assert.match(again.body.message, /the same change ran 0 min ago \(approval `[0-9a-f-]+`\), within 60 min/);
  assert.equal((await api.put("/v1/history-rules", { same_change_within_ms: null }, ADMIN)).status, 200);
  assert.equal((await api.post("/v1/proposals", { node_id: node, proposed_change: { type: "status_change", from: "todo", to: "in_progress" }, intent: "again" }, AGENT)).status, 201);
});

test("at most one Apply in flight: while one is running, another is neither started nor asked for; after it ends, both are", async () => {
  const { board, guard } = running;
  const api = guard.client;
  assert.equal((await api.put("/v1/history-rules", { max_in_flight: 0 }, ADMIN)).status, 400);
  const key = await registerEd25519(api, "jude", "desk");
  const ready = async () => {
    const node = nextNode();
    board.board.set(node, "todo");
    return { node, decided: (await approve(api, await propose(api, node), key)).body };
  };
  const first = await ready();
  const second = await ready();
  assert.equal((await api.put("/v1/history-rules", { max_in_flight: 1 }, ADMIN)).status, 200);
  const { arrived: applyArrived, release } = holdApplies(board);
  const running1 = api.post("/v1/apply", first.decided.executor_request, AGENT);
  await applyArrived;
  board.hold = null;
  const refused = await api.post("/v1/apply", second.decided.executor_request, AGENT);
  assert.equal(refused.status, 429);
  assert.match(refused.body.message, /1 Apply is in flight \(started, outcome not yet known\), and at most 1 are allowed: the Apply refused/);
  const node = nextNode();
  board.board.set(node, "todo");
  assert.equal((await api.post("/v1/proposals", { node_id: node, proposed_change: { type: "status_change", from: "todo", to: "in_progress" }, intent: "more" }, AGENT)).status, 429);
  release();
  assert.equal((await running1).body.outcome, "applied");
  assert.equal((await api.post("/v1/apply", second.decided.executor_request, AGENT)).body.outcome, "applied");
  assert.equal((await api.put("/v1/history-rules", { max_in_flight: null }, ADMIN)).status, 200);
});
