// A governed agent: the control loop (seed 002) judges the task board with a model and proposes each change
// to the edge guard, with the Closer's verdict and the Watcher's review (under a different persona) as
// evidence; a person decides in the approval inbox; the agent then asks the guard to apply exactly what was
// approved, once. The agent holds no key that approves: its token lets it propose and apply, nothing more.
// Its execution log (seed 002: JSON lines, size-based retention) is kept in memory and read by `logTail`.
import { Closer, MemoryStore, Watcher, createControlLoop, memoryLogStore, openAICompatible, pickWatcherPersona } from "agent-governor";
import { judgeWithinMoves } from "./judge-within-moves.mjs";

const ACTION_TYPES = {
  status_change: "move one task on the board to a next status (parameters node_id, from, to); one task at a time",
};

export const DEFAULT_GOAL =
  "Move the tasks on the board forward one step at a time (todo -> in_progress -> in_review -> done), proposing one status change per task.";

/** How many lines of the execution log `logTail` returns at most. */
const LOG_TAIL_LINES = 50;

/**
 * Starts the agent. `llm`: { url, model, apiKey? } of an OpenAI-compatible endpoint; `guardUrl` and
 * `agentToken` reach the edge guard; `boardUrl` is the board it observes. With `narrowJudgement`, the judge's
 * answer schema lists the moves the board's skill allows now (see judge-within-moves.mjs): for a model decoded
 * under a grammar, such as the embedded one (a root `oneOf` is not accepted by every hosted structured-output
 * API). Returns { loop, stop, logTail }, where `logTail()` resolves to the newest records of the execution
 * log, oldest first.
 */
