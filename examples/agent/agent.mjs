// A governed agent: the control loop (seed 002) judges the task board with a model and proposes each change
// to the edge guard, with the Closer's verdict and the Watcher's review (under a different persona) as
// evidence; a person decides in the approval inbox; the agent then asks the guard to apply exactly what was
// approved, once. The agent holds no key that approves: its token lets it propose and apply, nothing more.
// Its execution log (seed 002: JSON lines, size-based retention) is kept in memory and read by `logTail`.
// It reports what it is doing to the guard (its presence, shown live in the inbox) and takes the privileged
// commands an admin sends through the guard (instruction, goal, stop, resume, discard, rule changes), and the
// replies and answers any approver sends. It follows a person's decline (their words), and their edit.
import { Closer, MemoryStore, Watcher, createControlLoop, executionLogLine, memoryLogStore, openAICompatible, parseTime, pickWatcherPersona } from "agent-governor";
import { judgeWithinMoves } from "./judge-within-moves.mjs";
import { reviewsWithinChange } from "./reviews-within-change.mjs";
import { boardChange, presenceReporter } from "./agent-presence.mjs";
import { carryOut, followCommands } from "./agent-commands.mjs";

const ACTION_TYPES = {
  status_change: "move one task on the board to a next status (parameters node_id, from, to); one task at a time",
};

export const DEFAULT_GOAL =
  "Move the tasks on the board forward one step at a time (todo -> in_progress -> in_review -> done), proposing one status change per task.";

