// The control loop's judge: the request it is given (the situation, the memory, the action types, the
// playbook, the execution log's tail), the judgement asked for, and an abort that ends it. Methods of the
// loop's driver (`this` is the driver), assigned to its prototype in control-loop-driver.js.
import { judgeNextAction, retainLog } from "../wasm/agent_governor_full.js";
import { messageOf, portText } from "./control-loop-text.js";

/** The judge reads at most this much of the execution log's tail (whole lines, cut by the core). */
const MAX_LOG_TAIL_BYTES = 256 * 1024;

export const judgeMethods = {
  async judge(effect) {
    const controller = new AbortController();
    this.judgements.set(effect.judgement_id, controller);
    const signal = controller.signal;
    try {
      let outcome;
      try {
        outcome = await this.ask(effect, signal);
      } catch (error) {
        // A port that failed while the request was built (the log, the playbook): the judgement failed.
        outcome = { ok: false, error: portText(messageOf(error), "the judge failed"), judgement: null, prompt_path: null, queries: 0, repairs: [] };
      }
      if (signal.aborted || outcome === null) return;
      this.notify("onJudgement", outcome);
      this.dispatch(
        outcome.ok
          ? { event: "judgement_received", judgement_id: effect.judgement_id, judgement: outcome.judgement }
          : { event: "judgement_failed", judgement_id: effect.judgement_id, error: outcome.error },
      );
    } finally {
      this.judgements.delete(effect.judgement_id);
    }
  },

  /** Builds the judge's request and asks; resolves to the JudgeOutcome, or null once aborted. */
  async ask(effect, signal) {
    {
      if (this.config.reflection && this.playbookText === undefined) await this.loadPlaybook();
      const request = {
        situation: effect.situation,
        memory: effect.memory,
        declined: effect.declined ?? [],
        replies: effect.replies ?? [],
        action_types: this.actionTypes(),
        settings: this.state.settings,
      };
      if (this.playbookText) request.playbook = this.playbookText;
      if (effect.include_log_tail) {
        // The newest lines matter: a tail too long for a request is cut from its start, by the core, at a
        // whole line.
        const tail = await this.logs.tail("execution", 300);
        const text = typeof tail === "string" ? tail : "";
        request.log_tail = retainLog(text.slice(-4 * MAX_LOG_TAIL_BYTES).toWellFormed(), MAX_LOG_TAIL_BYTES);
      }
      const judge = this.config.judge;
      // After an abort the judge is not called again (a re-ask included), and its answer is not awaited.
      const query = (prompt, options) => (signal.aborted ? { error: "aborted" } : judge(prompt, { ...options, signal }));
      const aborted = new Promise((resolve) => signal.addEventListener("abort", () => resolve(null), { once: true }));
      return Promise.race([judgeNextAction(request, query, this.config.prompts), aborted]);
    }
  },

  actionTypes() {
    const described = this.config.actionTypes ?? {};
    return Object.keys(this.skills).map((type) => ({ type, description: String(described[type] ?? "") }));
  },
};
