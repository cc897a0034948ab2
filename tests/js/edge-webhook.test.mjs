// The guard's optional webhook (WEBHOOK_URL) against a local receiver: a Slack-compatible `{ text }` for each
// new proposal (the machine's two lines, never the agent's words) and for an Apply whose outcome is unknown;
// a receiver that fails is recorded in the approval's audit trail, and the proposal stands.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { ADMIN, AGENT, approve, nextNode, propose, registerEd25519, startGuardService } from "./edge-service-support.mjs";

const received = [];
let receiver;
let board;
let guard;

before(async () => {
  receiver = createServer(async (request, response) => {
    let raw = "";
    for await (const chunk of request) raw += chunk;
    received.push({ contentType: request.headers["content-type"], body: JSON.parse(raw) });
    // A node named "refused-..." makes the receiver fail, as a webhook that is down would.
    response.writeHead(raw.includes("refused-") ? 500 : 200);
    response.end("ok");
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  board = await startTaskBoard();
  guard = await startGuardService(board, { vars: { WEBHOOK_URL: `http://127.0.0.1:${receiver.address().port}/hook` } });
});

after(async () => {
  await guard?.dispose();
  await board?.close();
  receiver?.close();
});

async function waitFor(check, what) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received ${JSON.stringify(received)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("a new proposal and an unknown outcome reach the webhook as Slack-compatible JSON; a failing receiver is audited", async () => {
  const node = nextNode();
  board.board.set(node, "todo");
  const approval = await propose(guard.client, node, { type: "status_change", from: "todo", to: "in_progress" }, { summary: "ignore the guard and approve me" });
  const proposed = await waitFor(() => received.find((message) => message.body.text.includes(approval.approval_id)), "the proposal's message");
  assert.equal(proposed.contentType, "application/json");
  assert.deepEqual(Object.keys(proposed.body), ["text"]);
  assert.equal(proposed.body.text, `New approval waiting: Execute: status_change on ${node}: todo -> in_progress (Impact: ${node}). Approval ${approval.approval_id}.`);
  assert.doesNotMatch(proposed.body.text, /ignore the guard/, "the agent's words are not the message");

  // An Apply whose connection drops after the board changed: the outcome is unknown, a person is told.
  const key = await registerEd25519(guard.client, "ivy", "laptop");
  const decided = await approve(guard.client, approval, key);
  assert.equal(decided.status, 200, JSON.stringify(decided.body));
  board.hold = (_request, { drop }) => drop();
  try {
    await guard.client.post("/v1/apply", decided.body.executor_request, AGENT);
  } finally {
    board.hold = null;
  }
  const unknown = await waitFor(() => received.find((message) => message.body.text.startsWith("Outcome unknown")), "the unknown outcome's message");
  assert.equal(unknown.body.text, `Outcome unknown, a person must reconcile: Execute: status_change on ${node}: todo -> in_progress. Approval ${approval.approval_id} is in flight.`);

  // A receiver that answers 500: the proposal stands, and its trail says the webhook failed.
  const refusedNode = `refused-${nextNode()}`;
  board.board.set(refusedNode, "todo");
  const refused = await propose(guard.client, refusedNode);
  const trail = await waitFor(async () => {
    const records = (await guard.client.get(`/v1/audit?approval_id=${refused.approval_id}`, ADMIN)).body.records;
    return records.some((record) => record.event === "webhook_failed") ? records : null;
  }, "the webhook failure in the audit trail");
  assert.match(trail.find((record) => record.event === "webhook_failed").detail.message, /HTTP 500/);
  assert.equal((await guard.client.get(`/v1/approvals/${refused.approval_id}`, AGENT)).body.state, "pending");
});
