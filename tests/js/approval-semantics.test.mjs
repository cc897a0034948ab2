// Approval semantics through the built package: the audit sink is bounded, the change type selects the
// skill, the clock skew is configurable, and the outcome of an ambiguous Apply stays unknown.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Executor, MemoryStore, checkConfirmation, issueConfirmation, requestFor, saveConfirmation } from "agent-governor";

const signer = { keyId: "approver", secret: "0123456789abcdef0123456789abcdef-approval" };
const keys = { [signer.keyId]: signer.secret };
const draft = (type = "status_change") => ({
  node_id: "node-1",
  proposed_change: { type, from: "todo", to: "done" },
  intent: "all subtasks closed",
  reason: "checked by a human",
  ui_action: "approve_button",
});
function countingSkill(status = 200, body = { applied: true }) {
  const skill = { applies: 0, preview: () => ({ current_status: "todo" }), apply: () => { skill.applies += 1; return { status, body }; } };
  return skill;
}
async function saved(type) {
  const store = new MemoryStore();
  const confirmation = issueConfirmation(draft(type), signer);
  await saveConfirmation(store, confirmation);
  return { store, confirmation };
}

test("an audit sink that never settles cannot hold the result back; the late audit is reported", async () => {
  const { store, confirmation } = await saved();
  const executor = new Executor({ store, skill: countingSkill(), keys, audit: () => new Promise(() => {}), auditTimeoutMs: 50 });
  const started = Date.now();
  const result = await executor.execute(requestFor(confirmation));
  assert.equal(result.outcome, "applied");
  assert.equal(result.consumed, true);
  assert.match(result.audit_error, /did not settle within 50 ms/);
  assert.ok(Date.now() - started < 5_000);
});

test("without auditTimeoutMs the wait is still bounded: a sink that never settles is given up on after 5 s", async () => {
  const { store, confirmation } = await saved();
  const executor = new Executor({ store, skill: countingSkill(), keys, audit: () => new Promise(() => {}) });
  const result = await executor.execute(requestFor(confirmation));
  assert.equal(result.outcome, "applied");
  assert.match(result.audit_error, /did not settle within 5000 ms/);
});

test("a failing audit is reported and the outcome stands; a good one leaves audit_error null", async () => {
  const failing = await saved();
  const bad = new Executor({ store: failing.store, skill: countingSkill(), keys, audit: () => Promise.reject(new Error("disk full")) });
  const result = await bad.execute(requestFor(failing.confirmation));
  assert.equal(result.outcome, "applied");
  assert.match(result.audit_error, /disk full/);
  const fine = await saved();
  const records = [];
  const good = new Executor({ store: fine.store, skill: countingSkill(), keys, audit: (record) => { records.push(record); } });
  assert.equal((await good.execute(requestFor(fine.confirmation))).audit_error, null);
  assert.equal(records.length, 1);
});

test("seed 003 10.2: skills by proposed_change.type; a type with no skill is rejected before any Apply", async () => {
  const status = countingSkill();
  const temperature = countingSkill();
  const { store, confirmation } = await saved("temperature");
  const executor = new Executor({ store, skills: { status_change: status, temperature }, keys });
  assert.equal((await executor.execute(requestFor(confirmation))).outcome, "applied");
  assert.deepEqual([status.applies, temperature.applies], [0, 1]);

  const unknown = await saved("children");
  const strict = new Executor({ store: unknown.store, skills: { status_change: status }, keys });
  const rejected = await strict.execute(requestFor(unknown.confirmation));
  assert.equal(rejected.rejection.phase, "no_skill");
  assert.equal(rejected.consumed, false);
  assert.equal(rejected.confirmation_state, "approved");
  assert.equal(status.applies, 0);
  assert.throws(() => new Executor({ store, keys }), (error) => error.code === "invalid_port" && error.path === "skill");
  assert.throws(() => new Executor({ store, skills: {}, keys }), (error) => error.code === "invalid_port" && error.path === "skills");
  assert.throws(() => new Executor({ store, skills: { status_change: {} }, keys }), (error) => error.code === "invalid_port" && error.path === "skills.status_change.preview");
});

