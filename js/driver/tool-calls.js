// Tool calls that run only with a person's approval, whatever agent framework makes them. Each call of a
// governed tool is a change to approve (`toolCallChange`: the tool and its arguments as canonical JSON, and the
// call's id), and it runs only through the Executor: once, when a signed, unexpired, unused confirmation binds
// exactly that call, with exactly the approved arguments. The framework adapters are built on this.
import { typedError } from "../approver/errors.js";
import { isBlank } from "../approver/canonical.js";
import { isPlainObject } from "../approver/plain-object.js";
import { GOVERN_TOOL_CALLS_OPTIONS, closestName, readOptions } from "../approver/options.js";
import { Executor, changeDigest, checkConfirmation, toolCallChange } from "../wasm/agent_governor_full.js";

/** The call's own words in its confirmation: its id, so an approval of one call never runs another. */
const intentOf = (callId) => `tool call ${callId}`;
/**
 * The action a call is: its tool, its id and what it does (the change's digest: two calls that share an id
 * but not their arguments, in two threads, are two actions). However many confirmations approve it (two
 * signatures of one draft, a restored framework state approved again), the Executor runs it once.
 */
export function toolCallActionId(tool, callId, digest) {
  // The tool's name as the core reads it (1-128 characters, no white space or control character).
  readAt("tool", () => toolCallChange(tool, {}));
  if (typeof callId !== "string" || !CALL_ID.test(callId) || !callId.isWellFormed()) {
    throw typedError("invalid_input", "callId", "callId must be 1-256 characters, no space, control or format character");
  }
  if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest)) throw typedError("invalid_input", "digest", "digest must be the change's digest (changeDigest: 64 lower-case hex digits)");
  return `tool-call/${tool}/${callId}/${digest}`;
}

/** Where the id of the confirmation kept for a call is stored: by the call's id and what it does. */
const approvalKey = (callId, digest) => `tool-call/${encodeURIComponent(callId)}/${digest}`;
/** Where a call's output is kept once it ran (with `keepOutputs`), by its confirmation's id. */
const outputKey = (confirmationId) => `tool-call-output/${encodeURIComponent(confirmationId)}`;
/** Where the ids of the standing approvals registered for these tools are listed. */
const MANDATES_KEY = "tool-call-mandates";
/** The id of the confirmation a standing approval makes for a call: one per mandate and action. */
const mandateConfirmationId = (mandateId, agentId, read) =>
  `mandate/${mandateId}/${encodeURIComponent(agentId)}/${encodeURIComponent(read.callId)}/${read.digest}`;
/** The largest output kept (its JSON text). */
const MAX_KEPT_OUTPUT = 1 << 20;
/** A call id: what frameworks use (letters, digits, punctuation), never a control or format character. */
const CALL_ID = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s]{1,256}$/u;

/** `read()`, with anything it throws that is not already typed reported as `code` at `path`. */
function readAt(path, read, code = "invalid_input") {
  try {
    return read();
  } catch (error) {
    if (error?.name === "AgentGovernorError") throw error;
    throw typedError(code, path, `${path} could not be read: ${error?.message ?? String(error)}`);
  }
}

/** The store's answer, or a typed `storage_error` when the host's store fails. */
async function stored(what, operation) {
  try {
    return await operation();
  } catch (error) {
    if (error?.name === "AgentGovernorError") throw error;
    throw typedError("storage_error", "store", `the store failed to ${what}: ${error?.message ?? String(error)}`);
  }
}

/**
 * What became of a call that did not answer with its output, in one vocabulary for every adapter and
 * gateway: `"ran"` (it ran before, by this or another approval of the same action), `"may_have_run"` (it
 * was started and its outcome is unknown: a person reconciles it) or `"not_run"` (refused before it was
 * sent: the approval, if any, is still usable).
 */
export function ranOf(result) {
  return readAt("result", () => {
    if (!isPlainObject(result)) throw typedError("invalid_input", "result", "result must be an ExecutorResult");
    return ranOfResult(result);
  });
}

