// The Watcher demo: the executor's result is reviewed under a persona picked to cover the executor's
// blind spot, by the model the server relays to.
import { MemoryStore, Watcher, openAICompatible, personaCatalog, pickWatcherPersona } from "agent-governor";

const $ = (id) => document.getElementById(id);

const executorPersona = personaCatalog().find((persona) => persona.name === "Kent Beck");
const { persona, report } = pickWatcherPersona(executorPersona);
const input = {
  executor_result: {
    status: "done",
    artifacts: ["release-notes.md"],
    execution_log: "Wrote the release notes for node-42, keeping them short (Kent Beck).",
    persona_applied: executorPersona.name,
  },
  original_request: "Write the release notes for the next version.",
  persona,
  executor_persona: executorPersona,
  task_classification: "implement",
};
const watcher = new Watcher({ agentId: "dashboard", store: new MemoryStore() });

function show(output) {
  $("watcher-verdict").textContent = output.pass ? "pass" : "fail";
  $("watcher-verdict").dataset.pass = String(output.pass);
  $("watcher-issues").replaceChildren(...output.issues.map((issue) => Object.assign(document.createElement("li"), { textContent: issue })));
  $("watcher-log").textContent = output.inspection_log;
}

async function review(llm) {
  $("review").disabled = true;
  $("watcher-verdict").textContent = "asking the model…";
  delete $("watcher-verdict").dataset.pass;
  try {
    const query = openAICompatible({ baseUrl: `${location.origin}/llm`, model: llm.model, timeoutMs: 180_000 });
    show(await watcher.inspect(input, query));
  } catch (error) {
    $("watcher-verdict").textContent = `error: ${error.code ?? ""} ${error.message}`;
  } finally {
    $("review").disabled = false;
  }
}

$("watcher-executor").textContent = `${executorPersona.name} (blind spot: ${executorPersona.blindspot})`;
$("watcher-persona").textContent = persona.name;
$("watcher-divergence").textContent = `divergence ${report.score.toFixed(2)}${report.covers_blindspot ? ", covers the blind spot" : ""}`;
const { llm } = await (await fetch("/config.json")).json();
$("review").disabled = !llm;
$("review").addEventListener("click", () => review(llm));
document.body.dataset.watcherReady = "true";
