// The LangGraph.js adapter: a tool called inside a graph node runs only with a person's signed, single-use
// approval of exactly that call. The node pauses with `interrupt()` carrying what the person approves (the
// draft and the machine's two lines); the graph resumes with `new Command({ resume: confirmation })`, and the
// tool runs only if the core accepts that confirmation for this call, once. A resume replayed from a restored
// checkpoint, a confirmation of another call or of other arguments, or an expired one runs nothing.
import { interrupt } from "@langchain/langgraph";
import { changeLines, governToolCalls, refusalOf } from "agent-governor";
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { EXECUTOR_OPTIONS, readOptions } from "../approver/options.js";

/** The interrupt value's `type`: how a client tells a governed tool's request from the graph's other interrupts. */
export const APPROVAL_INTERRUPT = "agent-governor/approval";

/**
 * Governs `tools` (`{ name: async (args, context) => output }`) for use inside graph nodes. `options`: the
 * Executor's `store` and `keys` (and its other options), and `whitelist`. Returns `call(tool, args, callId)`,
 * to await inside a node: it interrupts until a person's confirmation of this call arrives as the resume value
 * (a value that is not one pauses the node again, with `refused` saying why), then runs the tool once through
 * the Executor and resolves to its output. The node runs again from its start on every resume: a call that
 * ran before resolves to the output it returned then (kept in the store), without running again. When the
 * Executor does not apply it, the node throws `not_approved` (nothing ran) or `outcome_unknown` (the tool was
 * started and did not finish: a person reconciles it). `callId` names the call: the same each time the node
 * runs, and unique in the store (e.g. the thread's id and the model's tool call id).
 */
export function governGraphTools(tools, options) {
  // `keepOutputs` is not an option: each run's output is kept, since the node runs again from its start on
  // every resume, and a call that ran before answers with what it returned then, never by running again.
  const givenOptions = readOptions("governGraphTools", "options", options, { ...EXECUTOR_OPTIONS, whitelist: "array", agentId: "string" }, { required: true });
  const governed = governToolCalls(tools, { ...givenOptions, keepOutputs: true });
  /** The output kept for `confirmation`'s run (`{ output }`), when a call ran with it before; null otherwise. */
  const ranBefore = (confirmation) => governed.output(confirmation.confirmation_id);

  async function call(tool, args, callId, context) {
    const toolCall = { tool, arguments: args, callId };
    if (governed.isWhitelisted(tool)) return (await governed.run(toolCall, undefined, context)).output;
    // A live standing approval that covers exactly this call: it runs without pausing (once, on every run of
    // the node: the first run's output answers the others).
    const byMandate = await governed.approveByMandate(toolCall);
    if (byMandate.approved) {
      const outcome = await governed.runApproved(toolCall, context);
      if (outcome.outcome === "applied") return outcome.output;
      const refusal = refusalOf(toolCall, outcome);
      // It ran, or may have: that is the answer. It did not run (its last use went to a call that raced it,
      // it was revoked meanwhile): a person decides, below.
      if (refusal.ran !== "not_run") throw refusal;
    }
    const draft = governed.draft(toolCall);
    const [what, impact] = changeLines(draft.node_id, draft.proposed_change);
    // Until a person's confirmation for this call passes the core's check, the node pauses again, saying why
    // the last answer was refused. (A bad resume value stays recorded for the interrupt it answered, so a
    // node that threw would only refuse it again on every resume.)
    let refused = null;
    for (;;) {
      // Before its resume this throws LangGraph's interrupt; after it, it returns the resume value.
      const confirmation = interrupt({ type: APPROVAL_INTERRUPT, tool, callId, lines: [what, impact], draft, refused });
      if (!isPlainObject(confirmation)) {
        refused = { code: "invalid_input", message: `resume ${tool} (call ${callId}) with the person's signed confirmation` };
        continue;
      }
      let outcome;
      try {
        // Checked for this very call in the core, kept, and run with it.
        outcome = await governed.runWith(toolCall, confirmation, context);
      } catch (error) {
        if (error?.code === "already_consumed") {
          const kept = await ranBefore(confirmation);
          if (kept !== null) return kept.output;
        }
        if (error?.code !== "invalid_input" && error?.code !== "not_approved") throw error;
        refused = { code: error.code, message: error.message };
        continue;
      }
      if (outcome.outcome === "applied") return outcome.output;
      if (outcome.result?.rejection?.phase === "already_consumed") {
        const kept = await ranBefore(confirmation);
        if (kept !== null) return kept.output;
      }
      throw refusalOf(toolCall, outcome);
    }
  }

  return {
    call,
    /** What a person approves for a call (the same draft the interrupt carries). */
    draft: (tool, args, callId) => governed.draft({ tool, arguments: args, callId }),
    governed,
  };
}
