// Tool calls that run only with a person's approval, whatever agent framework makes them. Each call of a
// governed tool is a change to approve (`toolCallChange`: the tool and its arguments as canonical JSON, and the
// call's id), and it runs only through the Executor: once, when a signed, unexpired, unused confirmation binds
// exactly that call, with exactly the approved arguments. The framework adapters are built on this.
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { Executor, checkConfirmation, saveConfirmation, toolCallChange } from "../wasm/agent_governor_full.js";

/** The call's own words in its confirmation: its id, so an approval of one call never runs another. */
const intentOf = (callId) => `tool call ${callId}`;

/** Where the id of the confirmation a person signed for a call is kept, beside the confirmations themselves. */
const approvalKey = (callId) => `tool-call/${callId}`;

/** `read()`, with anything it throws that is not already typed reported as `invalid_input` at `path`. */
function readAt(path, read) {
  try {
    return read();
  } catch (error) {
    if (error?.name === "AgentGovernorError") throw error;
    throw typedError("invalid_input", path, `${path} could not be read: ${error?.message ?? String(error)}`);
  }
}

/**
 * Governs `tools` (`{ name: async (args, context) => output }`; `context` is what `run` or `runApproved` was
 * given beside the call, e.g. the framework's abort signal). `options`: the Executor's `store` and `keys` (and
 * its other options: `now`, `audit`, `clockSkewMs`, `audience`, `sealKey`, `language`), and `whitelist`, the
 * tools that run with no approval. Returns `draft(call)`, what a person approves for a call, and
 * `run(call, confirmationId)`, which runs it only as approved.
 */
