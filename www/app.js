// The approval page: a person approves (y) or declines (n) an agent's proposed status change; on "y" the
// page issues a signed confirmation and the Executor applies it against a demo skill, once.
import {
  Executor,
  MemoryStore,
  issueConfirmation,
  requestFor,
  saveConfirmation,
} from "agent-governor";
import { onShortcut } from "./shortcuts.js";

const $ = (id) => document.getElementById(id);

const proposal = {
  node_id: "node-42",
  proposed_change: { type: "status_change", from: "in_progress", to: "done" },
  intent: "every checklist item of the release notes is ticked",
  reason: "approved in the dashboard after reading the notes",
  ui_action: "approve_button",
};

// The approval side's key lives with the human's UI, never with the agent.
const signer = { keyId: "dashboard", secret: randomSecret() };

let node;
let store;
let executor;
let lastConfirmation = null;

function randomSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A demo skill: one node's status; Apply moves it when the transition is allowed. */
function demoSkill() {
  return {
    preview: async (nodeId) => ({ current_status: node.status, node_id: nodeId }),
    apply: async (request) => {
      node.status = request.confirm_status;
      render();
      return { status: 200, body: { applied: true, from_status: request.confirmation.proposed_change.from, to_status: node.status } };
    },
  };
}

function reset() {
  node = { status: "in_progress" };
  store = new MemoryStore();
  executor = new Executor({
    store,
    skill: demoSkill(),
    keys: { [signer.keyId]: signer.secret },
    audit: (record) => addAudit(record),
  });
  lastConfirmation = null;
  $("audit").replaceChildren();
  $("decision").textContent = "";
  showResult(null);
  $("approve").disabled = false;
  $("decline").disabled = false;
  $("execute-again").disabled = true;
  render();
}

function render() {
  const { from, to } = proposal.proposed_change;
  $("node-status").textContent = node.status;
  $("request-line-1").textContent = `Change ${proposal.node_id} from "${from}" to "${to}"?`;
  $("request-line-2").textContent = `Because ${proposal.intent}. Approve with y, decline with n.`;
}

function showResult(result) {
  $("result").textContent = result ? JSON.stringify(result, null, 2) : "";
  $("outcome").textContent = result ? result.outcome : "none yet";
  $("outcome").dataset.outcome = result ? result.outcome : "";
  $("phase").textContent = result?.rejection ? `(phase: ${result.rejection.phase})` : "";
}

function addAudit(record) {
  const item = document.createElement("li");
  item.textContent = `${record.recorded_at} · ${record.trail} · ${record.outcome}`;
  $("audit").append(item);
}

async function execute() {
  const result = await executor.execute(requestFor(lastConfirmation));
  showResult(result);
  $("execute-again").disabled = false;
}

async function approve() {
  $("approve").disabled = true;
  $("decline").disabled = true;
  lastConfirmation = issueConfirmation(proposal, signer, Date.now());
  await saveConfirmation(store, lastConfirmation);
  $("decision").textContent = `Approved: confirmation ${lastConfirmation.confirmation_id}`;
  await execute();
}

function decline() {
  $("approve").disabled = true;
  $("decline").disabled = true;
  $("decision").textContent = "Declined: nothing was issued, nothing will be applied.";
}

function guard(action) {
  return () =>
    Promise.resolve(action()).catch((error) => {
      $("load-error").hidden = false;
      $("load-error").textContent = `${error.code ?? "error"}: ${error.message}`;
    });
}

$("approve").addEventListener("click", guard(approve));
$("decline").addEventListener("click", guard(decline));
$("execute-again").addEventListener("click", guard(execute));
$("reset").addEventListener("click", guard(reset));
onShortcut({
  y: () => !$("approve").disabled && $("approve").click(),
  n: () => !$("decline").disabled && $("decline").click(),
});

reset();
document.body.dataset.ready = "true";
