// Tool calls that run only with a person's approval, whatever agent framework makes them. Each call of a
// governed tool is a change to approve (`toolCallChange`: the tool and its arguments as canonical JSON, and the
// call's id), and it runs only through the Executor: once, when a signed, unexpired, unused confirmation binds
// exactly that call, with exactly the approved arguments. The framework adapters are built on this.
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { Executor, changeDigest, checkConfirmation, toolCallChange } from "../wasm/agent_governor_full.js";

/** The call's own words in its confirmation: its id, so an approval of one call never runs another. */
const intentOf = (callId) => `tool call ${callId}`;

/** Where the id of the confirmation kept for a call is stored: by the call's id and what it does. */
const approvalKey = (callId, digest) => `tool-call/${encodeURIComponent(callId)}/${digest}`;
/** Where a call's output is kept once it ran (with `keepOutputs`), by its confirmation's id. */
const outputKey = (confirmationId) => `tool-call-output/${encodeURIComponent(confirmationId)}`;
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
 * Why `call` did not run, as an error for the framework to report: `not_approved` (the Executor refused it:
 * nothing ran), or `outcome_unknown` (the tool was started and its outcome is unknown:
 * the call stays in flight for a person to reconcile; asking again could do it twice). `outcome` is attached.
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
  if (result?.confirmation_state === "in_flight") {
    const reason = result.error?.message ?? result.rejection?.reason ?? "the tool did not finish";
    return Object.assign(
      typedError("outcome_unknown", "call", `${tool} (call ${callId}) may have run: its outcome is unknown (${reason}). A person must reconcile it; do not ask again.`),
      { outcome },
    );
  }
  const phase = result?.rejection?.phase ?? result?.outcome ?? given;
  const reason = result?.rejection?.reason ?? result?.error?.message;
  return Object.assign(typedError("not_approved", "call", `${tool} (call ${callId}) did not run (${phase})${reason ? `: ${reason}` : ""}`), { outcome });
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
  const options = readAt("options", () => (isPlainObject(givenOptions) ? { ...givenOptions } : givenOptions));
  for (const [name, run] of Object.entries(tools)) {
    if (typeof run !== "function") throw typedError("invalid_input", `tools.${name}`, `tools.${name} must be a function`);
  }
  if (!isPlainObject(options)) throw typedError("invalid_input", "options", "options must be { store, keys, whitelist?, ... }");
  const { whitelist: givenWhitelist = [], keepOutputs = false, ...executorOptions } = options;
  const whitelist = readAt("options.whitelist", () => {
    if (!Array.isArray(givenWhitelist)) throw typedError("invalid_input", "options.whitelist", "whitelist must list names of the given tools");
    const names = new Set([...givenWhitelist]);
    if (![...names].every((name) => typeof name === "string" && Object.hasOwn(tools, name))) {
      throw typedError("invalid_input", "options.whitelist", "whitelist must list names of the given tools");
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
    apply: async ({ confirmation }) => {
      const running = runs.get(confirmation.confirmation_id);
      const output = await tool(confirmation.node_id)(JSON.parse(confirmation.proposed_change.to), running?.context);
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
    return { tool: name, arguments: args, callId, ...change, digest: changeDigest(change.node_id, change.proposed_change) };
  }

  /** The Executor's request for `read` (a read call): it names this call, so only a confirmation of exactly it applies. */
  const requestFor = (read, confirmationId) => ({
    confirmation_id: confirmationId,
    apply_request: { node_id: read.node_id, confirm_status: read.proposed_change.to, intent: intentOf(read.callId), reason: "" },
  });

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
    if (result.outcome !== "applied") return { outcome: result.outcome, result };
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
      throw Object.assign(typedError("not_approved", "confirmation", `this confirmation does not approve ${read.tool} (call ${read.callId}): ${phase}: ${verdict.reason}`), { verdict });
    }
    // The index first: a crash before the save leaves an index to a confirmation not kept (refused when run,
    // kept on the next approve), never a kept confirmation no index finds.
    await stored("keep the call's index", () => store.put(approvalKey(read.callId, read.digest), confirmation.confirmation_id));
    try {
      // Saved by the Executor: sealed when it has a `sealKey`, refused when used or made for another audience.
      await executor.save(confirmation);
    } catch (error) {
      // Kept already (a retried approve, a node run again): the index names it, the Executor decides.
      if (error?.code !== "already_exists") throw error;
    }
    return confirmation.confirmation_id;
  }

  return {
    executor,
    /** Whether `name` runs with no approval. */
    isWhitelisted: (name) => whitelist.has(name),
    /** What a person approves for `call` (`{ tool, arguments, callId }`): sign it with `issueConfirmation` or an approver key. */
    draft(call) {
      const { callId, node_id, proposed_change } = readCall(call);
      return { node_id, proposed_change, intent: intentOf(callId), reason: "", ui_action: "approve_button" };
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
      return runRead(read, await keep(read, confirmation), context);
    },
    /** The output kept for confirmation `confirmationId`'s run (with `keepOutputs`): `{ output }`, or null. */
    async output(confirmationId) {
      const text = await stored("read a kept output", () => store.get(outputKey(String(confirmationId))));
      return typeof text === "string" ? JSON.parse(text) : null;
    },
  };
}
