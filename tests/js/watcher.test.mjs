// The Watcher from the built package in Node.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  MemoryStore,
  Watcher,
  checkPersonaDivergence,
  openAICompatible,
  parseWatcherVerdict,
  personaCatalog,
  pickWatcherPersona,
} from "agent-governor";
import { startFakeLlm } from "../support/fake-llm-server.mjs";

let fake;
before(async () => {
  fake = await startFakeLlm(0);
});
after(() => fake?.close());

const byName = (name) => personaCatalog().find((persona) => persona.name === name);
const input = (artifacts) => ({
  executor_result: { status: "done", artifacts, execution_log: "done", persona_applied: "Kent Beck" },
  original_request: "design the API",
  persona: byName("Martin Fowler"),
  executor_persona: byName("Kent Beck"),
  task_classification: "design",
});

test("the seed's personas: Fowler watches Beck, and a persona never watches itself", () => {
  const { persona, report } = pickWatcherPersona(byName("Kent Beck"));
  assert.equal(persona.name, "Martin Fowler");
  assert.equal(report.covers_blindspot, true);
  assert.throws(() => checkPersonaDivergence(byName("Kent Beck"), { ...byName("Kent Beck"), name: "kent  BECK" }), (error) => {
    assert.equal(error.code, "persona_precondition");
    assert.equal(error.violation.violation, "same_name");
    return true;
  });
});

test("a review through the built-in client: declaration first, verdict enforced, ledger written", async () => {
  const store = new MemoryStore();
  const watcher = new Watcher({ agentId: "w", store, language: "en" });
  const query = openAICompatible({ baseUrl: `http://127.0.0.1:${fake.address().port}/ok/v1`, model: "scripted" });
  const output = await watcher.inspect(input(["api.md"]), query);
  assert.equal(output.pass, true);
  assert.equal(output.persona_applied, "Martin Fowler");
  assert.match(output.inspection_log, /^## Persona declaration\n\nThis time I inspect as Martin Fowler\./);
  assert.deepEqual(output.blindspots_covered, ["future change: checked"]);
  const empty = await watcher.inspect(input([]), () => assert.fail("no model call for empty artifacts"));
  assert.equal(empty.pass, false);
  const ledger = await watcher.ledger();
  assert.deepEqual(ledger.map((entry) => [entry.component, entry.event_type, entry.verdict]), [["watcher", "decision", true], ["watcher", "decision", false]]);
});

test("runProtocol re-runs the executor with the issues and escalates after three rounds", async () => {
  const watcher = new Watcher({ agentId: "w", store: new MemoryStore() });
  const failing = () => ({
    structuredOutput: { pass: false, issues: ["CRITICAL: no auth"], inspection_log: "checked", blindspots_covered: ["x"], misclassification_detected: false, reclassification_suggestion: null, trade_offs_acknowledged: false },
  });
  const calls = [];
  const rerun = (issues, round) => {
    calls.push([issues, round]);
    return { status: "done", artifacts: [`api-v${round}.md`], execution_log: "", persona_applied: "Kent Beck" };
  };
  const result = await watcher.runProtocol(input(["api-v1.md"]), failing, rerun);
  assert.equal(result.agreed, false);
  assert.deepEqual(calls, [[["CRITICAL: no auth"], 2], [["CRITICAL: no auth"], 3]]);
  assert.equal(result.escalation.to, "human");
  assert.deepEqual(result.escalation.last_artifacts, ["api-v3.md"]);
  assert.equal(result.escalation.rounds.length, 3);
});

test("parseWatcherVerdict and malformed input", async () => {
  const parsed = parseWatcherVerdict('{"pass": true, "issues": [], "inspection_log": "x", "blindspots_covered": [], "misclassification_detected": false, "reclassification_suggestion": null, "trade_offs_acknowledged": true}');
  assert.equal(parsed.ok, true);
  const watcher = new Watcher({ agentId: "w", store: new MemoryStore() });
  await assert.rejects(watcher.inspect({ original_request: 5 }, () => ({})), { code: "invalid_input", path: "input.original_request" });
  assert.throws(() => new Watcher({ agentId: "w" }), { code: "invalid_port", path: "store" });
});

test("the seed's output shape is decided by step 4, a plain-prompt override keeps personas, other fields are reported", async () => {
  const prompts = [];
  const loadPrompt = (path) => (path.endsWith("steps/review/watcher/f_default.md") ? "HOST PLAIN {{ original_request }}" : null);
  const watcher = new Watcher({ agentId: "w", store: new MemoryStore(), loadPrompt, maxReasks: 0 });
  const seedShape = (pass, issues) => ({
    structuredOutput: { pass, issues, inspection_log: "## Inspection\n1. ok", persona_applied: "Martin Fowler", blindspots_covered: ["future change: checked"] },
  });
  const query = (answer) => (prompt) => {
    prompts.push(prompt);
    return answer;
  };
  const withExtras = { ...input(["api.md"]) };
  withExtras.executor_result = { ...withExtras.executor_result, status: "success", duration_ms: 12 };
  const passed = await watcher.inspect(withExtras, query(seedShape(true, ["minor: naming"])));
  assert.equal(passed.pass, true, passed.issues.join("; "));
  assert.equal(passed.persona_applied, "Martin Fowler");
  assert.deepEqual(passed.ignored_input_fields, ["executor_result.duration_ms"]);
  assert.doesNotMatch(prompts[0], /HOST PLAIN/);
  const failed = await watcher.inspect(input(["api.md"]), query(seedShape(true, ["CRITICAL: no auth"])));
  assert.equal(failed.pass, false);
  const plain = await watcher.inspect({ ...input(["api.md"]), persona: null, executor_persona: null }, query(seedShape(true, [])));
  assert.match(prompts.at(-1), /^HOST PLAIN design the API/);
  assert.equal(plain.persona_applied, null);
  const verdict = parseWatcherVerdict(JSON.stringify(seedShape(true, []).structuredOutput));
  assert.deepEqual([verdict.ok, verdict.verdict.approval_criteria, verdict.verdict.misclassification_detected], [true, null, null]);
  const long = parseWatcherVerdict(JSON.stringify(seedShape(true, Array.from({ length: 12 }, (_, n) => `minor ${n}`)).structuredOutput), { maxIssues: 10 });
  assert.deepEqual([long.ok, long.error.path], [false, "issues"]);
  assert.match(long.error.message, /`maxIssues` allows at most 10/);
});
