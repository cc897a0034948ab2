// Records answers of the local model (SmolLM2-135M) WITHOUT a grammar constraint (no response_format) to
// the shipped prompts of the Closer, the Watcher and the Reflector, for the parser corpus.
//
// Usage (after `npm run build`): node scripts/record-model-answers.mjs
// Writes tests/fixtures/corpus/local-model/<component>-<nn>.txt, one raw answer per file. The answers are
// kept as recorded; their expected parse outcomes are in tests/fixtures/corpus/local-model/labels.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Closer, MemoryStore, Playbook, Watcher, createGovernor, personaCatalog } from "agent-governor";
import { startModelServer } from "../examples/local-llm/server.mjs";

const out = fileURLToPath(new URL("../tests/fixtures/corpus/local-model/", import.meta.url));
mkdirSync(out, { recursive: true });
const server = await startModelServer({ port: 0 });
const counters = { closer: 0, watcher: 0, reflector: 0 };

/** A QueryFn that asks the model with no schema and no grammar, and records the raw text. */
function recording(component, temperature) {
  return async (prompt) => {
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: prompt }], max_tokens: 256, temperature }),
    });
    const body = await response.json();
    const text = body.choices?.[0]?.message?.content ?? "";
    counters[component] += 1;
    writeFileSync(join(out, `${component}-${String(counters[component]).padStart(2, "0")}.txt`), text);
    return { text };
  };
}

const temperatures = [0, 0.4, 0.8, 1.1];
const outputs = [
  { status: "implemented", tests: "passing", committed: true },
  { status: "implemented", tests: "2 failing", committed: false },
  { status: "in review", reviewers: ["ana"], approvals: 0 },
  { status: "done", changedFiles: ["src/a.rs", "src/b.rs"], ci: "green" },
  { status: "blocked", reason: "waiting for the API key" },
  { summary: "ボタンの色を変更しました", tests: "全て成功" },
  { status: "implemented", tests: "passing", committed: true, docs: "not updated" },
  { status: "started" },
  { status: "merged", release: "v1.2.0" },
  { status: "implemented", notes: "see PR #42" },
];
const c3s = ["issue", "pr", "task"];
for (let index = 0; index < 40; index += 1) {
  const closer = new Closer({ workingDir: "", agentId: "recorder", maxReasks: 0 });
  const input = {
    structuredOutput: outputs[index % outputs.length],
    stepId: `step-${index}`,
    c3l: { c2: "complete", c3: c3s[index % c3s.length] },
  };
  await closer.check(input, recording("closer", temperatures[index % temperatures.length]));
}

const byName = (name) => personaCatalog().find((persona) => persona.name === name);
const requests = [
  ["design the API for invoices", ["api-design.md"], "design"],
  ["fizzbuzz を作って", ["fizzbuzz.py"], "implement"],
  ["write the release notes", ["NOTES.md"], "implement"],
  ["このAPIの設計方針を決めたい", ["api-design-proposal.md"], "design"],
  ["fix the login bug", ["auth.ts", "auth.test.ts"], "implement"],
];
for (let index = 0; index < 30; index += 1) {
  const [request, artifacts, classification] = requests[index % requests.length];
  const withPersona = index % 2 === 0;
  const watcher = new Watcher({ agentId: "recorder", store: new MemoryStore(), maxReasks: 0, language: index % 3 === 0 ? "ja" : "en" });
  await watcher.inspect(
    {
      executor_result: { status: "done", artifacts, execution_log: "done", persona_applied: withPersona ? "Kent Beck" : null },
      original_request: request,
      persona: withPersona ? byName("Martin Fowler") : null,
      executor_persona: withPersona ? byName("Kent Beck") : null,
      task_classification: classification,
    },
    recording("watcher", temperatures[index % temperatures.length]),
  );
}

const store = new MemoryStore();
const playbook = new Playbook();
playbook.applyDeltas([
  { op_id: "seed/0", op: "ADD", section: "apis", content: "Always paginate list endpoints." },
  { op_id: "seed/1", op: "ADD", section: "apis", content: "Trust the first page of results." },
]);
await playbook.save(store, "default");
const tasks = [
  ["sum May's invoices", "42", "43"],
  ["count the open issues", "17", "17"],
  ["find the newest user", "bob", "alice"],
  ["請求書の合計を出す", "1000", "1200"],
  ["list failing tests", "none", "test_login"],
];
for (let index = 0; index < 30; index += 1) {
  const [query, result, truth] = tasks[index % tasks.length];
  const governor = createGovernor({ llm: recording("reflector", temperatures[index % temperatures.length]), store });
  await governor
    .reflector({ maxReasks: 0 })
    .reflect({ query, generated_result: result, reasoning_steps: ["listed the data", "computed"], used_bullet_ids: ["b-0001", "b-0002"] }, truth, result === truth ? "1 of 1 passed" : "1 of 1 failed", index % 2 ? "appworld" : "default");
}

await server.close();
console.log(`recorded ${JSON.stringify(counters)} answers into ${out}`);
