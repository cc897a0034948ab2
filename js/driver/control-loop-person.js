// The control loop asking a person: an approval request (through the `approve` port) and the outcome of an
// action found executing after a restart (through `reconcile`); what a port returns is the person's answer,
// taken on a later turn of the event loop. Methods of the loop's driver (`this` is the driver), assigned to
// its prototype in control-loop-driver.js.
import { isPlainObject } from "./control-loop-config.js";
import { portText } from "./control-loop-text.js";

/** What a port returned that is no answer the loop reads: an error naming what it is and what is read. */
function unreadableAnswer(port, answer, expected) {
  const what = Array.isArray(answer) ? "an array" : isPlainObject(answer) ? `an object with ${JSON.stringify(Object.keys(answer).slice(0, 8))}` : `a ${typeof answer}`;
  return new Error(`the ${port} port returned ${what}, which is not an answer: it returns ${expected}, or nothing when the answer comes later`);
}

export const personMethods = {
  requestApproval(effect) {
    const action = structuredClone(this.state.in_progress);
    const request = { requestId: effect.request_id, actionId: effect.action_id, lines: [...effect.lines], note: effect.note ?? null, digest: effect.digest, action };
    this.pending = structuredClone(request);
    // A string is the person's answer; `{ decline: reason }` is a decline with the person's words;
    // `{ edited: parameters }` is a y to the change as the person edited it (what they signed);
    // `{ withdraw: reason }` is the host setting its own request aside before anyone answered (what it would
    // act on is gone): the loop then judges again. Nothing (undefined) means the answer comes through the
    // loop's methods; anything else is refused, typed.
    this.askPerson("approve", request, (answer) => {
      if (answer === undefined || answer === null) return null;
      if (typeof answer === "string") return { event: "approval_answered", request_id: effect.request_id, answer: portText(answer) };
      if (isPlainObject(answer) && Object.keys(answer).length === 1 && typeof answer.decline === "string") {
        return { event: "approval_answered", request_id: effect.request_id, answer: "n", reason: portText(answer.decline) };
      }
      if (isPlainObject(answer) && Object.keys(answer).length === 1 && isPlainObject(answer.edited)) {
        return { event: "approval_answered", request_id: effect.request_id, answer: "y", edited: answer.edited };
      }
      if (isPlainObject(answer) && Object.keys(answer).length === 1 && typeof answer.withdraw === "string") {
        return { event: "approval_withdrawn", request_id: effect.request_id, reason: portText(answer.withdraw, "withdrawn by the host") };
      }
      throw unreadableAnswer("approve", answer, 'a string ("y" or "n"), { decline: reason }, { edited: parameters } or { withdraw: reason }');
    });
  },

  requestReconcile(effect) {
    const waiting = (this.state.unreconciled ?? []).find(({ action }) => action.id === effect.action_id);
    const request = { actionId: effect.action_id, lines: [...effect.lines], action: structuredClone(waiting?.action ?? null) };
    this.askPerson("reconcile", request, (outcome) => {
      if (outcome === undefined || outcome === null) return null;
      if (outcome === "applied" || outcome === "not_applied") return { event: "outcome_reconciled", action_id: effect.action_id, applied: outcome === "applied" };
      throw unreadableAnswer("reconcile", outcome, '"applied" or "not_applied"');
    });
  },

  /**
   * Shows `request` through the `port` (approve, reconcile). What the port returns, when `toEvent` reads it
   * as an answer, is the person's; nothing returned means the answer comes through the loop's methods. It is
   * taken on a later turn of the event loop, so a port that answers at once cannot spin the loop. The loop
   * is settled while it waits for a person, and not between an answer's arrival and its step.
   */
  askPerson(port, request, toEvent) {
    const show = this.config[port];
    if (!show || this.stopped) return;
    let returned;
    try {
      returned = show(request);
    } catch (error) {
      this.failed(port, error);
      return;
    }
    Promise.resolve(returned).then(
      (answer) => {
        let event;
        try {
          event = toEvent(answer);
        } catch (error) {
          // Not an answer the loop can read: said (onError), and the request still waits for one.
          this.failed(port, error);
          return;
        }
        if (event) this.track(this.later(event, port));
      },
      (error) => this.failed(port, error),
    );
  },

  /**
   * Dispatches `event` on a later turn of the event loop, unless the loop was stopped by then. An answer the
   * core refuses (an edit it cannot show, say) is said through `onError`, never dropped.
   */
  later(event, port) {
    return new Promise((resolve) => {
      setTimeout(() => {
        try {
          if (!this.stopped) {
            this.refused = null;
            this.dispatch(event);
            const refused = this.refused;
            this.refused = null;
            if (refused) this.failed(port, new Error(`the answer was refused: ${refused.reason}`));
          }
        } catch (error) {
          this.failed(port, error);
        }
        resolve();
      }, 0);
    });
  },
};