function ranOfResult(result) {
  if (result?.outcome === "applied") return "ran";
  // What the action came to, as the Executor's ledger says, comes first: a refusal of one approval (expired,
  // cancelled, never stored) of an action that ran is still an action that ran.
  const first = result?.first_run?.state;
  if (first === "applied" || first === "reconciled_applied") return "ran";
  if (first === "in_flight") return "may_have_run";
  if (first === "reconciled_not_applied") return "not_run";
  const phase = result?.rejection?.phase;
  if (phase === "already_consumed") return "ran";
  if (phase === "in_flight" || phase === "action_in_flight" || result?.confirmation_state === "in_flight") return "may_have_run";
  return "not_run";
}

/**
 * Why `call` did not answer with its output, as an error for the framework to report, with `ran` (see
 * `ranOf`) and `outcome` attached: `action_already_ran` (it ran before: asking again does not run it again),
 * `action_in_flight` (another approval of it is running it, or left its outcome unknown), `outcome_unknown`
 * (it may have run: a person reconciles it; do not ask again) or `not_approved` (nothing ran).
 */
export function refusalOf(call, outcome) {
  const { tool, callId } = readAt("call", () => {
    if (!isPlainObject(call)) throw typedError("invalid_input", "call", "call must be { tool, arguments, callId }");
    return { tool: String(call.tool), callId: String(call.callId) };
  });
  const { result, given } = readAt("outcome", () => {
    if (!isPlainObject(outcome)) throw typedError("invalid_input", "outcome", "outcome must be what run or runApproved resolved to");
    return { result: isPlainObject(outcome.result) ? outcome.result : null, given: String(outcome.outcome) };
  });
  const ran = ranOfResult(result);
  const first = isPlainObject(result?.first_run) ? result.first_run : null;
  if (ran === "ran") {
    const when = first ? ` at ${first.at}, approved by confirmation ${first.confirmation_id}` : "";
    return Object.assign(
      typedError("action_already_ran", "call", `${tool} (call ${callId}) already ran${when}; it is not run again. To do it again, make a new call.`),
      { outcome, ran },
    );
  }
  if (result?.rejection?.phase === "action_in_flight") {
    return Object.assign(
      typedError("action_in_flight", "call", `${tool} (call ${callId}) is running under another approval, or its outcome is unknown until a person reconciles it; it is not run again.`),
      { outcome, ran },
    );
  }
  if (ran === "may_have_run") {
    const reason = result?.error?.message ?? result?.rejection?.reason ?? "the tool did not finish";
    return Object.assign(
      typedError("outcome_unknown", "call", `${tool} (call ${callId}) may have run: its outcome is unknown (${reason}). A person must reconcile it; do not ask again.`),
      { outcome, ran },
    );
  }
  const phase = result?.rejection?.phase ?? result?.outcome ?? given;
  const reason = result?.rejection?.reason ?? result?.error?.message;
  return Object.assign(typedError("not_approved", "call", `${tool} (call ${callId}) did not run (${phase})${reason ? `: ${reason}` : ""}`), { outcome, ran });
}

/**
 * Marks `error`, thrown by a tool, as proof that the call never left (no connection, a tool the upstream
 * does not have, refused before sending): the Executor then records that nothing ran and the approval stays
 * usable. Any other error leaves the call's outcome unknown.
 */
export function notSent(error) {
  if (!(error instanceof Error)) throw typedError("invalid_input", "error", "error must be the Error the call failed with");
  return Object.assign(error, { notSent: true });
}

/**
 * Governs `tools` (`{ name: async (args, context) => output }`; `context` is what `run` or `runApproved` was
 * given beside the call, e.g. the framework's abort signal). `options`: the Executor's `store` and `keys` (and
 * its other options: `now`, `audit`, `clockSkewMs`, `audience`, `sealKey`, `language`), `whitelist`, the
 * tools that run with no approval, and `keepOutputs` (each run's output kept in the store, for `output(id)`).
 */