test("not_yet_valid: a confirmation dated beyond the clock skew; the skew is configurable", async () => {
  const now = Date.now();
  const future = issueConfirmation(draft(), signer, now + 60 * 60 * 1000);
  const input = { confirmation: future, request: requestFor(future), now, keys };
  assert.equal(checkConfirmation(input).phase, "not_yet_valid");
  const near = issueConfirmation(draft(), signer, now + 60 * 1000);
  assert.equal(checkConfirmation({ ...input, confirmation: near, request: requestFor(near) }).verdict, "pending_precondition");
  assert.equal(checkConfirmation({ ...input, confirmation: near, request: requestFor(near), clock_skew_ms: 0 }).phase, "not_yet_valid");
  const store = new MemoryStore();
  await saveConfirmation(store, future);
  const skill = countingSkill();
  const executor = new Executor({ store, skill, keys, now: () => now });
  assert.equal((await executor.execute(requestFor(future))).rejection.phase, "not_yet_valid");
  assert.equal(skill.applies, 0);
  assert.throws(() => new Executor({ store, skill, keys, clockSkewMs: -1 }), (error) => error.code === "invalid_input" && error.path === "clockSkewMs");
});

test("seed 003 6.1: a 200 without applied: true, a 502 and a 504 leave the confirmation in flight", async () => {
  for (const [status, body] of [[200, {}], [502, {}], [504, { message: "upstream timeout" }]]) {
    const { store, confirmation } = await saved();
    const skill = countingSkill(status, body);
    const executor = new Executor({ store, skill, keys });
    const first = await executor.execute(requestFor(confirmation));
    assert.equal(first.outcome, "error", `${status}`);
    assert.equal(first.confirmation_state, "in_flight", `${status}`);
    assert.equal((await executor.execute(requestFor(confirmation))).rejection.phase, "in_flight");
    assert.equal(skill.applies, 1);
  }
});

test("a signature spelled in upper-case hex is signature_invalid", () => {
  const confirmation = issueConfirmation(draft(), signer);
  const shouting = { ...confirmation, signature: confirmation.signature.toUpperCase() };
  const verdict = checkConfirmation({ confirmation: shouting, request: requestFor(shouting), now: Date.now(), keys });
  assert.equal(verdict.phase, "signature_invalid");
});

test("language: the seed's Japanese wording from the Executor; createGovernor gives its language to each component", async () => {
  const { store, confirmation } = await saved();
  const executor = new Executor({ store, skill: { preview: () => ({ current_status: "todo" }), apply: () => ({ status: 422, body: { valid_transitions: ["review"] } }) }, keys, language: "ja" });
  const refused = await executor.execute(requestFor(confirmation));
  assert.equal(refused.reconfirm.reason, "遷移が拒否されました。以下の候補から再承認してください");
  const verdict = checkConfirmation({ confirmation, request: { ...requestFor(confirmation), apply_request: { ...requestFor(confirmation).apply_request, node_id: "other" } }, now: Date.now(), keys, language: "ja" });
  assert.match(verdict.reason, /^承認された Node と対象が異なります/);
  assert.throws(() => new Executor({ store, skill: countingSkill(), keys, language: "fr" }), (error) => error.code === "invalid_input" && error.path === "language");

  const { createGovernor } = await import("agent-governor");
  const answer = { checklist: [{ id: "a", description: "a", completed: false, evidence: null }], allComplete: false, summary: "s", pendingActions: [], confidence: 0.9 };
  const governor = createGovernor({ llm: () => ({ structuredOutput: answer }), store: new MemoryStore(), language: "ja" });
  const input = { structuredOutput: {}, stepId: "s", c3l: { c2: "complete", c3: "task" } };
  const japanese = await governor.closer({ workingDir: "", agentId: "a" }).check(input, () => ({ structuredOutput: answer }));
  assert.ok(japanese.reasons.includes("モデルは allComplete = false と答えています"), japanese.reasons.join("|"));
  const english = await governor.closer({ workingDir: "", agentId: "a", language: "en" }).check(input, () => ({ structuredOutput: answer }));
  assert.ok(english.reasons.includes("the model reports allComplete = false"), english.reasons.join("|"));
});
