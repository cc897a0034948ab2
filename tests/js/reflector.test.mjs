// The Reflector, the Playbook and createGovernor from the built package in Node.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MemoryStore, Playbook, createGovernor, parseReflection } from "agent-governor";

const insight = (key) => ({ reasoning: "r", error_identification: "e", root_cause_analysis: "c", correct_approach: "a", key_insight: key });
const trajectory = (used) => ({ query: "sum May's invoices", generated_result: "42", reasoning_steps: ["listed page 1", "summed"], used_bullet_ids: used });

async function seededStore() {
  const store = new MemoryStore();
  const playbook = new Playbook();
  const report = playbook.applyDeltas([
    { op_id: "seed/0", op: "ADD", section: "apis", content: "Always paginate list endpoints." },
    { op_id: "seed/1", op: "ADD", section: "apis", content: "Trust the first page." },
  ]);
  assert.deepEqual(report.added_bullets, ["b-0001", "b-0002"]);
  await playbook.save(store, "default");
  return store;
}

test("createGovernor injects the LLM and the store; one call gives insights and tags", async () => {
  const store = await seededStore();
  const prompts = [];
  const llm = (prompt, options) => {
    prompts.push([prompt, options.schemaName]);
    return { structuredOutput: { insights: [insight("Read every page before summing.")], bullet_evaluations: [
      { bullet_id: "b-0001", tag: "helpful", reason: "paginating was right" },
      { bullet_id: "b-0002", tag: "harmful", reason: "stopped at page 1" },
      { bullet_id: "b-0999", tag: "helpful", reason: "not used" },
    ] } };
  };
  const governor = createGovernor({ llm, store });
  const result = await governor.reflector().reflect(trajectory(["b-0001", "b-0002"]), "43", "1 of 1 failed", "appworld");
  assert.equal(result.error, null);
  assert.equal(prompts.length, 1, "one call for insights and tags");
  assert.equal(prompts[0][1], "reflection");
  assert.match(prompts[0][0], /\[b-0002\] helpful=0 harmful=0 :: Trust the first page\./);
  assert.deepEqual(result.bullet_evaluations.map((e) => e.bullet_id), ["b-0001", "b-0002"]);
  assert.deepEqual(result.dropped_evaluations.map((e) => e.bullet_id), ["b-0999"]);

  const playbook = await Playbook.load(store, "default");
  assert.deepEqual(playbook.applyReflection(result), []);
  const report = playbook.applyDeltas(playbook.curate("r-1", result.insights));
  assert.deepEqual(report.applied, ["r-1/0"]);
  assert.equal(
    playbook.render(),
    "## apis\n[b-0001] helpful=1 harmful=0 :: Always paginate list endpoints.\n[b-0002] helpful=0 harmful=1 :: Trust the first page.\n\n## lessons\n[b-0003] helpful=0 harmful=0 :: Read every page before summing.\n\n",
  );
  await playbook.save(store, "default");
  const stale = await Playbook.load(store, "default");
  playbook.applyDeltas([{ op_id: "r-2/0", op: "ADD", section: "lessons", content: "Check the totals." }]);
  await playbook.save(store, "default");
  await assert.rejects(stale.save(store, "default"), { code: "conflict" });
});

test("an LLM failure is a result with the error and no insights, never a throw", async () => {
  const governor = createGovernor({ llm: () => { throw new Error("quota"); }, store: new MemoryStore() });
  const result = await governor.reflector({ rounds: 2 }).reflect(trajectory([]), "", "", "default");
  assert.match(result.error, /quota/);
  assert.deepEqual(result.insights, []);
});

test("rounds feed the previous insights back; early stop when nothing is new", async () => {
  const seen = [];
  const llm = (prompt) => {
    seen.push(prompt);
    return { structuredOutput: { insights: [insight("Same lesson.")], bullet_evaluations: [] } };
  };
  const result = await createGovernor({ llm, store: new MemoryStore() }).reflector({ rounds: 3, earlyStop: true }).reflect(trajectory([]), "", "", "default");
  assert.equal(result.rounds, 2);
  assert.match(seen[1], /Same lesson\./);
});

test("the playbook's rules: rejected ops with reasons, replays, harm pruning, budget, JSON", () => {
  const playbook = new Playbook();
  playbook.applyDeltas([{ op_id: "a", op: "ADD", section: "s", content: "Keep it." }, { op_id: "b", op: "ADD", section: "s", content: "Drop it." }]);
  const report = playbook.applyDeltas([
    { op_id: "a", op: "ADD", section: "s", content: "Replayed." },
    { op_id: "c", op: "UPDATE", bullet_id: "b-0404", content: "x" },
    { op_id: "d", op: "TAG", bullet_id: "b-0002", tag: "harmful" },
    { op_id: "e", op: "TAG", bullet_id: "b-0002", tag: "harmful" },
    { op_id: "f", op: "TAG", bullet_id: "b-0002", tag: "harmful" },
  ]);
  assert.deepEqual(report.replayed, ["a"]);
  assert.deepEqual(report.rejected, [{ op_id: "c", reason: "no bullet `b-0404`" }]);
  assert.deepEqual(playbook.pruneHarmful(), ["b-0002"]);
  assert.deepEqual(playbook.enforceBudget({ maxChars: 5 }), ["b-0001"]);
  const copy = Playbook.fromJSON(playbook.toJSON());
  assert.deepEqual(copy.toJSON(), playbook.toJSON());
  assert.ok(playbook.toJSON().audit.some((entry) => entry.action === "PRUNE_HARMFUL"));
  assert.equal(parseReflection('{"insights": [], "bullet_evaluations": [{"bullet_id": "b", "tag": "meh", "reason": ""}]}').error.path, "bullet_evaluations[0].tag");
});

test("the container also gives the Closer and the Watcher, with its ports injected", async () => {
  const store = new MemoryStore();
  const llm = () => ({ structuredOutput: { checklist: [{ id: "a", description: "a", completed: true, evidence: null }], allComplete: true, summary: "done", pendingActions: [], confidence: 0.9 } });
  const files = { "/w/.agent/a/prompts/steps/complete/task/f_default.md": "Host prompt: {{ input }}" };
  const governor = createGovernor({ llm, store, loadPrompt: (path) => files[path] ?? null });
  const closer = governor.closer({ workingDir: "/w", agentId: "a" });
  const result = await closer.check({ structuredOutput: { x: 1 }, stepId: "s", c3l: { c2: "complete", c3: "task" } }, llm);
  assert.equal(result.complete, true);
  assert.equal(result.promptPath, "/w/.agent/a/prompts/steps/complete/task/f_default.md");
  const watcher = governor.watcher({ agentId: "a" });
  await watcher.inspect({ executor_result: null, original_request: "r", persona: null, executor_persona: null }, llm);
  const ledger = await watcher.ledger();
  assert.equal(ledger.length, 1);
  assert.ok((await store.get("ledger/watcher/000000000000")) !== undefined, "the ledger is in the container's store");
});