export function governToolCalls(given, givenOptions) {
  // Read once: a tool added or replaced later, or a whitelist changed later, is not this set's.
  const tools = readAt("tools", () => {
    if (!isPlainObject(given)) throw typedError("invalid_input", "tools", "tools must be { name: async (args) => output }");
    return Object.fromEntries(Object.entries(given));
  });
  const options = readOptions("governToolCalls", "options", givenOptions, GOVERN_TOOL_CALLS_OPTIONS, { required: true });
  for (const [name, run] of Object.entries(tools)) {
    if (typeof run !== "function") throw typedError("invalid_input", `tools.${name}`, `tools.${name} must be a function`);
  }
  const { whitelist: givenWhitelist = [], keepOutputs = false, agentId = null, ...executorOptions } = options;
  if (agentId !== null && (typeof agentId !== "string" || isBlank(agentId))) {
    throw typedError("invalid_input", "options.agentId", "agentId must be the agent's id, as standing approvals name it");
  }
  const whitelist = readAt("options.whitelist", () => {
    if (!Array.isArray(givenWhitelist)) throw typedError("invalid_input", "options.whitelist", "whitelist must list names of the given tools");
    const names = new Set([...givenWhitelist]);
    for (const name of names) {
      if (typeof name !== "string") throw typedError("invalid_input", "options.whitelist", "whitelist must list names of the given tools");
      if (!Object.hasOwn(tools, name)) {
        const meant = closestName(name, Object.keys(tools));
        const hint = meant === undefined ? "" : `; did you mean ${JSON.stringify(meant)}?`;
        throw typedError("invalid_input", "options.whitelist", `whitelist names ${JSON.stringify(name)}, which is not one of the given tools${hint}`);
      }
    }
    return names;
  });
  if (typeof keepOutputs !== "boolean") throw typedError("invalid_input", "options.keepOutputs", "keepOutputs must be true or false");
  const tool = (name) => {
    if (typeof name !== "string" || !Object.hasOwn(tools, name)) throw typedError("unknown_tool", "call.tool", `no governed tool is named ${JSON.stringify(name)}`);
    return tools[name];
  };
  // The run in progress for each confirmation in this process: its context, and its output once the tool
  // returns. Runs of one confirmation take turns (the Executor lets at most one apply), so a run never reads
  // another's context.
  const runs = new Map();
  const turns = new Map();
  const skill = {
    // A tool call has no state to read before it runs: the approved `from` is empty.
    preview: () => ({ current_status: "" }),
    // Runs with the approved arguments, read from the confirmation itself. A tool that throws leaves the
    // call's outcome unknown (it may have acted): the Executor keeps it in flight for a person to reconcile.
    // The tool is given the action's id and idempotency key (the same on every attempt of this call): a
    // tool that calls an upstream passes the key on, so the call runs once even if this record is lost.
    apply: async ({ confirmation, idempotency_key: idempotencyKey }) => {
      const running = runs.get(confirmation.confirmation_id);
      const action = { actionId: confirmation.action_id ?? confirmation.confirmation_id, idempotencyKey };
      let output;
      try {
        output = await tool(confirmation.node_id)(JSON.parse(confirmation.proposed_change.to), running?.context, action);
      } catch (error) {
        // Provably never sent: nothing ran, the approval stays usable. Anything else: unknown (thrown on).
        if (error?.notSent === true) return { status: 500, body: { applied: false, message: `not sent: ${error.message ?? ""}` } };
        throw error;
      }
      if (running) running.output = output;
      if (keepOutputs) await keepOutput(confirmation.confirmation_id, output);
      return { status: 200, body: { applied: true } };
    },
  };
  const executor = new Executor({ ...executorOptions, skills: { tool_call: skill } });
  const { store } = executorOptions;

  /** Kept before the Executor commits: a run that returned has its output on record, whatever happens next. */
  async function keepOutput(confirmationId, output) {
    let text;
    try {
      text = JSON.stringify({ output });
    } catch {
      text = undefined;
    }
    if (text !== undefined && text.length <= MAX_KEPT_OUTPUT) await store.put(outputKey(confirmationId), text);
  }

  /** The call, read once: its tool, arguments, id and change (the arguments as canonical JSON, in the core). */
  function readCall(call) {
    const { name, args, callId } = readAt("call", () => {
      if (!isPlainObject(call)) throw typedError("invalid_input", "call", "call must be { tool, arguments, callId }");
      return { name: call.tool, args: call.arguments, callId: call.callId };
    });
    tool(name);
    if (typeof callId !== "string" || !CALL_ID.test(callId)) {
      throw typedError("invalid_input", "call.callId", "callId must be the framework's id of this call: 1-256 characters, no space, control or format character");
    }
    const change = toolCallChange(name, args);
    const digest = changeDigest(change.node_id, change.proposed_change);
    return { tool: name, arguments: args, callId, actionId: toolCallActionId(name, callId, digest), ...change, digest };
  }

  /**
   * The Executor's request for `read` (a read call): it names this call and its action, so only a
   * confirmation of exactly it applies, and at most one confirmation of it runs.
   */
  const requestFor = (read, confirmationId) => ({
    confirmation_id: confirmationId,
    apply_request: { node_id: read.node_id, confirm_status: read.proposed_change.to, intent: intentOf(read.callId), reason: "", action_id: read.actionId },
  });

  /**
   * The answer for a call that another approval of it already ran: its first output when it was kept
   * (so a framework resuming a restored state gets the same result, not a second run), else the refusal.
   */
  async function firstRun(result) {
    // The confirmation whose Apply ran the action: the ledger's, or this one when it was used.
    const ranBy =
      result.first_run?.state === "applied" ? result.first_run.confirmation_id : result.rejection?.phase === "already_consumed" ? result.confirmation_id : null;
    if (ranBy !== null && keepOutputs) {
      const kept = await keptOutput(ranBy);
      if (kept !== null) return { outcome: "applied", output: kept.output, result, approved: true, repeated: true };
    }
    return { outcome: result.outcome, result };
  }

  /** The output kept for confirmation `confirmationId`'s run: `{ output }`, null, or a typed error for a record that is not one. */
  async function keptOutput(confirmationId) {
    const text = await stored("read a kept output", () => store.get(outputKey(confirmationId)));
    if (text === null || text === undefined) return null;
    let kept;
    try {
      kept = typeof text === "string" ? JSON.parse(text) : undefined;
    } catch {
      kept = undefined;
    }
    if (!isPlainObject(kept) || !Object.hasOwn(kept, "output")) {
      throw typedError("storage_error", "store", `the output kept for confirmation ${confirmationId} is not one this library wrote`);
    }
    return kept;
  }

  async function runRead(read, confirmationId, context) {
    if (whitelist.has(read.tool)) return { outcome: "applied", output: await tools[read.tool](read.arguments, context), approved: false };
    if (typeof confirmationId !== "string" || confirmationId === "") {
      throw typedError("approval_required", "confirmationId", `${read.tool} runs only with a person's approval: pass its confirmation id`);
    }
    const previous = turns.get(confirmationId) ?? Promise.resolve();
    let done;
    const turn = previous.then(() => new Promise((resolve) => (done = resolve)));
    turns.set(confirmationId, turn);
    await previous;
    const running = { context, output: undefined };
    runs.set(confirmationId, running);
    let result;
    try {
      result = await executor.execute(requestFor(read, confirmationId));
    } finally {
      runs.delete(confirmationId);
      done();
      if (turns.get(confirmationId) === turn) turns.delete(confirmationId);
    }
    if (result.outcome !== "applied") return firstRun(result);
    return { outcome: "applied", output: running.output, result, approved: true };
  }

  /** The core's check of `confirmation` for the read call now: the signature, the binding, the expiry. */
  function checkRead(read, confirmation) {
    const confirmationId = readAt("confirmation", () => (isPlainObject(confirmation) ? confirmation.confirmation_id : undefined));
    if (typeof confirmationId !== "string") throw typedError("invalid_input", "confirmation", "confirmation must be a signed Confirmation");
    return checkConfirmation({
      confirmation,
      request: requestFor(read, confirmationId),
      keys: options.keys,
      now: typeof options.now === "function" ? options.now() : Date.now(),
      current_status: "",
      ...(options.clockSkewMs === undefined ? {} : { clock_skew_ms: options.clockSkewMs }),
      ...(options.audience === undefined ? {} : { audience: options.audience }),
      ...(options.language === undefined ? {} : { language: options.language }),
    });
  }

  /** Checks `confirmation` for the read call, then keeps it: the Executor's record, and the call's index. */
  async function keep(read, confirmation) {
    const verdict = checkRead(read, confirmation);
    if (verdict.verdict !== "pass") {
      const phase = verdict.phase ?? verdict.verdict;
      throw Object.assign(typedError("not_approved", "confirmation", `this confirmation does not approve ${read.tool} (call ${read.callId}): ${phase}: ${verdict.reason}`), { verdict, confirmationId: readAt("confirmation", () => confirmation.confirmation_id) });
    }
    // The index first: a crash before the save leaves an index to a confirmation not kept (refused when run,
    // kept on the next approve), never a kept confirmation no index finds.
    await stored("keep the call's index", () => store.put(approvalKey(read.callId, read.digest), confirmation.confirmation_id));
    try {
      // Saved by the Executor: sealed when it has a `sealKey`, refused when used or made for another audience.
      await executor.save(confirmation);
    } catch (error) {
      // Kept already (a retried approve, a node run again), or used already: the index names it, and the
      // Executor answers with what became of it (a call that ran is never reported as not run).
      if (error?.code !== "already_exists" && error?.code !== "already_consumed") throw error;
    }
    return confirmation.confirmation_id;
  }

  /** The ids of the standing approvals registered here, as listed in the store. */
  async function mandateIds() {
    const text = await stored("read the standing approvals", () => store.get(MANDATES_KEY));
    if (text === null || text === undefined) return [];
    let ids;
    try {
      ids = JSON.parse(text);
    } catch {
      ids = undefined;
    }
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) {
      throw typedError("storage_error", "store", "the list of standing approvals is not one this library wrote");
    }
    return ids;
  }

  /** Registers a person's signed standing approval (verified by the Executor) and lists it, by compare-and-swap. */
  async function registerMandate(mandate) {
    const { record } = await executor.saveMandate(mandate);
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const text = await stored("read the standing approvals", () => store.get(MANDATES_KEY));
      const ids = text === null || text === undefined ? [] : await mandateIds();
      const next = JSON.stringify([...ids, record.mandate.mandate_id]);
      if (await stored("list the standing approval", () => store.compareAndSwap(MANDATES_KEY, text ?? null, next))) return record;
    }
    throw typedError("storage_error", "store", "the list of standing approvals kept changing; the approval is registered but not listed");
  }

  /**
   * Approves `read` under the first live standing approval that covers it (for this set's `agentId`): the
   * Executor reserves a use and makes its confirmation, and the call's index names it, so `runApproved` runs
   * it once. Resolves to `{ approved: true, mandateId, usesLeft }` or `{ approved: false, reasons }`.
   */
  async function approveByMandateRead(read) {
    if (agentId === null) return { approved: false, reasons: ["no agentId: standing approvals name the agent they let act"] };
    if (whitelist.has(read.tool)) return { approved: false, reasons: [`${read.tool} is whitelisted: it needs no approval`] };
    const reasons = [];
    for (const mandateId of await mandateIds()) {
      const confirmationId = mandateConfirmationId(mandateId, agentId, read);
      // Made before for this very call (a restored state asks again): it stands, used or not; running it
      // again answers with its first run, never a second.
      if ((await executor.confirmationVersion(confirmationId)) !== null) {
        await stored("keep the call's index", () => store.put(approvalKey(read.callId, read.digest), confirmationId));
        return { approved: true, mandateId, usesLeft: null };
      }
      const outcome = await executor.confirmByMandate({
        mandate_id: mandateId,
        confirmation_id: confirmationId,
        agent_id: agentId,
        node_id: read.node_id,
        proposed_change: read.proposed_change,
        intent: intentOf(read.callId),
        reason: "",
        action_id: read.actionId,
      });
      // Made at the same moment by another run of this call: it stands; the Executor runs it once.
      const made = outcome.outcome === "confirmed" || (outcome.outcome === "refused" && outcome.phase === "already_exists");
      if (made) {
        await stored("keep the call's index", () => store.put(approvalKey(read.callId, read.digest), confirmationId));
        return { approved: true, mandateId, usesLeft: outcome.uses_left ?? null };
      }
      reasons.push(`${mandateId}: ${outcome.reason}`);
    }
    return { approved: false, reasons };
  }

  return {
    executor,
    /**
     * Registers a person's signed standing approval (`signMandate`) for these tools: verified (signature,
     * audience, time), never registered twice. Resolves to its record.
     */
    registerMandate: (mandate) => registerMandate(mandate),
    /** The standing approvals registered here: `{ record, version }` each (`uses_left` is the record's). */
    async mandates() {
      const found = await Promise.all((await mandateIds()).map((id) => executor.mandateRecord(id)));
      return found.filter((entry) => entry !== null);
    },
    /**
     * Approves `call` without asking when a live standing approval registered here covers it (the agent, the
     * tool, every constraint, a use left): `{ approved: true, mandateId, usesLeft }`, after which
     * `runApproved(call)` runs it once (the use is reserved at approval); else `{ approved: false, reasons }`: ask a person.
     */
    approveByMandate: (call) => approveByMandateRead(readCall(call)),
    /** Whether `name` runs with no approval. */
    isWhitelisted: (name) => whitelist.has(name),
    /** What a person approves for `call` (`{ tool, arguments, callId }`): sign it with `issueConfirmation` or an approver key. */
    draft(call) {
      const { callId, actionId, node_id, proposed_change } = readCall(call);
      return { node_id, proposed_change, intent: intentOf(callId), reason: "", ui_action: "approve_button", action_id: actionId };
    },
    /** The core's verdict on `confirmation` for `call` now (`checkConfirmation`'s), without keeping it. */
    check: (call, confirmation) => checkRead(readCall(call), confirmation),
    /**
     * Runs `call` as approved by confirmation `confirmationId` (none needed for a whitelisted tool), the tool
     * given `context` beside the arguments: `{ outcome: "applied", output }`, or the Executor's result when it
     * did not run (`rejected`, `reconfirm_required`, `error`, or an unknown outcome kept in flight).
     */
    run: (call, confirmationId, context) => runRead(readCall(call), confirmationId, context),
    /**
     * Keeps `confirmation`, a person's signed approval of `call`, for `runApproved(call)` once the core's check
     * passes now (else `not_approved`, with the verdict). Keeping one twice is no error; the Executor checks it
     * again, and uses it once, when the call runs. Resolves to its id.
     */
    approve: (call, confirmation) => keep(readCall(call), confirmation),
    /**
     * Runs `call` with the confirmation kept for it by `approve` (a whitelisted tool needs none). With none
     * kept, it throws `approval_required` and nothing runs.
     */
    async runApproved(call, context) {
      const read = readCall(call);
      if (whitelist.has(read.tool)) return runRead(read, undefined, context);
      const confirmationId = await stored("read the call's index", () => store.get(approvalKey(read.callId, read.digest)));
      if (typeof confirmationId !== "string" || confirmationId === "") {
        throw typedError("approval_required", "call", `${read.tool} (call ${read.callId}) has no approval: a person has not approved it`);
      }
      return runRead(read, confirmationId, context);
    },
    /** Keeps `confirmation` for `call` and runs it with it, at once (the confirmation in hand). */
    async runWith(call, confirmation, context) {
      const read = readCall(call);
      if (whitelist.has(read.tool)) return runRead(read, undefined, context);
      let confirmationId;
      try {
        confirmationId = await keep(read, confirmation);
      } catch (error) {
        // Not a confirmation that runs the call now (expired, cancelled, unsigned...): if the call ran, or
        // may have, by another approval, that is the answer, never "not approved".
        if (error?.code !== "not_approved") throw error;
        let ran;
        try {
          ran = await executor.execute(requestFor(read, error.confirmationId));
        } catch {
          throw error;
        }
        if (ranOfResult(ran) !== "not_run") return firstRun(ran);
        throw error;
      }
      return runRead(read, confirmationId, context);
    },
    /** The output kept for confirmation `confirmationId`'s run (with `keepOutputs`): `{ output }`, or null. */
    output: (confirmationId) => keptOutput(String(confirmationId)),
  };
}
