// The control loop's driver (seed 002): it performs the effects of the pure step (`controlStep`) through
// the host's ports and feeds their outcomes back as events. Every decision is the step's; the driver only
// does what the step asks: ask the judge, ask the human, execute through the Executor, report, log, save.
// This file holds what a host calls (`createControlLoop` and the loop's methods); the driver itself is
// control-loop-driver.js, its effects are in the other control-loop-*.js files.
import { LoopDriver } from "./control-loop-driver.js";
import { governorError, isPlainObject, readTimeout } from "./control-loop-config.js";
import { portText } from "./control-loop-text.js";
import { isBlank } from "../approver/canonical.js";

class ControlLoop {
  /** What the loop runs on: its state, its ports and the step's effects (control-loop-driver.js). */
  #driver;

  constructor(rawConfig) {
    this.#driver = new LoopDriver(rawConfig);
  }

  /**
   * The host observed the situation: a change starts a judgement when the loop is idle. A part left out
   * keeps its value. Ignored once the loop is stopped.
   */
  observe(situation) {
    if (!isPlainObject(situation)) throw governorError("situation", "situation must be { external?, internal? }");
    for (const key of Object.keys(situation)) {
      if (key !== "external" && key !== "internal") throw governorError(`situation.${key}`, "only external and internal can be observed; the goal changes through /dev goal");
    }
    if (this.#driver.stopped) return;
    const event = { event: "situation_changed" };
    for (const key of ["external", "internal"]) {
      if (situation[key] !== undefined) event[key] = situation[key];
    }
    this.#driver.dispatch(event);
  }

  /**
   * A person's answer: `y` or `n` to the approval request `requestId` (required: an answer for any other
   * request is refused with an AgentGovernorError `answer_refused`, and logged), or `resume` / `discard`
   * after an interruption (no id). After `stop()` every answer is refused (`loop_stopped`).
   */
  answer(text, requestId) {
    if (typeof text !== "string") throw governorError("text", "the answer must be a string");
    if (requestId !== undefined && typeof requestId !== "string") throw governorError("requestId", "requestId must be a string");
    this.#refuseWhenStopped();
    if (requestId === undefined) {
      if (this.#driver.state.mode !== "interrupted") {
        throw governorError("requestId", "an approval's answer needs the id of its request (ApprovalRequest.requestId)", "answer_refused");
      }
      this.#driver.dispatch({ event: "interruption_answered", answer: text });
      return;
    }
    this.#dispatchAnswer({ event: "approval_answered", request_id: requestId, answer: text });
  }

  /**
   * A person declines the approval request `requestId` with their reason: the judge reads it as their words,
   * and the same change is not asked for again until the situation or an instruction changed.
   */
  decline(requestId, reason) {
    if (typeof requestId !== "string") throw governorError("requestId", "requestId must be a string");
    if (typeof reason !== "string") throw governorError("reason", "the reason must be a string (a person's words)");
    this.#refuseWhenStopped();
    this.#dispatchAnswer({ event: "approval_answered", request_id: requestId, answer: "n", reason: portText(reason) });
  }

  /**
   * A person approves the request `requestId` with the change edited (its parameters, of the same action
   * type; what they signed): the machine renders its lines again and runs the edited action, once, and the
   * loop says how it differs. Throws `answer_refused` when the edit cannot be shown or the request is another.
   */
  approveEdited(requestId, parameters) {
    if (typeof requestId !== "string") throw governorError("requestId", "requestId must be a string");
    if (!isPlainObject(parameters)) throw governorError("parameters", "the edited parameters must be a plain object");
    this.#refuseWhenStopped();
    this.#dispatchAnswer({ event: "approval_answered", request_id: requestId, answer: "y", edited: parameters });
  }

  /** A person says whether an action with an unknown outcome (found executing after a restart) was applied. */
  reconcile(actionId, outcome) {
    if (typeof actionId !== "string") throw governorError("actionId", "actionId must be a string");
    if (outcome !== "applied" && outcome !== "not_applied") throw governorError("outcome", 'outcome must be "applied" or "not_applied"');
    this.#refuseWhenStopped();
    this.#dispatchAnswer({ event: "outcome_reconciled", action_id: actionId, applied: outcome === "applied" });
  }

  /**
   * A person's reply to the agent, deciding nothing (from an approval card, say): read at the next judgement,
   * at once when the loop is idle; nothing waiting is interrupted, and it is never a developer command.
   */
  reply(text) {
    if (typeof text !== "string") throw governorError("text", "the reply must be a string");
    if (isBlank(text)) throw governorError("text", "the reply is empty");
    this.#refuseWhenStopped();
    this.#driver.dispatch({ event: "human_reply", text: portText(text) });
  }

  /** A human message (it always wins), or a developer command when its first token is the prefix. */
  say(text) {
    if (typeof text !== "string") throw governorError("text", "the message must be a string");
    this.#refuseWhenStopped();
    this.#driver.dispatch({ event: "human_message", text });
  }

  #refuseWhenStopped() {
    if (this.#driver.stopped) throw governorError("loop", "the loop is stopped: nothing is asked, judged or executed any more", "loop_stopped");
  }

  /** Dispatches a person's answer; when the core refuses it, the caller gets the typed error. */
  #dispatchAnswer(event) {
    const synchronous = !this.#driver.stepping && !this.#driver.starting;
    this.#driver.refused = null;
    this.#driver.dispatch(event);
    const refused = this.#driver.refused;
    this.#driver.refused = null;
    if (synchronous && refused) throw governorError("requestId", refused.reason, "answer_refused");
  }