/** How many lines of the logs `logTail` returns at most. */
const LOG_TAIL_LINES = 80;
/** The logs `logTail` merges: what was executed, the developer channel (proposals, declines, stops, privileged commands) and the chat. */
const LOG_CHANNELS = ["execution", "cli", "chat"];
export const AGENT_ID = "board-agent";

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
  rules = null,
}) {
  const client = openAICompatible({ baseUrl: llm.url, model: llm.model, apiKey: llm.apiKey, timeoutMs: 180_000 });
  // Under a grammar (the embedded model) the reviews' free strings are short too (see reviews-within-change.mjs).
  const query = narrowJudgement ? reviewsWithinChange(client) : client;
  let moves = [];
  const narrowed = narrowJudgement ? judgeWithinMoves(query, () => moves, "status_change") : query;
  // What the agent is doing, as the inbox shows it; `activity` is set while a port of the loop runs.
  const presence = presenceReporter({ send: (status) => guard("PUT", `/v1/agents/${AGENT_ID}/status`, status) });
  let activity = null;
  let boardSeen = { at_ms: null, change: null };
  let lastChat = null;
  // `paused` by an admin's stop; replies sent meanwhile are held until the agent goes on.
  const control = { paused: false, heldReplies: [], observeAgain: () => {} };
  function report(state, fields = {}) {
    let goal = null;
    try {
      goal = loop?.state().situation?.goal ?? null;
    } catch {
      // Not built yet.
    }
    return presence.set(state, { ...fields, goal, paused: control.paused, last_message: lastChat, board_seen_ms: boardSeen.at_ms, board_change: boardSeen.change });
  }
  /** Runs a port's work under a presence state, and reports the loop's own state when it is done. */
  async function during(state, fields, work) {
    activity = { state, fields };
    report(state, fields);
    try {
      return await work();
    } finally {
      activity = null;
      // The loop steps on a later turn: report once it has.
      setTimeout(syncPresence, 0);
    }
  }
  /** The loop's own state, when no port is at work. */
  function syncPresence() {
    if (activity !== null || !loop) return;
    const status = loop.status();
    if (status.mode === "stopped") {
      report("stopped", { halt: status.halt, step: status.halt?.kind ?? null });
    } else if (status.mode === "interrupted") report(control.paused ? "paused" : "interrupted", {});
    else if (status.mode === "judging") report("judging", { step: "deciding the next action" });
    // Between the judgement and the proposal's reviews, and between an approval and its Apply, the loop is
    // not idle: it says what it is about to do.
    else if (status.mode === "awaiting_approval") report("reviewing", { step: "the Closer and the Watcher review the proposal", what: status.pending?.lines?.[0] ?? null });
    else if (status.mode === "executing") report("executing", { what: loop.state().in_progress?.lines?.[0] ?? null, approval_id: applying });
    else if (control.paused) report("paused", {});
    else report("idle", {});
  }
  const judge = (prompt, options) => during("judging", { step: "deciding the next action" }, () => narrowed(prompt, options));
  // Under a grammar (the embedded model), the reviews' answers are narrowed too: a short checklist and a few
  // issues about this one step, which a small model can finish without repeating itself.
  const narrowReviews = narrowJudgement ? { closer: { maxChecklistItems: 3, maxPendingActions: 1 }, watcher: { maxIssues: 3, maxBlindspots: 2 } } : { closer: {}, watcher: {} };
  const closer = new Closer({ workingDir: "", agentId: "board-agent", ...narrowReviews.closer });
  const watcher = new Watcher({ agentId: "board-agent-watcher", store: new MemoryStore(), ...narrowReviews.watcher });
  const reviewer = pickWatcherPersona(null)?.persona ?? null;
  const logs = memoryLogStore({ limitBytes: logLimitBytes });
  let loop = null;
  const approvedRequests = new Map();
  // The guard's approval being applied (the inbox shows its lines in the reader's language).
  let applying = null;
  // The guard's approval id of each action proposed and not yet decided.
  const proposedFor = new Map();
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
      return { complete: result.complete, checklist: result.output?.checklist ?? [], summary: result.output?.summary ?? null, model: llm.model };
    } catch (error) {
      return { complete: false, checklist: [], summary: `the Closer could not decide: ${error.message}`, model: llm.model };
    }
  }

  /** A second reviewer under another persona reads the proposal against the goal; an undecidable answer fails. */
  async function watcherEvidence(action, lines) {
    try {
      const verdict = await watcher.inspect(
        {
          // What the agent produced is the proposal itself (nothing is applied before the person decides).
          executor_result: { status: "done", artifacts: [lines[0], lines[1]], execution_log: `proposed, not applied: ${action.type} ${JSON.stringify(action.parameters ?? {})}: ${lines[0]}` },
          // The request is this one step (the whole goal names other tasks, which the review is not about).
          original_request: `${lines[0]} (one step towards: ${loop?.state().situation?.goal ?? goal})`,
          ...(reviewer ? { persona: reviewer } : {}),
        },
        query,
      );
      return { pass: verdict.pass, issues: verdict.issues, persona: verdict.persona_applied ?? null, model: llm.model };
    } catch (error) {
      return { pass: false, issues: [`the Watcher could not decide: ${error.message}`], persona: null, model: llm.model };
    }
  }

  /** The loop's approval request becomes a proposal to the guard; the person's decision in the inbox is the answer. */
  async function approve(request) {
    const { node_id, from, to } = request.action.parameters ?? {};
    // Asked again for the same action (after a stop and a resume, or a restart of the loop's wait): the
    // proposal already in the inbox is the one to wait for, never a second copy of it.
    const earlier = proposedFor.get(request.action.id) ?? (await pendingProposalOf(node_id, request.action.type, from, to));
    if (earlier !== undefined) {
      const { status, body } = await guard("GET", `/v1/approvals/${earlier}`);
      if (status === 200 && ["pending", "approved"].includes(body.state)) {
        proposedFor.set(request.action.id, earlier);
        return waitForDecision(request, earlier);
      }
      proposedFor.delete(request.action.id);
    }
    const evidence = await during("reviewing", { step: "the Closer and the Watcher review the proposal", what: request.lines[0] }, () =>
      evidenceFor(request.action, request.lines),
    );
    // Stopped or paused during the reviews: nothing is proposed (a resume asks again).
    if (stopped || control.paused || loop.status().mode !== "awaiting_approval") return undefined;
    // The agent observes again before proposing: a move from a state the board has left is never proposed;
    // the loop judges the board as it is now instead.
    const current = await nodeStatus(node_id);
    if (current !== null && current !== from) {
      await observe();
      log(`withdrawn before proposing: ${request.lines[0]} (${node_id} is ${current} now)`);
      return { withdraw: `the board moved on: ${node_id} is ${current} now, not ${from}` };
    }
    const proposal = await guard("POST", "/v1/proposals", {
      node_id,
      proposed_change: { type: request.action.type, from, to },
      intent: request.note ?? request.lines[0],
      summary: request.lines[0],
      impact_scope: request.lines[1],
      evidence,
      agent_id: AGENT_ID,
    });
    if (proposal.status !== 201) {
      log(`the guard refused the proposal: ${proposal.body.message}`);
      return "n";
    }
    const id = proposal.body.approval_id;
    proposedFor.set(request.action.id, id);
    log(`proposed: ${request.lines[0]} (approval ${id}); waiting for a person`);
    return waitForDecision(request, id);
  }

  /**
   * This agent's proposal of the same change still waiting for a person (made before a restart of the
   * agent), so that the person never sees the same change twice; undefined when there is none.
   */
  async function pendingProposalOf(nodeId, type, from, to) {
    const { status, body } = await guard("GET", "/v1/approvals?state=pending&limit=100");
    if (status !== 200) return undefined;
    return body.approvals.find(
      (approval) =>
        approval.agent_id === AGENT_ID &&
        approval.node_id === nodeId &&
        approval.proposed_change?.type === type &&
        approval.proposed_change?.from === from &&
        approval.proposed_change?.to === to,
    )?.approval_id;
  }

  /**
   * No timeout (seed 002): the loop waits until a person decides on approval `id` or it expires. A person who
   * edited the proposal decides on their edit (`edited_as`): approved, the loop is told the edited change
   * (`{ edited }`), which the guard then applies as they signed it.
   */
  function waitForDecision(request, proposed) {
    let id = proposed;
    return during("waiting", { approval_id: id, what: request.lines[0] }, async () => {
      while (!stopped) {
        // A stop or a person's message set the request aside: the answer then comes through the loop.
        if (loop.status().pending?.requestId !== request.requestId && loop.status().mode !== "awaiting_approval") return undefined;
        const { body } = await guard("GET", `/v1/approvals/${id}`);
        if (body.state === "edited" && typeof body.edited_as === "string") {
          id = body.edited_as;
          continue;
        }
        if (body.state === "approved" && id !== proposed) {
          proposedFor.delete(request.action.id);
          const edited = { node_id: body.node_id, from: body.proposed_change.from, to: body.proposed_change.to };
          approvedRequests.set(editedKey(edited), body.executor_request);
          applying = id;
          log(`edited by a person before approving: ${request.lines[0]} -> ${body.request.what}`);
          return { edited };
        }
        if (body.state === "approved") {
          proposedFor.delete(request.action.id);
          approvedRequests.set(request.action.id, body.executor_request);
          applying = id;
          return "y";
        }
        if (body.state !== "pending") {
          proposedFor.delete(request.action.id);
          // A person's decline carries their words to the judge (and the same change is not proposed again
          // until the board or an instruction changes). An approval that expired with nobody deciding is no
          // person's decline: it is set aside and the board judged again. Any other end is a plain no.
          if (body.state === "expired") return { withdraw: "the approval expired before anyone decided" };
          const reason = body.state === "declined" ? body.decision?.reason : null;
          return typeof reason === "string" && reason.trim() !== "" ? { decline: reason } : "n";
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
      return undefined;
    });
  }

  /** The approved change, applied by the guard (never by the agent itself). */
  function applyThroughGuard(action) {
    return during("executing", { what: action.lines?.[0] ?? action.type, approval_id: applying }, async () => {
      try {
        return await applyApproved(action);
      } finally {
        applying = null;
      }
    });
  }

  /** Where an edited change's approval is kept until the loop runs it (the edited action has a new id). */
  const editedKey = (parameters) => `edited:${JSON.stringify([parameters?.node_id, parameters?.from, parameters?.to])}`;

  async function applyApproved(action) {
    const key = approvedRequests.has(action.id) ? action.id : editedKey(action.parameters);
    const request = approvedRequests.get(key);
    approvedRequests.delete(key);
    if (!request) return { succeeded: false, detail: "no approval from the guard for this action" };
    const { status, body } = await guard("POST", "/v1/apply", request);
    if (status !== 200) return { succeeded: false, detail: body.message };
    if (body.outcome === "applied") return { succeeded: true, detail: `${body.node_id}: ${body.applied.from_status} -> ${body.applied.to_status} applied once` };
    // The node had left the approved `from`: nothing was applied, and the loop judges the board as it is now.
    if (body.outcome === "reconfirm_required") return { succeeded: false, notApplied: true, detail: `the node moved on: ${body.reconfirm?.reason ?? "its status changed"}` };
    return { succeeded: false, detail: `${body.outcome}: ${body.rejection?.reason ?? body.reconfirm?.reason ?? body.error?.message ?? ""}` };
  }

  loop = createControlLoop({
    goal,
    judge,
    skills: { status_change: applyThroughGuard },
    actionTypes: ACTION_TYPES,
    approve,
    logs,
    ...(rules ? { storage: { save: () => {}, saveRules: rules.save, loadRules: rules.load } } : {}),
    chat: (text) => {
      lastChat = text;
      log(`agent: ${text}`);
      setTimeout(syncPresence, 0);
    },
    onError: (error) => log(`agent error: ${error.message}`),
  });

  /** The node's status now (the skill's Preview), or null when the board cannot say. */
  async function nodeStatus(nodeId) {
    try {
      const response = await fetch(`${boardUrl}/preview`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ node_id: nodeId }) });
      if (!response.ok) return null;
      const preview = await response.json();
      return typeof preview.current_status === "string" ? preview.current_status : null;
    } catch {
      return null;
    }
  }

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
  let lastTasks = null;
  async function observe() {
    if (stopped) return;
    try {
      const board = await (await fetch(`${boardUrl}/board`)).json();
      const tasks = board.nodes;
      const text = JSON.stringify(tasks);
      if (text !== lastBoard) {
        boardSeen = { at_ms: Date.now(), change: boardChange(lastTasks, tasks) };
        lastTasks = tasks;
        // While paused the board is watched (and shown) but not judged.
        if (control.paused) {
          syncPresence();
          return;
        }
        if (activity === null) report("observing", { step: boardSeen.change });
        if (narrowJudgement) moves = await movesOn(tasks);
        lastBoard = text;
        loop.observe({ external: { tasks } });
        setTimeout(syncPresence, 0);
      }
    } catch (error) {
      log(`the board is unreachable: ${error.message}`);
    }
  }
  control.observeAgain = () => {
    // Going on after a pause: the replies held meanwhile reach the loop now.
    if (!control.paused) {
      for (const text of control.heldReplies.splice(0)) loop.reply(text);
    }
    lastBoard = "";
    observe();
  };
  // A stop survives a restart: the guard kept the agent's last report.
  const last = await guard("GET", `/v1/agents/${AGENT_ID}/status`).catch(() => null);
  if (last?.status === 200 && last.body?.paused === true) {
    control.paused = true;
    log("paused, as before the restart: a resume or an instruction sets it going");
  }
  await observe();
  const timer = setInterval(observe, 3000);
  const commands = followCommands({
    guard,
    agentId: AGENT_ID,
    pollMs,
    onCommand: (command) => {
      const chatBefore = lastChat;
      const result = carryOut(loop, control, command);
      // The loop says when it refuses a developer command: that command was not carried out.
      if (result.carried_out && lastChat !== chatBefore && /^Developer command refused/.test(lastChat ?? "")) {
        result.carried_out = false;
        result.detail = lastChat;
      }
      log(`command ${command.seq}: ${result.carried_out ? "" : "not carried out: "}${result.detail}`);
      // Every command a person sent is in the agent's developer log, by its verb, carried out or not (the
      // loop logs only what reaches it as a developer command or a message).
      const line = `${command.verb}${command.text ? ` ${command.text}` : ""}`;
      const record = {
        event_summary: ["reply", "answer"].includes(command.verb) ? `${command.verb} from a person` : "privileged command",
        cause: `${line} (from ${command.approver}): ${result.carried_out ? "" : "not carried out: "}${result.detail}`,
        impact_scope: `command ${command.seq}`,
      };
      // A log that refuses the line never costs the command its reported result.
      try {
        Promise.resolve(logs.append("cli", executionLogLine(new Date().toISOString(), record))).catch((error) => log(`the log refused command ${command.seq}: ${error.message}`));
      } catch (error) {
        log(`the log refused command ${command.seq}: ${error.message}`);
      }
      setTimeout(syncPresence, 0);
      return result;
    },
    onError: (error, command) => log(`command ${command ? command.seq : "channel"}: ${error.message}`),
  });
  return {
    id: AGENT_ID,
    loop,
    /** The newest records of the execution, developer and chat logs, oldest first, each with its `channel`. */
    async logTail() {
      const records = [];
      for (const channel of LOG_CHANNELS) {
        const text = await logs.tail(channel, 200);
        for (const line of text.split("\n")) {
          if (line !== "") records.push({ ...JSON.parse(line), channel });
        }
      }
      // Ordered by the time the core reads from each record (never compared as text).
      for (const record of records) {
        try {
          record.time_ms = parseTime(record.time);
        } catch {
          record.time_ms = null;
        }
      }
      return records.sort((a, b) => (a.time_ms ?? 0) - (b.time_ms ?? 0)).slice(-LOG_TAIL_LINES);
    },
    presence: () => presence.current(),
    stop() {
      stopped = true;
      clearInterval(timer);
      commands.stop();
      loop.stop();
    },
  };
}
