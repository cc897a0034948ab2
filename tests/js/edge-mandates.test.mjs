// Standing approvals in the edge guard service (workerd): a person signs a mandate with their own key; a
// change it covers, proposed by the agent its bound token proves, is approved without asking and each Apply
// spends one use; anything outside it, an unproven agent, a used-up, revoked or altered mandate asks a person.
import assert from "node:assert/strict";
import { test } from "node:test";
import { signMandate } from "../../dist/guard/node.js";
import { ADMIN, AGENT, INBOX, boardAndGuard, humanAction, nextNode, registerEd25519 } from "./edge-service-support.mjs";

const MAIL_AGENT = "mail-agent-token";
const running = boardAndGuard({ vars: { AGENT_TOKENS: `${AGENT},mail-agent=${MAIL_AGENT}` } });

async function mandateFor(api, key, terms) {
  const { audience } = (await api.get("/v1/mandates")).body;
  const now = Date.now();
  return signMandate({
    mandate_id: `mandate-${crypto.randomUUID()}`,
    audience,
    agents: ["mail-agent"],
    action: "status_change",
    constraints: [{ field: "/to", op: "one_of", value: ["in_progress", "review"] }],
    max_uses: 2,
    issued_at: new Date(now).toISOString(),
    expires_at: new Date(now + 3_600_000).toISOString(),
    ...terms,
  }, key);
}

async function proposeAs(api, token, node, to = "in_progress") {
  running.board.board.set(node, "todo");
  return api.post("/v1/proposals", { node_id: node, proposed_change: { type: "status_change", from: "todo", to }, intent: "move it on" }, token);
}

test("a covered change runs unasked twice, uses left are shown, and after the revocation a person is asked again", async () => {
  const api = running.guard.client;
  const key = await registerEd25519(api, "nora", "desk");
  const mandate = await mandateFor(api, key, {});
  const preview = await api.post("/v1/mandates/preview", { mandate: { ...mandate, key_id: undefined, signature: undefined } }, INBOX);
  assert.equal(preview.status, 200);
  assert.deepEqual(preview.body.lines.en.slice(0, 2), ["Standing approval: agent mail-agent may run status_change without asking", "Only when to is one of in_progress, review"]);
  assert.equal(preview.body.lines.ja[0], "常設承認: エージェント mail-agent は確認なしで status_change を実行できます");
  assert.equal((await api.post("/v1/mandates", { mandate }, AGENT)).status, 403, "an agent registers no mandate");
  const created = await api.post("/v1/mandates", { mandate }, INBOX);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.body.uses_left, 2);
  assert.equal((await api.post("/v1/mandates", { mandate }, INBOX)).status, 409, "registered once");

  for (const left of [1, 0]) {
    const node = nextNode();
    const proposed = await proposeAs(api, MAIL_AGENT, node);
    assert.equal(proposed.status, 201);
    assert.equal(proposed.body.state, "approved", "no person was asked");
    assert.equal(proposed.body.mandate_id, mandate.mandate_id);
    const applied = await api.post("/v1/apply", proposed.body.executor_request, MAIL_AGENT);
    assert.equal(applied.body.outcome, "applied");
    assert.equal(running.board.board.get(node), "in_progress");
    const listed = (await api.get("/v1/mandates")).body.mandates.find((m) => m.mandate_id === mandate.mandate_id);
    assert.equal(listed.uses_left, left);
  }
  // Used up: the next one asks a person.
  assert.equal((await proposeAs(api, MAIL_AGENT, nextNode())).body.state, "pending");
  const audit = (await api.get("/v1/audit?limit=50")).body.records;
  assert.equal(audit.filter((r) => r.event === "approved_by_mandate").length, 2);

  // A fresh one, revoked by its signer with one signed action: the next proposal asks again.
  const second = await mandateFor(api, key, { max_uses: 5 });
  assert.equal((await api.post("/v1/mandates", { mandate: second }, INBOX)).status, 201);
  assert.equal((await proposeAs(api, MAIL_AGENT, nextNode())).body.state, "approved");
  const listed = (await api.get("/v1/mandates")).body.mandates.find((m) => m.mandate_id === second.mandate_id);
  const stranger = await registerEd25519(api, "otto", "desk");
  const notTheirs = await humanAction("revoke_mandate", second.mandate_id, stranger, "", listed.version);
  assert.equal((await api.post(`/v1/mandates/${second.mandate_id}/revoke`, { action: notTheirs }, INBOX)).status, 403);
  const revoke = await humanAction("revoke_mandate", second.mandate_id, key, "", listed.version);
  const revoked = await api.post(`/v1/mandates/${second.mandate_id}/revoke`, { action: revoke }, INBOX);
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  assert.equal(revoked.body.state, "revoked");
  assert.equal((await api.post(`/v1/mandates/${second.mandate_id}/revoke`, { action: revoke }, INBOX)).status, 409, "replayed");
  assert.equal((await proposeAs(api, MAIL_AGENT, nextNode())).body.state, "pending");
});

test("outside the mandate, from an unproven agent, altered, or under a two-person rule: a person decides", async () => {
  const api = running.guard.client;
  const key = await registerEd25519(api, "pia", "desk");
  const mandate = await mandateFor(api, key, { max_uses: 10 });
  assert.equal((await api.post("/v1/mandates", { mandate: { ...mandate, max_uses: 1000 } }, INBOX)).status, 403, "altered after signing");
  assert.equal((await api.post("/v1/mandates", { mandate: { ...mandate, extra: 1 } }, INBOX)).status, 400);
  assert.equal((await api.post("/v1/mandates", { mandate }, INBOX)).status, 201);
  assert.equal((await proposeAs(api, MAIL_AGENT, nextNode(), "done")).body.state, "pending", "to is not one of the list");
  assert.equal((await proposeAs(api, AGENT, nextNode())).body.state, "pending", "an unbound token proves no agent");
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: { status_change: 2 } }, ADMIN)).status, 200);
  assert.equal((await proposeAs(api, MAIL_AGENT, nextNode())).body.state, "pending", "a two-person change is never one person's mandate");
  const another = await mandateFor(api, key, {});
  assert.equal((await api.post("/v1/mandates", { mandate: another }, INBOX)).body.code, "two_person_rule");
  assert.equal((await api.put("/v1/approver-rules", { required_approvers: {} }, ADMIN)).status, 200);
});
