// The control loop on the page: a goal, the judge's decisions (the model the server relays to), the two-line
// approval with y / n buttons, the chat reports and the execution log's tail (kept in IndexedDB).
import { createControlLoop, indexedDbLogStore, openAICompatible } from "agent-governor";

const $ = (id) => document.getElementById(id);
const item = (text) => Object.assign(document.createElement("li"), { textContent: text });

/** The demo board: the upstream skill whose statuses the agent changes through the Executor. */
const board = {
  status: "review",
  applies: 0,
  preview: () => ({ current_status: board.status, valid_transitions: [{ status: "done", label: "Done" }] }),
  apply(request) {
    board.applies += 1;
    board.status = request.confirm_status;
    $("loop-board").textContent = board.status;
    $("loop-board").dataset.applies = String(board.applies);
    return { status: 200, body: { applied: true } };
  },
};

let pending = null;
function showApproval(request) {
  pending = request;
  $("loop-line-1").textContent = request ? request.lines[0] : "";
  $("loop-line-2").textContent = request ? request.lines[1] : "";
  // The agent's own words, labelled: what is approved is the two lines above, rendered by the machine.
  $("loop-note").textContent = request?.note ? `Agent's note: ${request.note}` : "";
  $("loop-yes").disabled = !request;
  $("loop-no").disabled = !request;
}

async function start() {
  const { llm } = await (await fetch("/config.json")).json();
  $("loop-model").textContent = llm ? `${llm.model} (${llm.endpoint})` : "none configured";
  if (!llm) return;
  const logs = await indexedDbLogStore({ name: "agent-governor-demo-logs" });
  const showLog = async () => {
    $("loop-log").textContent = await logs.tail("execution", 200);
  };
  let loop;
  const build = () =>
    createControlLoop({
      goal: $("loop-goal").value,
      judge: openAICompatible({ baseUrl: `${location.origin}/llm`, model: llm.model, timeoutMs: 180_000 }),
      skills: { status_change: board },
      actionTypes: { status_change: "change a ticket's status on the board (node_id, from, to)" },
      approve: (request) => showApproval(request),
      chat: (text) => $("loop-chat").append(item(text)),
      logs,
      onJudgement: (outcome) =>
        $("loop-judgements").append(item(outcome.ok ? JSON.stringify(outcome.judgement) : `failed: ${outcome.error}`)),
      onEffect: (effect, state) => {
        $("loop-mode").textContent = state.mode;
        // Logs are written after the step; the tail is read once they are.
        if (effect.effect === "append_log") queueMicrotask(() => loop?.settled().then(showLog));
        if (state.mode !== "awaiting_approval" && state.mode !== "stopped") showApproval(null);
      },
    });
  $("loop-start").addEventListener("click", () => {
    loop ??= build();
    loop.observe({ external: { tickets: [{ id: "T-1", status: board.status }] } });
  });
  const answer = (text) => {
    if (!loop || !pending) return;
    const { requestId } = pending;
    showApproval(null);
    loop.answer(text, requestId);
  };
  $("loop-yes").addEventListener("click", () => answer("y"));
  $("loop-no").addEventListener("click", () => answer("n"));
  $("loop-say").addEventListener("click", () => {
    const text = $("loop-message").value.trim();
    if (!text) return;
    loop ??= build();
    loop.say(text);
    $("loop-message").value = "";
  });
  document.body.dataset.loopReady = "true";
}

start();
