// The OpenAI Agents SDK (JS) adapter: function tools whose calls run only with a person's signed, single-use
// approval of exactly that call. A governed tool interrupts the run the SDK's way (`needsApproval`,
// `result.interruptions`), and `approve(state, interruption, confirmation)` calls `state.approve()` only after
// the core has checked the confirmation for that call's id, tool and canonical arguments. The SDK's approval
// alone never runs the tool: its `execute` runs only through the Executor, once, so a `RunState` approved
// without a confirmation, edited, or restored twice in other processes runs nothing more.
//
// The adapter builds the tools from their definitions (what you would give the SDK's `tool()`): a tool built
// by `tool()` catches its own errors and answers with text, which would hide from the Executor that a call
// failed half-way; here a tool that throws leaves its call in flight, an outcome a person reconciles.
import { tool as sdkTool } from "@openai/agents";
import { changeLines, governToolCalls, refusalOf } from "agent-governor";
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { GOVERN_TOOL_CALLS_OPTIONS, readOptions } from "../approver/options.js";

/** The adapter's call, from a run's interruption (a `RunToolApprovalItem`) or a function call item. */
function callOf(given) {
  const raw = isPlainObject(given?.rawItem) ? given.rawItem : given;
  if (!isPlainObject(raw) || raw.type !== "function_call") {
    throw typedError("invalid_input", "interruption", "interruption must be a function tool's approval item (result.interruptions)");
  }
  return { tool: raw.name, arguments: parseArguments(raw.arguments), callId: raw.callId };
}

/** The model's argument text as a value; text that is not JSON is refused, never guessed at. */
function parseArguments(text) {
  if (typeof text !== "string") throw typedError("invalid_input", "arguments", "a function call's arguments must be JSON text");
  try {
    return JSON.parse(text === "" ? "{}" : text);
  } catch (error) {
    throw typedError("invalid_input", "arguments", `a function call's arguments are not JSON: ${error.message}`);
  }
}

/** What the model reads when a governed call did not run: the refusal's own words, never "try again". */
const refusalText = (_runContext, error) => (error?.name === "AgentGovernorError" ? error.message : "The tool failed.");

/**
 * Governs function tools given by their definitions (`{ name, description, parameters, execute, ... }`, as
 * for the SDK's `tool()`). `options`: the Executor's `store` and `keys` (and its other options), and
 * `whitelist`, the names of tools that run with no approval. Returns `tools` (built by the SDK's `tool()`)
 * for an `Agent`, `draft(interruption)` to sign, `lines(interruption)`, and `approve(state, interruption,
 * confirmation)`.
 */
export function governAgentTools(definitions, options) {
  if (!Array.isArray(definitions)) throw typedError("invalid_input", "tools", "tools must be a list of tool definitions ({ name, description, parameters, execute })");
  const byName = {};
  for (const [index, definition] of definitions.entries()) {
    if (isPlainObject(definition) && typeof definition.invoke === "function") {
      throw typedError("invalid_input", `tools.${index}`, `tools[${index}] is a built tool: pass its definition (what you would give tool()), so its errors reach the Executor`);
    }
    if (!isPlainObject(definition) || typeof definition.name !== "string" || typeof definition.execute !== "function") {
      throw typedError("invalid_input", `tools.${index}`, `tools[${index}] must be a tool definition { name, description, parameters, execute }`);
    }
    if (Object.hasOwn(byName, definition.name)) throw typedError("invalid_input", `tools.${index}`, `two tools are named ${definition.name}`);
    byName[definition.name] = definition;
  }
  // The tool's own execute, given the approved arguments; what it throws reaches the Executor.
  const runners = Object.fromEntries(
    Object.entries(byName).map(([name, definition]) => [name, (args, { runContext, details } = {}) => definition.execute(args, runContext, details)]),
  );
  // Outputs are kept: a call approved again (a restored state, a second signature) answers with the
  // output it had, never by running again.
  const givenOptions = readOptions("governAgentTools", "options", options, GOVERN_TOOL_CALLS_OPTIONS, { required: true });
  const governed = governToolCalls(runners, { keepOutputs: true, ...givenOptions });

  const tools = definitions.map((definition) => {
    if (governed.isWhitelisted(definition.name)) return sdkTool(definition);
    return sdkTool({
      ...definition,
      // A person approves the call, unless a live standing approval covers exactly it (a failure to tell asks).
      needsApproval: async (_runContext, input, callId) => {
        const byMandate = await governed.approveByMandate({ tool: definition.name, arguments: input, callId }).catch(() => null);
        return byMandate?.approved !== true;
      },
      // `null` keeps the SDK's meaning: a refusal fails the run with the typed error.
      errorFunction: definition.errorFunction === undefined ? refusalText : definition.errorFunction,
      execute: async (input, runContext, details) => {
        const call = { tool: definition.name, arguments: input, callId: details?.toolCall?.callId };
        const outcome = await governed.runApproved(call, { runContext, details });
        if (outcome.outcome !== "applied") throw refusalOf(call, outcome);
        return outcome.output;
      },
    });
  });

  const lines = (interruption, language) => {
    const { node_id, proposed_change } = governed.draft(callOf(interruption));
    return changeLines(node_id, proposed_change, language);
  };

  return {
    tools,
    /** What a person approves for `interruption` (one of `result.interruptions`): sign it. */
    draft: (interruption) => governed.draft(callOf(interruption)),
    /** The two lines a person reads for `interruption`, rendered from the tool and its canonical arguments. */
    lines,
    /**
     * Checks a person's signed `confirmation` of `interruption` in the core, keeps it for the call's
     * execution, then approves the interruption in `state` (the run's `RunState`). A confirmation that does
     * not pass throws `not_approved` and the state is left as it was.
     */
    async approve(state, interruption, confirmation) {
      if (typeof state?.approve !== "function") throw typedError("invalid_input", "state", "state must be the run's RunState");
      await governed.approve(callOf(interruption), confirmation);
      state.approve(interruption);
    },
    governed,
  };
}
