// The OpenAI Agents SDK (JS) adapter: function tools whose calls run only with a person's signed, single-use
// approval of exactly that call. A governed tool interrupts the run the SDK's way (`needsApproval`,
// `result.interruptions`), and `approve(state, interruption, confirmation)` calls `state.approve()` only after
// the core has checked the confirmation for that call's id, tool and canonical arguments. The SDK's approval
// alone never runs the tool: `invoke` runs it only through the Executor, once, so a `RunState` approved
// without a confirmation, edited, or restored twice in other processes runs nothing more.
import { changeLines, governToolCalls } from "agent-governor";
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";

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

/** Why a governed call did not run: thrown from `invoke`, so the SDK reports it to the model and runs nothing. */
function notRun(name, outcome) {
  const phase = outcome.result?.rejection?.phase ?? outcome.result?.outcome ?? outcome.outcome;
  const reason = outcome.result?.rejection?.reason ?? outcome.result?.error?.message;
  return Object.assign(typedError("not_approved", "toolCall", `${name} did not run (${phase})${reason ? `: ${reason}` : ""}`), { outcome });
}

/**
 * Governs the SDK's function tools (from `tool({ ... })`). `options`: the Executor's `store` and `keys` (and
 * its other options), and `whitelist`, the tools' names that run with no approval. Returns `tools` for an
 * `Agent`, `draft(interruption)` to sign, `lines(interruption)`, and `approve(state, interruption, confirmation)`.
 */
export function governAgentTools(tools, options) {
  if (!Array.isArray(tools)) throw typedError("invalid_input", "tools", "tools must be an array of the SDK's function tools");
  const byName = {};
  for (const [index, tool] of tools.entries()) {
    if (!isPlainObject(tool) || tool.type !== "function" || typeof tool.invoke !== "function" || typeof tool.name !== "string") {
      throw typedError("invalid_input", `tools.${index}`, `tools[${index}] must be a function tool made with the SDK's tool()`);
    }
    if (Object.hasOwn(byName, tool.name)) throw typedError("invalid_input", `tools.${index}`, `two tools are named ${tool.name}`);
    byName[tool.name] = tool;
  }
  // The tool's own invoke (its schema's validation, then its execute), given the approved arguments as JSON.
  const runners = Object.fromEntries(
    Object.entries(byName).map(([name, tool]) => [name, (args, { runContext, details }) => tool.invoke(runContext, JSON.stringify(args), details)]),
  );
  const governed = governToolCalls(runners, options);

  const wrapped = tools.map((tool) => {
    if (governed.isWhitelisted(tool.name)) return tool;
    return {
      ...tool,
      needsApproval: async () => true,
      invoke: async (runContext, input, details) => {
        const call = { tool: tool.name, arguments: parseArguments(input), callId: details?.toolCall?.callId };
        let outcome;
        try {
          outcome = await governed.runApproved(call, { runContext, details });
          if (outcome.outcome !== "applied") throw notRun(tool.name, outcome);
        } catch (error) {
          // Nothing ran. The model reads why (the tool's own error function words it when it has one); a tool
          // made with `errorFunction: null` fails the run with the typed error instead.
          if (tool.errorFunction === null) throw error;
          if (typeof tool.errorFunction === "function") return tool.errorFunction(runContext, error);
          return error.message;
        }
        return outcome.output;
      },
    };
  });

  const lines = (interruption, language) => {
    const { node_id, proposed_change } = governed.draft(callOf(interruption));
    return changeLines(node_id, proposed_change, language);
  };

  return {
    tools: wrapped,
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