export function governToolCalls(given, givenOptions) {
  // Read once: a tool added or replaced later is not governed by this set.
  const tools = readAt("tools", () => {
    if (!isPlainObject(given)) throw typedError("invalid_input", "tools", "tools must be { name: async (args) => output }");
    return Object.fromEntries(Object.entries(given));
  });
  const options = readAt("options", () => (isPlainObject(givenOptions) ? { ...givenOptions } : givenOptions));
  for (const [name, run] of Object.entries(tools)) {
    if (typeof run !== "function") throw typedError("invalid_input", `tools.${name}`, `tools.${name} must be a function`);
  }
  if (!isPlainObject(options)) throw typedError("invalid_input", "options", "options must be { store, keys, whitelist?, ... }");
  const { whitelist = [], ...executorOptions } = options;
  if (!Array.isArray(whitelist) || !whitelist.every((name) => typeof name === "string" && Object.hasOwn(tools, name))) {
    throw typedError("invalid_input", "options.whitelist", "whitelist must list names of the given tools");
  }
  const tool = (name) => {
    if (typeof name !== "string" || !Object.hasOwn(tools, name)) throw typedError("unknown_tool", "call.tool", `no governed tool is named ${JSON.stringify(name)}`);
    return tools[name];
  };
  const outputs = new Map();
  // What the framework gave the call (its abort signal, its messages), passed to the tool beside the arguments.
  const contexts = new Map();
  const skill = {
    // A tool call has no state to read before it runs: the approved `from` is empty.
    preview: () => ({ current_status: "" }),
    // Runs with the approved arguments, read from the confirmation itself. A tool that throws leaves the
    // call's outcome unknown (it may have acted): the Executor keeps it in flight for a person to reconcile.
    apply: async ({ confirmation }) => {
      const context = contexts.get(confirmation.confirmation_id);
      const output = await tool(confirmation.node_id)(JSON.parse(confirmation.proposed_change.to), context);
      outputs.set(confirmation.confirmation_id, output);
      return { status: 200, body: { applied: true } };
    },
  };
  const executor = new Executor({ ...executorOptions, skills: { tool_call: skill } });
  const { store } = executorOptions;

  function readCall(call) {
    if (!isPlainObject(call)) throw typedError("invalid_input", "call", "call must be { tool, arguments, callId }");
    const { tool: name, arguments: args, callId } = call;
    tool(name);
    if (typeof callId !== "string" || callId === "" || callId.length > 256) {
      throw typedError("invalid_input", "call.callId", "callId must be the framework's id of this call (1-256 characters)");
    }
    return { name, args, callId, ...toolCallChange(name, args) };
  }

  /** The Executor's request for `call`: it names this call, not the confirmation's content, so the confirmation applies only when the two are one (the tool, the canonical arguments, the call's id). */
  function requestFor(call, confirmationId) {
    const read = readCall(call);
    const { node_id, proposed_change, callId } = read;
    const request = {
      confirmation_id: confirmationId,
      apply_request: { node_id, confirm_status: proposed_change.to, intent: intentOf(callId), reason: "" },
    };
    return { ...read, request };
  }

  async function run(call, confirmationId, context) {
    const { name, args } = readCall(call);
    if (whitelist.includes(name)) return { outcome: "applied", output: await tools[name](args, context), approved: false };
    if (typeof confirmationId !== "string" || confirmationId === "") {
      throw typedError("approval_required", "confirmationId", `${name} runs only with a person's approval: pass its confirmation id`);
    }
    const { request } = requestFor(call, confirmationId);
    // A second run of one confirmation is refused by the Executor; it never replaces the first run's context.
    const owns = !contexts.has(confirmationId);
    if (owns) contexts.set(confirmationId, context);
    let result;
    try {
      result = await executor.execute(request);
    } finally {
      if (owns) contexts.delete(confirmationId);
    }
    if (result.outcome !== "applied") return { outcome: result.outcome, result };
    const output = outputs.get(confirmationId);
    outputs.delete(confirmationId);
    return { outcome: "applied", output, result, approved: true };
  }

  /** The core's check of `confirmation` for `call` now, before it is kept: the signature, binding and expiry. */
  function check(call, confirmation) {
    const { request } = requestFor(call, isPlainObject(confirmation) ? confirmation.confirmation_id : undefined);
    return checkConfirmation({
      confirmation,
      request,
      keys: options.keys,
      now: typeof options.now === "function" ? options.now() : Date.now(),
      current_status: "",
      ...(options.clockSkewMs === undefined ? {} : { clock_skew_ms: options.clockSkewMs }),
      ...(options.audience === undefined ? {} : { audience: options.audience }),
      ...(options.language === undefined ? {} : { language: options.language }),
    });
  }

  return {
    executor,
    check,
    /** Whether `name` runs with no approval. */
    isWhitelisted: (name) => whitelist.includes(name),
    /** What a person approves for `call` (`{ tool, arguments, callId }`): sign it with `issueConfirmation` or an approver key. */
    draft(call) {
      const { callId, node_id, proposed_change } = readCall(call);
      return { node_id, proposed_change, intent: intentOf(callId), reason: "", ui_action: "approve_button" };
    },
    /**
     * Runs `call` as approved by confirmation `confirmationId` (none needed for a whitelisted tool), the tool
     * given `context` beside the arguments:
     * `{ outcome: "applied", output }`, or the Executor's result when it did not run (`rejected`,
     * `reconfirm_required`, `error`, or an unknown outcome kept in flight).
     */
    run,
    /**
     * Keeps `confirmation`, a person's signed approval of `call`, for `runApproved(call)`, once the core's
     * check passes now (else `not_approved`, with the verdict). It is saved as the Executor keeps confirmations
     * (one already saved is refused: `already_exists`); the Executor checks it again, and uses it once, when
     * the call runs.
     */
    async approve(call, confirmation) {
      const verdict = check(call, confirmation);
      if (verdict.verdict !== "pass") {
        const phase = verdict.phase ?? verdict.verdict;
        throw Object.assign(typedError("not_approved", "confirmation", `this confirmation does not approve ${call.tool} (call ${call.callId}): ${phase}: ${verdict.reason}`), { verdict });
      }
      await saveConfirmation(store, confirmation);
      await store.put(approvalKey(call.callId), confirmation.confirmation_id);
      return confirmation.confirmation_id;
    },
    /**
     * Runs `call` with the confirmation kept for it by `approve` (a whitelisted tool needs none). With none
     * kept, it throws `approval_required` and nothing runs.
     */
    async runApproved(call, context) {
      const { name, callId } = readCall(call);
      if (whitelist.includes(name)) return run(call, undefined, context);
      const confirmationId = await store.get(approvalKey(callId));
      if (typeof confirmationId !== "string" || confirmationId === "") {
        throw typedError("approval_required", "call", `${name} (call ${callId}) has no approval: a person has not approved it`);
      }
      return run(call, confirmationId, context);
    },
  };
}
