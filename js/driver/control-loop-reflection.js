// The control loop's reflection: when a task ends, the Reflector reflects on the actions it took and the
// playbook learns from them (through the acceptance gate, when one is configured); the judge is given the
// playbook's text. Methods of the loop's driver (`this` is the driver), assigned to its prototype in
// control-loop-driver.js.
import { GatedPlaybook, Playbook } from "../wasm/agent_governor_full.js";

export const reflectionMethods = {
  /** After each step: an action's result is kept for the next reflection, which starts when the task ends. */
  afterStep(event, effects) {
    if (event.event === "execution_finished" && this.state.last_result?.action.id === event.action_id) {
      this.actionsSinceReflection.push(this.state.last_result);
    }
    const taskEnded =
      effects.some((effect) => effect.effect === "stop") ||
      (event.event === "judgement_received" && event.judgement.decision === "wait");
    if (taskEnded && this.actionsSinceReflection.length > 0 && this.config.reflection) {
      const results = this.actionsSinceReflection.splice(0);
      const reflection = this.reflections.then(() => this.reflect(results));
      this.reflections = reflection.catch(() => {});
      this.track(reflection);
    }
  },

  async loadPlaybook() {
    const { store, playbook: name = "control", gate } = this.config.reflection;
    const playbook = gate ? await GatedPlaybook.load(store, name, gate.policy) : await Playbook.load(store, name);
    this.playbookText = gate ? playbook.prompt() : playbook.render();
  },

  /** After a task ends: the Reflector reflects on its trajectory and the playbook learns from it. */
  async reflect(results) {
    const { reflector, store, playbook: name = "control", dataset } = this.config.reflection;
    const trajectory = {
      query: this.state.situation.goal,
      generated_result: results
        .map((result) => `${result.action.lines[0]}: ${result.succeeded ? "done" : "FAILED"} (${result.detail})`)
        .join("\n"),
      reasoning_steps: results.map((result) => `${result.action.type}: ${result.action.lines[0]}`),
      used_bullet_ids: [],
    };
    const report = results
      .map((result) => `${result.action.id} ${result.succeeded ? "succeeded" : `failed: ${result.detail}`}`)
      .join("\n");
    const reflection = await reflector.reflect(trajectory, "", report, dataset);
    if (reflection.error) return;
    const reflectionId = `${results[0].action.id}-${results.at(-1).action.id}`;
    const { gate } = this.config.reflection;
    if (gate) {
      // The deltas reach the judge only through the gate; its decision is stored with the playbook.
      const gated = await GatedPlaybook.load(store, name, gate.policy);
      const evaluation = { cases: gate.cases, evaluate: gate.evaluate, timeoutMs: gate.timeoutMs };
      const outcome = await gated.proposeReflection(reflectionId, reflection, evaluation);
      await gated.save(store, name);
      this.playbookText = gated.prompt();
      if (gate.onOutcome) {
        try {
          gate.onOutcome(outcome);
        } catch (error) {
          this.failed("reflection.gate.onOutcome", error);
        }
      }
      return;
    }
    const playbook = await Playbook.load(store, name);
    playbook.applyReflection(reflection);
    playbook.applyDeltas(playbook.curate(reflectionId, reflection.insights));
    await playbook.save(store, name);
    this.playbookText = playbook.render();
  },
};
