// The Reflector demo: a reflection on the demo trajectory by the model the server relays to, then the
// playbook before and after it learns (tag counters, curated lessons).
import { MemoryStore, Playbook, createGovernor, openAICompatible } from "agent-governor";

const $ = (id) => document.getElementById(id);

const trajectory = {
  query: "What is the total of all invoices from May?",
  generated_result: "1,250.00",
  reasoning_steps: ["Called GET /invoices?month=5 and got the first page (20 invoices).", "Summed the amounts."],
  used_bullet_ids: ["b-0001", "b-0002"],
};
const groundTruth = "2,730.50 (43 invoices over 3 pages)";
const testReport = "test_total_matches: FAILED (expected 2730.50, got 1250.00)";

const store = new MemoryStore();
const playbook = new Playbook();
playbook.applyDeltas([
  { op_id: "seed/0", op: "ADD", section: "apis", content: "Check the response status before using a body." },
  { op_id: "seed/1", op: "ADD", section: "apis", content: "One page of results is enough for totals." },
]);
await playbook.save(store, "default");

async function reflect(llm) {
  $("reflect").disabled = true;
  $("reflection-status").textContent = "asking the model…";
  try {
    const query = openAICompatible({ baseUrl: `${location.origin}/llm`, model: llm.model, timeoutMs: 180_000 });
    const governor = createGovernor({ llm: query, store });
    const result = await governor.reflector().reflect(trajectory, groundTruth, testReport, "appworld");
    const current = await Playbook.load(store, "default");
    current.applyReflection(result);
    current.applyDeltas(current.curate(`demo-${Date.now()}`, result.insights));
    await current.save(store, "default");
    $("reflection-status").textContent = result.error
      ? `no lessons: ${result.error}`
      : `${result.insights.length} insights, ${result.bullet_evaluations.length} bullet tags`;
    $("reflection-status").dataset.done = "true";
    $("reflection-insights").replaceChildren(
      ...result.insights.map((insight) => Object.assign(document.createElement("li"), { textContent: insight.key_insight })),
      ...result.bullet_evaluations.map((tag) => Object.assign(document.createElement("li"), { textContent: `${tag.bullet_id}: ${tag.tag}` })),
    );
    $("playbook-after").textContent = current.render();
  } catch (error) {
    $("reflection-status").textContent = `error: ${error.code ?? ""} ${error.message}`;
  } finally {
    $("reflect").disabled = false;
  }
}

$("reflector-trajectory").textContent = JSON.stringify({ trajectory, ground_truth: groundTruth, test_report: testReport }, null, 2);
$("playbook-before").textContent = playbook.render();
const { llm } = await (await fetch("/config.json")).json();
$("reflect").disabled = !llm;
$("reflect").addEventListener("click", () => reflect(llm));
document.body.dataset.reflectorReady = "true";
