// Decisions measured in the edge guard service (workerd), per change type and per person: decided, approved,
// declined, by a standing approval, the median time a card was on screen, approvals faster than the card can
// be read, and the standing approvals that would have covered the window's approvals; sent to a local OTLP
// receiver as metrics through the package's exporter.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { createOtlpExporter } from "agent-governor";
import { signAction, signConfirmation, signMandate } from "../../dist/guard/node.js";
import { AGENT, INBOX, boardAndGuard, draftOf, nextNode, registerEd25519 } from "./edge-service-support.mjs";

const MAIL_AGENT = "mail-agent-token";
const running = boardAndGuard({ vars: { AGENT_TOKENS: `${AGENT},mail-agent=${MAIL_AGENT}` } });

async function proposed(api) {
  const node = nextNode();
  running.board.board.set(node, "todo");
  const { body } = await api.post("/v1/proposals", { node_id: node, proposed_change: { type: "status_change", from: "todo", to: "in_progress" }, intent: "start it" }, MAIL_AGENT);
  return body;
}

async function approveShown(api, view, key, displayed) {
  const confirmation = await signConfirmation(draftOf(view), key);
  return api.post(`/v1/approvals/${view.approval_id}/decision`, { decision: "y", confirmation, displayed_ms: displayed });
}

test("decisions are measured per type and person, fast approvals flagged, a standing approval suggested, and sent as OTLP metrics", async () => {
  const api = running.guard.client;
  const ann = await registerEd25519(api, "ann", "desk");
  const bob = await registerEd25519(api, "bob", "desk");
  for (const displayed of [400, 600, 20_000, 9_000]) {
    assert.equal((await approveShown(api, await proposed(api), ann, displayed)).status, 200);
  }
  const declined = await proposed(api);
  const action = await signAction({ action: "decline", approval_id: declined.approval_id, version: declined.version, detail: "not now", at: new Date().toISOString(), key_id: null }, bob);
  assert.equal((await api.post(`/v1/approvals/${declined.approval_id}/decision`, { decision: "n", action, displayed_ms: 8_000 })).status, 200);
  // A bad measure is refused and decides nothing.
  const bad = await proposed(api);
  assert.equal((await api.post(`/v1/approvals/${bad.approval_id}/decision`, { decision: "y", confirmation: await signConfirmation(draftOf(bad), ann), displayed_ms: -1 })).status, 400);
  assert.equal((await api.get(`/v1/approvals/${bad.approval_id}`)).body.state, "pending");
  // One by a standing approval.
  const { audience } = (await api.get("/v1/mandates")).body;
  const mandate = await signMandate({ mandate_id: `mandate-${crypto.randomUUID()}`, audience, agents: ["mail-agent"], action: "status_change", constraints: [], max_uses: 1, issued_at: new Date().toISOString(), expires_at: new Date(Date.now() + 3_600_000).toISOString() }, ann);
  assert.equal((await api.post("/v1/mandates", { mandate }, INBOX)).status, 201);
  assert.equal((await proposed(api)).state, "approved");

  assert.equal((await api.get("/v1/decision-metrics", AGENT)).status, 403);
  assert.equal((await api.get("/v1/decision-metrics?days=0", INBOX)).status, 400);
  assert.equal((await api.get("/v1/decision-metrics?days=91", INBOX)).status, 400);
  const { status, body: metrics } = await api.get("/v1/decision-metrics?days=7", INBOX);
  assert.equal(status, 200);
  assert.equal(metrics.window_ms, 7 * 86_400_000);
  const type = metrics.by_type.find((row) => row.key === "status_change");
  assert.deepEqual(
    { decided: type.decided, approved: type.approved, declined: type.declined, by_standing_approval: type.by_standing_approval, measured: type.measured, fast: type.approved_faster_than_readable },
    { decided: 6, approved: 5, declined: 1, by_standing_approval: 1, measured: 5, fast: 2 },
  );
  const annRow = metrics.by_person.find((row) => row.approver === "ann");
  assert.deepEqual({ decided: annRow.decided, approved: annRow.approved, median: annRow.median_read_ms, fast: annRow.approved_faster_than_readable, rate: annRow.approve_rate }, { decided: 4, approved: 4, median: 4_800, fast: 2, rate: 1 });
  assert.equal(metrics.by_person.find((row) => row.approver === "bob").declined, 1);
  assert.equal(metrics.by_person.find((row) => row.approver === "standing approval").by_standing_approval, 1);
  assert.deepEqual(metrics.suggestions, [
    {
      approver: "ann",
      approvals: 4,
      terms: { agents: ["mail-agent"], action: "status_change", constraints: [{ field: "/from", op: "equals", value: "todo" }, { field: "/to", op: "equals", value: "in_progress" }], max_uses: 4 },
    },
  ]);

  // Sent to a local OTLP receiver as gauges.
  const received = [];
  const receiver = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      received.push({ path: request.url, body: JSON.parse(text) });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const exporter = createOtlpExporter({ endpoint: `http://127.0.0.1:${receiver.address().port}/v1/traces`, serviceName: "inbox" });
    assert.deepEqual(await exporter.exportDecisionMetrics(metrics), { sent: true });
    await assert.rejects(exporter.exportDecisionMetrics({ by_type: "x" }), { code: "invalid_input", path: "metrics" });
    await exporter.shutdown();
  } finally {
    receiver.close();
  }
  assert.equal(received.length, 1);
  assert.equal(received[0].path, "/v1/metrics");
  const [resourceMetrics] = received[0].body.resourceMetrics;
  assert.deepEqual(resourceMetrics.resource.attributes, [{ key: "service.name", value: { stringValue: "inbox" } }]);
  const byName = Object.fromEntries(resourceMetrics.scopeMetrics[0].metrics.map((metric) => [metric.name, metric.gauge.dataPoints]));
  const point = (name, attributes) =>
    byName[name].find((p) => Object.entries(attributes).every(([key, value]) => p.attributes.some((a) => a.key === key && a.value.stringValue === value)));
  assert.equal(point("agent_governor.decisions", { "agent_governor.rule_key": "status_change", "agent_governor.decision": "approved" }).asInt, "5");
  assert.equal(point("agent_governor.decisions", { "agent_governor.approver": "bob", "agent_governor.decision": "declined" }).asInt, "1");
  assert.equal(point("agent_governor.decision.read_time.median", { "agent_governor.approver": "ann" }).asInt, "4800");
  assert.equal(point("agent_governor.decisions.faster_than_readable", { "agent_governor.rule_key": "status_change" }).asInt, "2");
  assert.equal(byName["agent_governor.standing_approvals.suggested"][0].asInt, "1");
  assert.equal(point("agent_governor.decisions", { "agent_governor.approver": "ann", "agent_governor.decision": "approved" }).timeUnixNano, `${BigInt(metrics.until_ms) * 1_000_000n}`);
});
