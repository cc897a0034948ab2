// The control loop and standing approvals: before a person is asked for a y, the loop asks whether a
// registered, live standing approval covers the state change for its agent; covered, it runs without asking
// under the confirmation the mandate made (one use spent); used up, outside it, or without one, a person is
// asked as before.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createControlLoop, generateApproverKey, memoryLogStore, signMandate } from "agent-governor";

const NULLS = {
  reply: null, action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null,
  setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null,
};
const move = (node, to) => ({ ...NULLS, decision: "act", action_type: "status_change", summary: `move ${node} to ${to}`, impact_scope: node, node_id: node, from: "review", to });
const wait = () => ({ ...NULLS, decision: "wait" });
const key = await generateApproverKey({ keyId: "nora/laptop" });

function harness(answers, options = {}) {
  const standingApprovals = "standingApprovals" in options ? options.standingApprovals : { agentId: "board-agent", keys: { [key.keyId]: key.publicKey } };
  const statuses = new Map([["T-1", "review"], ["T-2", "review"], ["T-3", "review"]]);
  const applies = [];
  const skill = {
    preview: (node) => ({ current_status: statuses.get(node) ?? "missing" }),
    apply: (request) => {
      applies.push(request);
      statuses.set(request.node_id, request.confirm_status);
      return { status: 200, body: { applied: true } };
    },
  };
  const approvals = [];
  const chat = [];
  const judge = () => ({ structuredOutput: answers.shift() ?? wait() });
  const loop = createControlLoop({
    goal: "keep the board tidy", judge, skills: { status_change: skill }, logs: memoryLogStore(),
    approve: (request) => { approvals.push(request); }, chat: (text) => chat.push(text),
    ...(standingApprovals === undefined ? {} : { standingApprovals }),
  });
  return { loop, applies, approvals, chat };
}

const mandate = (extra = {}) =>
  signMandate({
    mandate_id: `mandate-${crypto.randomUUID()}`,
    agents: ["board-agent"],
    action: "status_change",
    constraints: [{ field: "/to", op: "equals", value: "done" }],
    max_uses: 1,
    issued_at: new Date().toISOString(),
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    ...extra,
  }, key);

test("a covered change runs without asking, once, under the mandate; once its use is spent a person is asked", async () => {
  const { loop, applies, approvals, chat } = harness([move("T-1", "done"), move("T-2", "done")]);
  const record = await loop.registerMandate(await mandate());
  assert.equal(record.used_by.length, 0);
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  assert.deepEqual(approvals, [], "no person was asked");
  assert.equal(applies.length, 1);
  assert.equal(applies[0].confirmation.ui_action, "mandate");
  assert.equal(applies[0].confirmation.mandate.mandate_id, record.mandate.mandate_id);
  assert.ok(chat.some((line) => line.includes("approved under standing approval")), chat.join("\n"));
  const [{ record: after }] = await loop.mandates();
  assert.equal(after.used_by.length, 1);
  loop.observe({ external: { tickets: 2 } });
  await loop.settled();
  assert.equal(approvals.length, 1, "used up: a person is asked");
  assert.equal(applies.length, 1);
  loop.answer("y", approvals[0].requestId);
  await loop.settled();
  assert.equal(applies.length, 2);
  assert.equal(applies[1].confirmation.ui_action, "chat_y");
});

test("outside the constraints, for another agent, or with no standingApprovals: a person is asked", async () => {
  const outside = harness([move("T-1", "archived")]);
  await outside.loop.registerMandate(await mandate({ max_uses: 5 }));
  outside.loop.observe({ external: { tickets: 1 } });
  await outside.loop.settled();
  assert.equal(outside.approvals.length, 1);
  assert.equal(outside.applies.length, 0);

  const other = harness([move("T-1", "done")], { standingApprovals: { agentId: "other-agent", keys: { [key.keyId]: key.publicKey } } });
  await other.loop.registerMandate(await mandate({ max_uses: 5 }));
  other.loop.observe({ external: { tickets: 1 } });
  await other.loop.settled();
  assert.equal(other.approvals.length, 1);

  const none = harness([], { standingApprovals: undefined });
  await assert.rejects(none.loop.registerMandate(await mandate()), { code: "invalid_input", path: "standingApprovals" });
  assert.throws(() => harness([], { standingApprovals: { agentId: "a", keys: {}, extra: 1 } }), { path: "standingApprovals.extra" });
  assert.throws(() => harness([], { standingApprovals: { agentId: "", keys: { a: "b" } } }), { path: "standingApprovals.agentId" });
  const altered = harness([]);
  await assert.rejects(altered.loop.registerMandate({ ...(await mandate()), max_uses: 1000 }), { code: "signature_invalid" });
});
