// The LangGraph.js adapter: a tool called inside a graph node runs only with a person's signed, single-use
// approval of exactly that call. The node pauses with `interrupt()` carrying what the person approves (the
// draft and the machine's two lines); the graph resumes with `new Command({ resume: confirmation })`, and the
// tool runs only if the core accepts that confirmation for this call, once. A resume replayed from a restored
// checkpoint, a confirmation of another call or of other arguments, or an expired one runs nothing.
import { interrupt } from "@langchain/langgraph";
import { changeLines, governToolCalls } from "agent-governor";
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";

/** The interrupt value's `type`: how a client tells a governed tool's request from the graph's other interrupts. */
export const APPROVAL_INTERRUPT = "agent-governor/approval";

/** Why a governed call did not run: thrown from the node, so the graph stops there and nothing ran. */
function notRun(call, outcome) {
  const phase = outcome.result?.rejection?.phase ?? outcome.result?.outcome ?? outcome.outcome;
  const reason = outcome.result?.rejection?.reason ?? outcome.result?.error?.message;
  return Object.assign(typedError("not_approved", "resume", `${call.tool} (call ${call.callId}) did not run (${phase})${reason ? `: ${reason}` : ""}`), { outcome });
}

/**
 * Governs `tools` (`{ name: async (args, context) => output }`) for use inside graph nodes. `options`: the
 * Executor's `store` and `keys` (and its other options), and `whitelist`. Returns `call(tool, args, callId)`,
 * to await inside a node: it interrupts until a person's confirmation of this call arrives as the resume value
 * (a value that is not one pauses the node again, with `refused` saying why), then runs the tool once through
 * the Executor and resolves to its output; when the Executor does not apply it (a used confirmation, an
 * outcome in flight), the node throws `not_approved` and nothing ran. `callId` names the call and must be the
 * same each time the node runs (e.g. the model's tool call id): the node runs again from its start on resume.
 */
export function governGraphTools(tools, options) {
  const governed = governToolCalls(tools, options);

  async function call(tool, args, callId, context) {
    const toolCall = { tool, arguments: args, callId };
    if (governed.isWhitelisted(tool)) return (await governed.run(toolCall, undefined, context)).output;
    const draft = governed.draft(toolCall);
    const [what, impact] = changeLines(draft.node_id, draft.proposed_change);
    // Until a person's confirmation for this call passes the core's check, the node pauses again, saying why
    // the last answer was refused. (A bad resume value stays recorded for the interrupt it answered, so a
    // node that threw would only refuse it again on every resume.)
    let refused = null;
    for (;;) {
      // Before its resume this throws LangGraph's interrupt; after it, it returns the resume value.
      const confirmation = interrupt({ type: APPROVAL_INTERRUPT, tool, callId, lines: [what, impact], draft, refused });
      try {
        if (!isPlainObject(confirmation)) {
          throw typedError("invalid_input", "resume", `resume ${tool} (call ${callId}) with the person's signed confirmation`);
        }
        await governed.approve(toolCall, confirmation);
        break;
      } catch (error) {
        // Kept already: the node runs again (a replayed resume, a restored checkpoint). The Executor decides.
        if (error?.code === "already_exists") break;
        if (error?.code !== "invalid_input" && error?.code !== "not_approved") throw error;
        refused = { code: error.code, message: error.message };
      }
    }
    const outcome = await governed.runApproved(toolCall, context);
    if (outcome.outcome !== "applied") throw notRun(toolCall, outcome);
    return outcome.output;
  }

  return {
    call,
    /** What a person approves for a call (the same draft the interrupt carries). */
    draft: (tool, args, callId) => governed.draft({ tool, arguments: args, callId }),
    governed,
  };
}