  /** Undoes the most recent self-modification. */
  revert() {
    this.#refuseWhenStopped();
    this.#driver.dispatch({ event: "revert_setting" });
  }

  /** A copy of the loop's state (persist it; hand it back as `state` after a restart). */
  state() {
    return structuredClone(this.#driver.state);
  }

  /**
   * Registers a person's signed standing approval (needs `standingApprovals` and a state-change skill):
   * verified by the Executor, never twice. A state change it covers, for the loop's agent, is then approved
   * without asking, once per use. Resolves to its record.
   */
  registerMandate(mandate) {
    return this.#driver.registerMandate(mandate);
  }

  /** The registered standing approvals: `{ record, version }` each. */
  mandates() {
    return this.#driver.mandates();
  }

  /** The rendered playbook the judge is given, if any. */
  playbook() {
    return this.#driver.playbookText ?? null;
  }

  /**
   * What a UI shows: the mode, why the loop stopped (`halt.kind` `declined` means "stopped after your
   * decline": a new goal or instruction through `say()` starts again), the waiting request, and the actions
   * whose outcome a person must reconcile.
   */
  status() {
    const state = this.#driver.state;
    const waiting = ["awaiting_approval", "stopped"].includes(state.mode) ? this.#driver.pending : null;
    return {
      mode: state.mode,
      stopped: this.#driver.stopped,
      halt: state.halt ?? null,
      pending: waiting && waiting.actionId === state.in_progress?.id ? structuredClone(waiting) : null,
      unreconciled: (state.unreconciled ?? []).map(({ action }) => ({ actionId: action.id, lines: [...action.lines] })),
    };
  }

  /**
   * Resolves once nothing the loop started is still running: no judgement, no execution, no pending write.
   * With `timeoutMs`, rejects with an AgentGovernorError `timeout` when that takes longer.
   */
  async settled(options) {
    const timeoutMs = readTimeout(options);
    const drained = (async () => {
      const driver = this.#driver;
      // A save can start an execution, and an execution more saves: wait until neither is left.
      for (;;) {
        if (driver.tasks.size > 0) {
          await Promise.allSettled([...driver.tasks]);
          continue;
        }
        const writes = driver.writes;
        await writes;
        if (writes === driver.writes && driver.tasks.size === 0 && driver.queue.length === 0 && !driver.starting) return;
        if (driver.queue.length > 0 && !driver.stepping && !driver.starting) {
          try {
            driver.drain();
          } catch (error) {
            driver.failed("loop", error);
          }
        }
        // A turn of the event loop, so that timers (a timeout among them) still run.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    })();
    if (timeoutMs === undefined) return drained;
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(governorError("timeoutMs", `the loop did not settle within ${timeoutMs} ms`, "timeout")), timeoutMs);
    });
    try {
      return await Promise.race([drained, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Stops the loop: an in-flight judgement is aborted, nothing is judged, asked or executed any more, and
   * an Apply already sent is awaited and recorded before this resolves (with `timeoutMs`, rejects with
   * `timeout` instead of waiting longer). Later answers are refused with `loop_stopped`.
   */
  async stop(options) {
    const timeoutMs = readTimeout(options);
    this.#driver.stopped = true;
    for (const controller of this.#driver.judgements.values()) controller.abort();
    await this.settled(timeoutMs === undefined ? undefined : { timeoutMs });
  }
}

/** A governed agent: the control loop over the given ports. See `Governor.loop`. */
export function createControlLoop(config) {
  return new ControlLoop(config);
}
