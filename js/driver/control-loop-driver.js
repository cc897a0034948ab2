// The control loop's driver, what a ControlLoop (control-loop.js) runs on and keeps private: the loop's
// state and ports, each event stepped through the core (`controlStep`) in order, and each effect the step
// asks for performed. The effects have their own files, whose methods are assigned to the driver's prototype
// below: the judge, asking a person, the execute path, the reflection, the reports to the host.
import { Executor, controlStep, newBootId, newControlState } from "../wasm/agent_governor_full.js";
import { SETUP_KEYS, readConfig } from "./control-loop-config.js";
import { messageOf, portText } from "./control-loop-text.js";
import { judgeMethods } from "./control-loop-judge.js";
import { personMethods } from "./control-loop-person.js";
import { executeMethods } from "./control-loop-execute.js";
import { reflectionMethods } from "./control-loop-reflection.js";
import { reportMethods } from "./control-loop-report.js";
import { mandateMethods, readStandingApprovals } from "./control-loop-mandates.js";

/** How long the loop waits for `storage.loadRules()` before it starts without the saved rules. */
const LOAD_RULES_TIMEOUT_MS = 10_000;

export class LoopDriver {
  state;
  config;
  logs;
  skills;
  store;
  signer;
  executor;
  now;
  queue = [];
  stepping = false;
  starting = false;
  stopped = false;
  tasks = new Set();
  writes = Promise.resolve();
  judgements = new Map();
  refused = null;
  pending = null;
  playbookText;
  actionsSinceReflection = [];
  /** Reflections run one after another: each loads what the one before it saved. */
  reflections = Promise.resolve();

  constructor(rawConfig) {
    const { config, logs, store, skills, signer, now } = readConfig(rawConfig);
    this.config = config;
    this.logs = logs;
    this.store = store;
    this.skills = skills;
    this.signer = signer;
    this.now = now;
    this.standing = readStandingApprovals(config.standingApprovals);
    // The setup is checked by the core even when a persisted state is given (its renderers and rules are
    // the host's current configuration, handed to the restarted state).
    const setup = { goal: config.state !== undefined ? "restarted" : config.goal };
    for (const key of SETUP_KEYS) {
      if (config[key] !== undefined) setup[key] = config[key];
    }
    const fresh = newControlState(setup);
    this.state = config.state !== undefined ? config.state : fresh;
    const executorSkills = Object.fromEntries(Object.entries(this.skills).filter(([, skill]) => typeof skill !== "function"));
    // The Executor exists when some action type is a state change (it needs at least one skill).
    this.executor = Object.keys(executorSkills).length === 0 ? null : new Executor({
      store: this.store,
      skills: executorSkills,
      keys: { ...(this.standing?.keys ?? {}), [this.signer.keyId]: this.signer.secret },
      now: this.now,
      ...(config.audit ? { audit: config.audit } : {}),
      ...(config.language ? { language: config.language } : {}),
    });
    // A saved state is checked now (a no-op step), so a bad one is a typed error from the constructor.
    if (config.state !== undefined) controlStep(config.state, { event: "state_persisted", revision: 0 });
    const loadRules = config.storage?.loadRules;
    if (loadRules && config.rules === undefined) {
      // Events wait until the persisted rules are back: nothing is judged under rules a person replaced.
      this.starting = true;
      this.track(this.start(config.state !== undefined, () => loadRules.call(config.storage)));
    } else if (config.state !== undefined) {
      this.dispatch(this.restarted(config.rules));
    }
  }

  restarted(rules) {
    const event = { event: "host_restarted", boot: newBootId() };
    if (rules !== undefined && rules !== null) event.rules = rules;
    if (this.config.renderers !== undefined) event.renderers = this.config.renderers;
    return event;
  }