export async function startGovernedAgent({
  guardUrl,
  agentToken,
  boardUrl,
  llm,
  goal = DEFAULT_GOAL,
  pollMs = 1000,
  log = () => {},
  logLimitBytes = 1024 * 1024,
  narrowJudgement = false,
}) {
  const query = openAICompatible({ baseUrl: llm.url, model: llm.model, apiKey: llm.apiKey, timeoutMs: 180_000 });
  let moves = [];
  const judge = narrowJudgement ? judgeWithinMoves(query, () => moves, "status_change") : query;
  const closer = new Closer({ workingDir: "", agentId: "board-agent" });
  const watcher = new Watcher({ agentId: "board-agent-watcher", store: new MemoryStore() });
  const reviewer = pickWatcherPersona(null)?.persona ?? null;
  const logs = memoryLogStore({ limitBytes: logLimitBytes });
  const approvedRequests = new Map();
  let stopped = false;

  async function guard(method, path, body) {
    const response = await fetch(`${guardUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${agentToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  /** The Closer's view and the Watcher's review of the proposed step, for the person; a failure is shown, never hidden. */
  async function evidenceFor(action, lines) {
    const [closerView, watcherView] = await Promise.all([closerEvidence(action, lines), watcherEvidence(action, lines)]);
    return { closer: closerView, watcher: watcherView };
  }

  async function closerEvidence(action, lines) {
    try {
      const result = await closer.check(
        {
          structuredOutput: { task: action.parameters?.node_id, from: action.parameters?.from, to: action.parameters?.to, summary: lines[0] },
          stepId: "complete.issue",
          c3l: { c2: "complete", c3: "issue" },
        },
        query,
      );
      return { complete: result.complete, checklist: result.output?.checklist ?? [], summary: result.output?.summary ?? null };
    } catch (error) {
      return { complete: false, checklist: [], summary: `the Closer could not decide: ${error.message}` };
    }
  }

  /** A second reviewer under another persona reads the proposal against the goal; an undecidable answer fails. */
  async function watcherEvidence(action, lines) {
    try {
      const verdict = await watcher.inspect(
        {
          // What the agent produced is the proposal itself (nothing is applied before the person decides).
          executor_result: { status: "done", artifacts: [lines[0], lines[1]], execution_log: `proposed, not applied: ${action.type} ${JSON.stringify(action.parameters ?? {})}: ${lines[0]}` },
          original_request: goal,
          ...(reviewer ? { persona: reviewer } : {}),
        },
        query,
      );
      return { pass: verdict.pass, issues: verdict.issues, persona: verdict.persona_applied ?? null };
    } catch (error) {
      return { pass: false, issues: [`the Watcher could not decide: ${error.message}`], persona: null };
    }
  }

  /** The loop's approval request becomes a proposal to the guard; the person's decision in the inbox is the answer. */
  async function approve(request) {
    const { node_id, from, to } = request.action.parameters ?? {};
    const proposal = await guard("POST", "/v1/proposals", {
      node_id,
      proposed_change: { type: request.action.type, from, to },
      intent: request.note ?? request.lines[0],
      summary: request.lines[0],
      impact_scope: request.lines[1],
      evidence: await evidenceFor(request.action, request.lines),
      agent_id: "board-agent",
    });
    if (proposal.status !== 201) {
      log(`the guard refused the proposal: ${proposal.body.message}`);
      return "n";
    }
    const id = proposal.body.approval_id;
    log(`proposed: ${request.lines[0]} (approval ${id}); waiting for a person`);
    // No timeout (seed 002): the loop is idle until a person decides or the proposal expires.
    while (!stopped) {
      const { body } = await guard("GET", `/v1/approvals/${id}`);
      if (body.state === "approved") {
        approvedRequests.set(request.action.id, body.executor_request);
        return "y";
      }
      if (body.state !== "pending") return "n";
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
    return undefined;
  }

  /** The approved change, applied by the guard (never by the agent itself). */
  async function applyThroughGuard(action) {
    const request = approvedRequests.get(action.id);
    approvedRequests.delete(action.id);
    if (!request) return { succeeded: false, detail: "no approval from the guard for this action" };
    const { status, body } = await guard("POST", "/v1/apply", request);
    if (status !== 200) return { succeeded: false, detail: body.message };
    if (body.outcome === "applied") return { succeeded: true, detail: `${body.node_id}: ${body.applied.from_status} -> ${body.applied.to_status} applied once` };
    return { succeeded: false, detail: `${body.outcome}: ${body.rejection?.reason ?? body.reconfirm?.reason ?? body.error?.message ?? ""}` };
  }

  const loop = createControlLoop({
    goal,
    judge,
    skills: { status_change: applyThroughGuard },
    actionTypes: ACTION_TYPES,
    approve,
    logs,
    chat: (text) => log(`agent: ${text}`),
    onError: (error) => log(`agent error: ${error.message}`),
  });

  /** Every transition the skill offers now, node by node (its Preview), for the narrowed judgement. */
  async function movesOn(tasks) {
    const found = [];
    for (const [node_id, from] of Object.entries(tasks)) {
      const response = await fetch(`${boardUrl}/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ node_id }) });
      if (!response.ok) continue;
      const preview = await response.json();
      for (const transition of preview.valid_transitions ?? []) found.push({ node_id, from, to: transition.status });
    }
    return found;
  }

  let lastBoard = "";
  async function observe() {
    if (stopped) return;
    try {
      const board = await (await fetch(`${boardUrl}/board`)).json();
      const tasks = board.nodes;
      const text = JSON.stringify(tasks);
      if (text !== lastBoard) {
        if (narrowJudgement) moves = await movesOn(tasks);
        lastBoard = text;
        loop.observe({ external: { tasks } });
      }
    } catch (error) {
      log(`the board is unreachable: ${error.message}`);
    }
  }
  await observe();
  const timer = setInterval(observe, 3000);
  return {
    loop,
    async logTail() {
      const text = await logs.tail("execution", 200);
      return text
        .split("\n")
        .filter((line) => line !== "")
        .slice(-LOG_TAIL_LINES)
        .map((line) => JSON.parse(line));
    },
    stop() {
      stopped = true;
      clearInterval(timer);
      loop.stop();
    },
  };
}
