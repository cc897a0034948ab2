// The Vercel AI SDK adapter: a tool set whose calls run only with a person's signed, single-use approval of
// exactly that call. A governed tool still asks for approval the SDK's way (`needsApproval`, `toolApproval`,
// `tool-approval-request` parts and the UI stream's `approval-requested` state), but the SDK's `approved: true`
// is not enough: `execute` runs the tool only through the Executor, with a confirmation a person signed for
// that call's id and canonical arguments, once. No import of `ai`: the SDK is the caller's.
import { changeLines, governToolCalls, refusalOf } from "agent-governor";
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { GOVERN_TOOL_CALLS_OPTIONS, readOptions } from "../approver/options.js";

/** The adapter's call, from the SDK's tool call (`{ toolCallId, toolName, input }`) or an approval request part. */
function callOf(given) {
  const toolCall = isPlainObject(given) && given.type === "tool-approval-request" ? given.toolCall : given;
  if (!isPlainObject(toolCall)) throw typedError("invalid_input", "toolCall", "toolCall must be the SDK's tool call { toolCallId, toolName, input }");
  return { tool: toolCall.toolName, arguments: toolCall.input, callId: toolCall.toolCallId };
}

/**
 * Governs an AI SDK tool set. `options`: the Executor's `store` and `keys` (and its other options), and
 * `whitelist`, the tools that run with no approval. Returns `tools` for `generateText`, `streamText` or a
 * `ToolLoopAgent`, a `toolApproval` configuration that asks a person for every governed call (with the
 * machine's two lines as the request's reason), `draft(toolCall)` for the approver to sign,
 * `approve(toolCall | request, confirmation)`, and `lines(toolCall)`.
 */
export function governTools(tools, options) {
  if (!isPlainObject(tools)) throw typedError("invalid_input", "tools", "tools must be an AI SDK tool set { name: tool({ ... }) }");
  const given = Object.fromEntries(Object.entries(tools));
  for (const [name, tool] of Object.entries(given)) {
    if (!isPlainObject(tool) || typeof tool.execute !== "function") {
      throw typedError("invalid_input", `tools.${name}`, `tools.${name} must be a tool with an execute function`);
    }
  }
  const runners = Object.fromEntries(Object.entries(given).map(([name, tool]) => [name, (args, executionOptions) => tool.execute(args, executionOptions)]));
  // Outputs are kept: a call approved again (a restored state, a second signature) answers with the
  // output it had, never by running again.
  const givenOptions = readOptions("governTools", "options", options, GOVERN_TOOL_CALLS_OPTIONS, { required: true });
  const governed = governToolCalls(runners, { keepOutputs: true, ...givenOptions });

  const wrapped = Object.fromEntries(
    Object.entries(given).map(([name, tool]) => {
      if (governed.isWhitelisted(name)) return [name, tool];
      return [
        name,
        {
          ...tool,
          needsApproval: true,
          execute: async (input, executionOptions) => {
            const call = { tool: name, arguments: input, callId: executionOptions?.toolCallId };
            const outcome = await governed.runApproved(call, executionOptions);
            if (outcome.outcome !== "applied") throw refusalOf(call, outcome);
            return outcome.output;
          },
        },
      ];
    }),
  );

  const lines = (toolCall, language) => {
    const { node_id, proposed_change } = governed.draft(callOf(toolCall));
    return changeLines(node_id, proposed_change, language);
  };

  return {
    tools: wrapped,
    /** A `toolApproval` function: a person approves every governed call; whitelisted tools need nothing. */
    toolApproval: async ({ toolCall }) => {
      if (governed.isWhitelisted(toolCall?.toolName)) return undefined;
      let reason;
      try {
        reason = lines(toolCall).join("\n");
      } catch (error) {
        // An unknown tool or unreadable arguments: nothing a person could approve.
        return { type: "denied", reason: error.message };
      }
      // A live standing approval that covers exactly this call approves it; anything else asks a person.
      const byMandate = await governed.approveByMandate(callOf(toolCall)).catch(() => null);
      if (byMandate?.approved) return { type: "approved", reason: `standing approval ${byMandate.mandateId}\n${reason}` };
      return { type: "user-approval", reason };
    },
    /** What a person approves for `toolCall` (or a `tool-approval-request` part): sign it. */
    draft: (toolCall) => governed.draft(callOf(toolCall)),
    /** The two lines a person reads for `toolCall`, rendered from the tool and its canonical arguments. */
    lines,
    /**
     * Keeps a person's signed `confirmation` of `toolCall` for its execution. Given the `tool-approval-request`
     * part, resolves to the `tool-approval-response` to send back; the SDK then calls `execute`, which runs
     * the tool only if the Executor accepts the confirmation for exactly that call.
     */
    async approve(request, confirmation) {
      await governed.approve(callOf(request), confirmation);
      if (isPlainObject(request) && request.type === "tool-approval-request") {
        return { type: "tool-approval-response", approvalId: request.approvalId, approved: true };
      }
      return undefined;
    },
    governed,
  };
}