  async start(restarted, loadRules) {
    let rules;
    let timer;
    try {
      // A load that never settles must not hold the restart (nor a person's message) back.
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${LOAD_RULES_TIMEOUT_MS} ms: started without them`)), LOAD_RULES_TIMEOUT_MS);
      });
      rules = (await Promise.race([Promise.resolve().then(loadRules), late])) ?? undefined;
    } catch (error) {
      this.failed("storage.loadRules", error);
    } finally {
      clearTimeout(timer);
    }
    this.starting = false;
    const queued = this.queue.splice(0);
    if (restarted || rules !== undefined) {
      try {
        this.dispatch(this.restarted(rules));
      } catch (error) {
        // Rules the core refuses are not used (the defaults deny); the restart itself is never skipped,
        // since it is what turns an action found executing into an unknown outcome.
        this.failed("storage.loadRules", error);
        if (restarted) this.dispatch(this.restarted(undefined));
      }
    }
    for (const event of queued) this.dispatch(event);
  }

  // ---- the step and its effects ----

  dispatch(event) {
    this.queue.push(event);
    this.drain();
  }

  /**
   * Steps every queued event in order. An event the core refuses is dropped (its typed error is thrown to
   * whoever dispatched it, once the queue is empty); the events after it are still stepped.
   */
  drain() {
    if (this.stepping || this.starting) return;
    this.stepping = true;
    let refused = null;
    try {
      while (this.queue.length > 0) {
        const next = this.queue.shift();
        let step;
        try {
          step = controlStep(this.state, next);
        } catch (error) {
          refused ??= error;
          continue;
        }
        this.state = step.state;
        for (const effect of step.effects) this.perform(effect);
        this.afterStep(next, step.effects);
      }
    } finally {
      this.stepping = false;
    }
    if (refused) throw refused;
  }

  /** One effect; one that throws is reported and the step's other effects are still performed. */
  perform(effect) {
    try {
      this.performOne(effect);
    } catch (error) {
      this.failed(`effect ${effect.effect}`, error);
    }
  }

  performOne(effect) {
    this.notify("onEffect", effect, this.state);
    switch (effect.effect) {
      case "ask_judge":
        if (!this.stopped) this.track(this.judge(effect));
        break;
      case "abort_judge":
        this.judgements.get(effect.judgement_id)?.abort();
        break;
      case "request_approval":
        this.requestApprovalOrMandate(effect);
        break;
      case "request_reconcile":
        this.requestReconcile(effect);
        break;
      case "answer_refused":
        this.refused = effect;
        break;
      case "execute":
        // Emitted only once the state saying it executes was saved; never after stop() (its outcome is
        // then unknown to the next start, which asks a person to reconcile it).
        if (!this.stopped) this.track(this.execute(effect.action, effect.approval));
        break;
      case "report_to_chat":
        this.notify("chat", effect.text);
        break;
      case "append_log":
        this.appendLog(effect.channel, effect.record);
        break;
      case "persist_state":
        this.persist(effect.revision);
        break;
      case "persist_rules":
        this.write(() => this.config.storage?.saveRules?.(effect.rules));
        break;
      case "stop":
        break;
    }
  }

  /** Saves the state, then tells the core it is saved (an approved action waits for that) or that it is not. */
  persist(revision) {
    const state = structuredClone(this.state);
    const storage = this.config.storage;
    const saved = this.writes.then(() => storage?.save(state));
    this.writes = saved.then(
      () => this.dispatch({ event: "state_persisted", revision }),
      (error) => {
        this.failed("storage", error);
        this.dispatch({ event: "state_not_persisted", revision, error: portText(messageOf(error), "the save failed") });
      },
    ).catch((error) => this.failed("loop", error));
  }

  track(promise) {
    const task = promise.catch((error) => this.failed("loop", error)).finally(() => this.tasks.delete(task));
    this.tasks.add(task);
  }

  /** Writes (logs, state) run one after another, in the order the step asked for them. */
  write(operation) {
    this.writes = this.writes.then(operation).catch((error) => this.failed("storage", error));
  }
}

// The effects by concern, each in its own file.
Object.assign(LoopDriver.prototype, judgeMethods, personMethods, executeMethods, reflectionMethods, reportMethods, mandateMethods);
