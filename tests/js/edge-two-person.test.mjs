// The two-person rule in the edge guard service (workerd): an admin marks a change type as needing two
// distinct people; one person's signature (and their second device) is one of two, the agent that proposed
// it is never one, and only the second person's signature approves it, which is then applied once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ADMIN, AGENT, INBOX, approve, nextNode, propose, registerEd25519, boardAndGuard } from "./edge-service-support.mjs";

const running = boardAndGuard();

test("a change type that needs two people: one person's keys count once, the proposer never, and the second person's y applies it once", async () => {
  const { board, guard } = running;
  const api = guard.client;
  // Only the admin sets the rule; a bad one is refused by name.
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: { status_change: 2 } }, INBOX)).status, 403);
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: { status_change: 0 } }, ADMIN)).status, 400);
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: { "bad name": 2 } }, ADMIN)).status, 400);
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: { status_change: 2 } }, ADMIN)).status, 200);
  assert.deepEqual((await api.get("/v1/approver-rules")).body.required_approvers, { status_change: 2 });

  const aliceLaptop = await registerEd25519(api, "alice", "laptop");
  const alicePhone = await registerEd25519(api, "alice", "phone");
  const bob = await registerEd25519(api, "bob", "desk");
  const node = nextNode();
  board.board.set(node, "todo");
  const proposal = await propose(api, node, undefined, { agent_id: "carol" });
  const carol = await registerEd25519(api, "carol", "desk");
  assert.equal(proposal.required_approvers, 2);

  // Alice: one of two, still pending; her second device does not count again.
  const first = await approve(api, proposal, aliceLaptop);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.state, "pending");
  assert.deepEqual(first.body.approvals_given.map((given) => given.approver), ["alice"]);
  const again = await approve(api, proposal, alicePhone);
  assert.equal(again.status, 409);
  assert.equal(again.body.code, "already_signed");
  // The agent that proposed it is never one of the two.
  const byProposer = await approve(api, proposal, carol);
  assert.equal(byProposer.status, 403);
  // Nothing applies before the second person signs.
  assert.equal((await api.get(`/v1/approvals/${proposal.approval_id}`, AGENT)).body.executor_request ?? null, null);

  // Bob, a different person: approved, and applied once.
  const second = await approve(api, proposal, bob);
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.equal(second.body.state, "approved");
  const applied = await api.post("/v1/apply", second.body.executor_request, AGENT);
  assert.equal(applied.body.outcome, "applied");
  assert.equal((await api.post("/v1/apply", second.body.executor_request, AGENT)).body.outcome, "rejected");
  assert.equal(board.board.get(node), "in_progress");
  const audit = (await api.get(`/v1/audit?approval_id=${proposal.approval_id}`)).body.records.map((record) => record.event);
  assert.deepEqual(audit.filter((event) => ["cosigned", "approved"].includes(event)), ["approved", "cosigned"], "newest first: alice's signature, then bob's approval");

  // Without the rule, one person approves again.
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: {} }, ADMIN)).status, 200);
  const next = nextNode();
  board.board.set(next, "todo");
  const plain = await propose(api, next);
  assert.equal((await approve(api, plain, aliceLaptop)).body.state, "approved");
});

test("a signature by a key revoked since no longer counts; a rule for every tool call is refused (a tool is named)", async () => {
  const { board, guard } = running;
  const api = guard.client;
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: { tool_call: 2 } }, ADMIN)).status, 400);
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: { status_change: 2 } }, ADMIN)).status, 200);
  try {
    const stolen = await registerEd25519(api, "dora", "laptop");
    const erin = await registerEd25519(api, "erin", "desk");
    const node = nextNode();
    board.board.set(node, "todo");
    const proposal = await propose(api, node);
    assert.equal((await approve(api, proposal, stolen)).body.approvals_given.length, 1);
    // Dora's laptop was stolen: she revokes its key, and its signature counts for nobody.
    assert.equal((await api.call("DELETE", "/v1/approvers/dora/keys/laptop", undefined, ADMIN)).status, 200);
    assert.deepEqual((await api.get(`/v1/approvals/${proposal.approval_id}`)).body.approvals_given, []);
    const byErin = await approve(api, proposal, erin);
    assert.equal(byErin.body.state, "pending", "erin is one of two, not the second");
  } finally {
    await api.put("/v1/approver-rules", { required_approvers: {} }, ADMIN);
  }
});
