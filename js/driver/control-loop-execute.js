// The control loop's execute path: an action the core approved runs through its skill (a function), through
// the Executor (a state change, under a signed Confirmation for exactly what was approved) or as the host's
// restart; after an Apply, the optional Watcher review and the Closer's completion check. Methods of the
// loop's driver (`this` is the driver), assigned to its prototype in control-loop-driver.js.
import { issueConfirmation, requestFor, saveConfirmation } from "../wasm/agent_governor_full.js";
import { isPlainObject } from "./control-loop-config.js";
import { messageOf, portText } from "./control-loop-text.js";

/**
 * What an ExecutorResult means for the loop: succeeded only when applied; an unknown outcome is a failure; a
 * reconfirm (the node had left the approved `from`, nothing was applied) is not applied, and the loop judges
 * the board as it is now instead of stopping.
 */
function executorOutcome(result, change) {
  switch (result.outcome) {
    case "applied":
      return { succeeded: true, detail: `${result.node_id}: ${change.from} -> ${change.to} applied` };
    case "rejected":
      return { succeeded: false, detail: `rejected at ${result.rejection?.phase}: ${result.rejection?.reason}` };
    case "reconfirm_required":
      return {
        succeeded: false,
        notApplied: true,
        detail: `reconfirm required (now ${result.reconfirm?.current_status}): ${result.reconfirm?.reason}`,
      };
    default: {
      const unknown = result.confirmation_state === "in_flight" ? "; the outcome is unknown: reconcile it" : "";
      return { succeeded: false, detail: `error: ${result.error?.message ?? "no outcome"}${unknown}` };
    }
  }
}

export const executeMethods = {
  async execute(action, approval) {
    let finished;
    try {
      finished = await this.run(action, approval);
    } catch (error) {
      finished = { succeeded: false, detail: `the skill threw: ${messageOf(error)}` };
    }
    this.dispatch({
      event: "execution_finished",
      action_id: action.id,
      succeeded: finished.succeeded === true,
      detail: portText(finished.detail),
      ...(finished.notApplied === true ? { not_applied: true } : {}),
    });
    const pending = Array.isArray(finished.pendingActions) ? finished.pendingActions.map((item) => portText(item)).filter(Boolean) : [];
    if (pending.length > 0 && !this.stopped) {
      const situation = this.state.situation;
      const internal = isPlainObject(situation.internal) ? situation.internal : {};
      this.dispatch({ event: "situation_changed", internal: { ...internal, pending_actions: pending } });
    }
  },

  async run(action, approval) {
    if (action.purpose.kind === "restart") {
      if (!this.config.restart) return { succeeded: false, detail: "this host cannot restart itself: stop it and start it again" };
      await this.config.restart();
      return { succeeded: true, detail: "restart requested" };
    }
    const skill = this.skills[action.type];
    if (skill === undefined) return { succeeded: false, detail: `no skill executes ${action.type}` };
    if (typeof skill === "function") {
      const outcome = await skill(structuredClone(action));
      if (outcome === null || typeof outcome !== "object" || typeof outcome.succeeded !== "boolean") {
        return { succeeded: false, detail: "the skill reported no outcome ({ succeeded, detail, notApplied? })" };
      }
      // `notApplied: true` (with `succeeded: false`): the skill knows nothing was applied because the world
      // had moved on; any other value of it is not understood, and a failure.
      if (outcome.notApplied !== undefined && typeof outcome.notApplied !== "boolean") {
        return { succeeded: false, detail: "the skill's `notApplied` must be true or false" };
      }
      return {
        succeeded: outcome.succeeded,
        notApplied: outcome.notApplied === true,
        detail: portText(outcome.detail, outcome.succeeded ? "done" : outcome.notApplied ? "not applied" : "failed"),
      };
    }
    const applied = await this.applyThroughExecutor(action, approval);
    if (!applied.succeeded) return applied;
    return this.review(action, applied);
  },

  /**
   * A state change: the approval the core recorded (a person's y to this request, or the whitelist entry
   * that matched) becomes a signed Confirmation for exactly the parameters the person saw.
   */
  async applyThroughExecutor(action, approval) {
    const { node_id: nodeId, from, to, ...rest } = action.parameters ?? {};
    if (![nodeId, from, to].every((value) => typeof value === "string" && value !== "") || Object.keys(rest).length > 0) {
      return { succeeded: false, detail: "a state change needs exactly the parameters node_id, from and to" };
    }
    const change = { type: action.type, from, to };
    // Approved under a standing approval: the confirmation it made (its use reserved) runs, not a new one.
    const underMandate = await this.mandateConfirmation(action);
    if (underMandate !== null) {
      const result = await this.executor.execute(this.mandateRequest(underMandate));
      return { ...executorOutcome(result, change), result };
    }
    const confirmation = issueConfirmation(
      {
        node_id: nodeId,
        proposed_change: change,
        intent: action.lines[0],
        reason: approval.reason,
        ui_action: approval.ui_action,
        // The loop's action: however many times it is approved (a state restored from an older save and
        // approved again), the Executor runs it once.
        action_id: `loop/${action.id}`,
      },
      this.signer,
      this.now(),
    );
    await saveConfirmation(this.store, confirmation);
    const result = await this.executor.execute(requestFor(confirmation));
    return { ...executorOutcome(result, change), result };
  },

  /** After an Apply: the optional Watcher review, then the Closer's completion check. */
  async review(action, applied) {
    const { watcher, closer } = this.config;
    const query = this.config.judge;
    let detail = applied.detail;
    if (watcher) {
      let verdict;
      try {
        verdict = await watcher.inspect(
          {
            executor_result: { status: "completed", artifacts: [action.lines[0]], execution_log: detail },
            original_request: `${this.state.situation.goal}: ${action.lines[0]}`,
          },
          query,
        );
      } catch (error) {
        // Applied, and the review could not decide: reported as not passed (the Watcher fails closed).
        return { succeeded: false, detail: `${detail}, but the review could not decide: ${messageOf(error)}` };
      }
      if (verdict?.pass !== true) {
        const issues = Array.isArray(verdict?.issues) ? verdict.issues.map((issue) => portText(issue)).join("; ") : "";
        return { succeeded: false, detail: `${detail}, but the review did not pass: ${issues || "no reason"}` };
      }
      detail = `${detail}; review passed`;
    }
    if (closer) {
      let check;
      try {
        check = await closer.check(
          {
            structuredOutput: { goal: this.state.situation.goal, action: action.lines[0], result: detail },
            stepId: action.id,
            c3l: { c2: "complete", c3: "task" },
          },
          query,
        );
      } catch (error) {
        return { succeeded: true, detail: `${detail}; the completion check could not decide: ${messageOf(error)}` };
      }
      if (check?.complete !== true) {
        const pendingActions = check?.output?.pendingActions ?? [];
        const reasons = Array.isArray(check?.reasons) ? check.reasons.map((reason) => portText(reason)).join("; ") : "";
        const why = portText(check?.error) || reasons;
        return { succeeded: true, detail: `${detail}; step not complete (${why || "pending work"})`, pendingActions };
      }
      detail = `${detail}; step complete`;
    }
    return { succeeded: true, detail };
  },
};
