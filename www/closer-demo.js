// The Closer demo: the step's structured output is checked by the model the server relays to (the embedded
// local model by default), through the package's built-in OpenAI-compatible client.
import { Closer, openAICompatible } from "agent-governor";

const $ = (id) => document.getElementById(id);

const stepOutput = {
  step: "write the release notes",
  status: "done",
  sections: ["features", "fixes", "upgrade notes"],
  tests: "12 passed, 0 failed",
  committed: true,
};

const closer = new Closer({ workingDir: "", agentId: "dashboard" });

async function modelConfig() {
  const response = await fetch("/config.json");
  const { llm } = await response.json();
  return llm;
}

function show(result) {
  $("closer-verdict").textContent = result.complete ? "complete" : "not complete";
  $("closer-verdict").dataset.complete = String(result.complete);
  $("closer-queries").textContent = `(${result.queries} model ${result.queries === 1 ? "query" : "queries"})`;
  $("closer-reasons").replaceChildren(
    ...result.reasons.map((reason) => Object.assign(document.createElement("li"), { textContent: reason })),
  );
  $("closer-result").textContent = JSON.stringify({ complete: result.complete, output: result.output, error: result.error }, null, 2);
}

async function check(llm) {
  $("check-completion").disabled = true;
  $("closer-verdict").textContent = "asking the model…";
  delete $("closer-verdict").dataset.complete;
  try {
    const structuredOutput = JSON.parse($("closer-input").value);
    const query = openAICompatible({ baseUrl: `${location.origin}/llm`, model: llm.model, timeoutMs: 180_000 });
    show(await closer.check({ structuredOutput, stepId: "complete.task", c3l: { c2: "complete", c3: "task" } }, query));
  } catch (error) {
    $("closer-verdict").textContent = `error: ${error.code ?? ""} ${error.message}`;
  } finally {
    $("check-completion").disabled = false;
  }
}

$("closer-input").value = JSON.stringify(stepOutput, null, 2);
const llm = await modelConfig();
$("closer-model").textContent = llm ? `${llm.model} (${llm.endpoint})` : "none configured";
$("check-completion").disabled = !llm;
$("check-completion").addEventListener("click", () => check(llm));
document.body.dataset.closerReady = "true";
