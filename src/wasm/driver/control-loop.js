// The control loop's driver (seed 002): it performs the effects of the pure step (`controlStep`) through
// the host's ports and feeds their outcomes back as events. Every decision is the step's; this file only
// does what the step asks: ask the judge, ask the human, execute through the Executor, report, log, save.
import {
  Executor,
  MemoryStore,
  Playbook,
  controlStep,
  executionLogLine,
  issueConfirmation,
  judgeNextAction,
  newControlState,
  otelLogRecord,
  requestFor,
  saveConfirmation,
} from "../wasm/agent_governor.js";
import { memoryLogStore } from "./log-stores.js";

const CONFIG_KEYS = [
  "goal", "whitelist", "privilegedPrefix", "settings", "memoryLimit", "state", "judge", "prompts", "actionTypes",
  "approve", "skills", "chat", "logs", "storage", "store", "signer", "now", "audit", "language", "closer",
  "watcher", "reflection", "restart", "telemetry", "onEffect", "onJudgement", "onError",
];

function governorError(path, message, code = "invalid_input") {
  const error = new Error(message);
  error.name = "AgentGovernorError";
  error.code = code;
  error.path = path;
  return error;
}

const messageOf = (thrown) => (thrown instanceof Error ? thrown.message : String(thrown));
const isPlainObject = (value) =>
  value !== null && typeof value === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(value));

function optionalFunction(config, key) {
  const value = config[key];
  if (value !== undefined && typeof value !== "function") throw governorError(key, `${key} must be a function`);
  return value;
}

function readPort(config, key, methods) {
  const value = config[key];
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object") throw governorError(key, `${key} must be an object`);
  for (const method of methods) {
    if (typeof value[method] !== "function") throw governorError(`${key}.${method}`, `${key}.${method} must be a function`);
  }
  return value;
}

function readSkills(skills) {
  if (skills === undefined) return {};
  if (!isPlainObject(skills)) throw governorError("skills", "skills must be an object: action type -> skill");
  for (const [type, skill] of Object.entries(skills)) {
    const isExecutorSkill = skill !== null && typeof skill === "object" && typeof skill.apply === "function" && typeof skill.preview === "function";
    if (typeof skill !== "function" && !isExecutorSkill) {
      throw governorError(`skills.${type}`, "a skill is an ExecutorSkill ({ preview, apply }) or a function (action) => { succeeded, detail }");
    }
  }
  return skills;
}

function randomSigner() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return { keyId: `loop-${hex.slice(0, 8)}`, secret: hex };
}

/** What an ExecutorResult means for the loop: succeeded only when applied; an unknown outcome is a failure. */
function executorOutcome(result, change) {
  switch (result.outcome) {
    case "applied":
      return { succeeded: true, detail: `${result.node_id}: ${change.from} -> ${change.to} applied` };
    case "rejected":
      return { succeeded: false, detail: `rejected at ${result.rejection?.phase}: ${result.rejection?.reason}` };
    case "reconfirm_required":
      return {
        succeeded: false,
        detail: `reconfirm required (now ${result.reconfirm?.current_status}): ${result.reconfirm?.reason}`,
      };
    default: {
      const unknown = result.confirmation_state === "in_flight" ? "; the outcome is unknown: reconcile it" : "";
      return { succeeded: false, detail: `error: ${result.error?.message ?? "no outcome"}${unknown}` };
    }
  }
}

class ControlLoop {
  #state;
  #config;
  #logs;
  #skills;
  #store;
  #signer;
  #executor;
  #now;
  #queue = [];
  #stepping = false;
  #stopped = false;
  #tasks = new Set();
  #writes = Promise.resolve();
  #judgements = new Map();
  #answeredYes = new Set();
  #playbookText;
  #actionsSinceReflection = [];

  constructor(rawConfig) {
    if (!isPlainObject(rawConfig)) throw governorError("config", "the loop's config must be a plain object");
    let config;
    try {
      config = { ...rawConfig };
    } catch (error) {
      throw governorError("config", `could not be read: ${messageOf(error)}`);
    }
    for (const key of Object.keys(config)) {
      if (!CONFIG_KEYS.includes(key)) throw governorError(key, `unknown config key ${key} (known: ${CONFIG_KEYS.join(", ")})`);
    }
    if (typeof config.judge !== "function") throw governorError("judge", "judge must be a QueryFn (prompt, options) => reply");
    for (const key of ["approve", "chat", "now", "audit", "restart", "telemetry", "onEffect", "onJudgement", "onError"]) {
      optionalFunction(config, key);
    }
    this.#config = config;
    this.#logs = readPort(config, "logs", ["append", "tail", "size"]) ?? memoryLogStore();
    readPort(config, "storage", ["save"]);
    readPort(config, "closer", ["check"]);
    readPort(config, "watcher", ["inspect"]);
    if (config.reflection !== undefined) {
      if (!isPlainObject(config.reflection)) throw governorError("reflection", "reflection must be { reflector, store, playbook?, dataset? }");
      readPort(config.reflection, "reflector", ["reflect"]);
      readPort(config.reflection, "store", ["get", "put", "compareAndSwap"]);
      if (!config.reflection.reflector || !config.reflection.store) throw governorError("reflection", "reflection needs a reflector and a store");
    }
    if (config.state !== undefined && !isPlainObject(config.state)) throw governorError("state", "state must be a persisted ControlState");
    this.#store = readPort(config, "store", ["get", "put", "compareAndSwap"]) ?? new MemoryStore();
    this.#skills = readSkills(config.skills);
    this.#signer = config.signer ?? randomSigner();
    this.#now = config.now ?? Date.now;
    if (config.state !== undefined) {
      // A persisted state: checked by the step itself on the first event.
      this.#state = config.state;
    } else {
      const setup = { goal: config.goal };
      for (const key of ["whitelist", "privilegedPrefix", "settings", "memoryLimit"]) {
        if (config[key] !== undefined) setup[key] = config[key];
      }
      this.#state = newControlState(setup);
    }
    const executorSkills = Object.fromEntries(Object.entries(this.#skills).filter(([, skill]) => typeof skill !== "function"));
    // The Executor exists when some action type is a state change (it needs at least one skill).
    this.#executor = Object.keys(executorSkills).length === 0 ? null : new Executor({
      store: this.#store,
      skills: executorSkills,
      keys: { [this.#signer.keyId]: this.#signer.secret },
      now: this.#now,
      ...(config.audit ? { audit: config.audit } : {}),
      ...(config.language ? { language: config.language } : {}),
    });
    if (config.state !== undefined) this.#dispatch({ event: "host_restarted" });
  }

  /** The host observed the situation: a change starts a judgement when the loop is idle. */
  observe(situation) {
    if (!isPlainObject(situation)) throw governorError("situation", "situation must be { external, internal }");
    for (const key of Object.keys(situation)) {
      if (key !== "external" && key !== "internal") throw governorError(`situation.${key}`, "only external and internal can be observed; the goal changes through /dev goal");
    }
    this.#dispatch({ event: "situation_changed", external: situation.external ?? null, internal: situation.internal ?? null });
  }

  /**
   * The human's answer: y or n to the pending approval (of `actionId` when given: an answer to an approval
   * that is no longer pending changes nothing), or resume / discard after an interruption.
   */
  answer(text, actionId) {
    if (typeof text !== "string") throw governorError("text", "the answer must be a string");
    if (actionId !== undefined && typeof actionId !== "string") throw governorError("actionId", "actionId must be a string");
    if (this.#state.mode === "interrupted") {
      this.#dispatch({ event: "interruption_answered", answer: text });
      return;
    }
    const pending = this.#state.in_progress?.id;
    const target = actionId ?? pending;
    if (target === undefined) return;
    if (text.trim().toLowerCase() === "y" && target === pending) this.#answeredYes.add(target);
    this.#dispatch({ event: "approval_answered", action_id: target, answer: text });
  }

  /** A human message (it always wins), or a developer command when its first token is the prefix. */
  say(text) {
    if (typeof text !== "string") throw governorError("text", "the message must be a string");
    this.#dispatch({ event: "human_message", text });
  }

  /** Undoes the most recent self-modification. */
  revert() {
    this.#dispatch({ event: "revert_setting" });
  }

  /** A copy of the loop's state (persist it; hand it back as `state` after a restart). */
  state() {
    return structuredClone(this.#state);
  }

  /** The rendered playbook the judge is given, if any. */
  playbook() {
    return this.#playbookText ?? null;
  }

  /** Resolves once nothing is in flight: no judgement, no execution, no pending write. */
  async settled() {
    while (this.#tasks.size > 0 || this.#queue.length > 0) {
      await Promise.allSettled([...this.#tasks]);
    }
    await this.#writes;
  }

  /**
   * Stops the loop: an in-flight judgement is aborted, nothing new starts, and an Apply already sent is
   * awaited and recorded before this resolves.
   */
  async stop() {
    this.#stopped = true;
    for (const controller of this.#judgements.values()) controller.abort();
    await this.settled();
  }

  // ---- the step and its effects ----

  #dispatch(event) {
    this.#queue.push(event);
    if (this.#stepping) return;
    this.#stepping = true;
    try {
      while (this.#queue.length > 0) {
        const next = this.#queue.shift();
        const { state, effects } = controlStep(this.#state, next);
        this.#state = state;
        for (const effect of effects) this.#perform(effect);
        this.#afterStep(next, effects);
      }
    } finally {
      this.#stepping = false;
    }
  }

  #perform(effect) {
    this.#notify("onEffect", effect, this.#state);
    switch (effect.effect) {
      case "ask_judge":
        if (!this.#stopped) this.#track(this.#judge(effect));
        break;
      case "abort_judge":
        this.#judgements.get(effect.judgement_id)?.abort();
        break;
      case "request_approval":
        this.#requestApproval(effect);
        break;
      case "execute":
        // Started even after stop(): the step has already moved to executing, and its outcome is recorded.
        this.#track(this.#execute(effect.action));
        break;
      case "report_to_chat":
        this.#notify("chat", effect.text);
        break;
      case "append_log":
        this.#appendLog(effect.channel, effect.record);
        break;
      case "persist_state": {
        const state = this.state();
        this.#write(() => this.#config.storage?.save(state));
        break;
      }
      case "persist_rules":
        this.#write(() => this.#config.storage?.saveRules?.(effect.rules));
        break;
      case "stop":
        break;
    }
  }

  #afterStep(event, effects) {
    if (event.event === "execution_finished" && this.#state.last_result?.action.id === event.action_id) {
      this.#actionsSinceReflection.push(this.#state.last_result);
    }
    const taskEnded =
      effects.some((effect) => effect.effect === "stop") ||
      (event.event === "judgement_received" && event.judgement.decision === "wait");
    if (taskEnded && this.#actionsSinceReflection.length > 0 && this.#config.reflection) {
      const results = this.#actionsSinceReflection.splice(0);
      this.#track(this.#reflect(results));
    }
  }

  #notify(name, ...values) {
    const callback = this.#config[name];
    if (!callback) return;
    try {
      const returned = callback(...values);
      if (returned && typeof returned.then === "function") returned.then(undefined, (error) => this.#failed(name, error));
    } catch (error) {
      this.#failed(name, error);
    }
  }

  #failed(where, error) {
    if (where !== "onError" && this.#config.onError) this.#notify("onError", governorError(where, `${where}: ${messageOf(error)}`, "port_failed"));
  }

  #track(promise) {
    const task = promise.catch((error) => this.#failed("loop", error)).finally(() => this.#tasks.delete(task));
    this.#tasks.add(task);
  }

  /** Writes (logs, state) run one after another, in the order the step asked for them. */
  #write(operation) {
    this.#writes = this.#writes.then(operation).catch((error) => this.#failed("storage", error));
  }

  #appendLog(channel, record) {
    const time = new Date(this.#now()).toISOString();
    const line = executionLogLine(time, record);
    this.#write(() => this.#logs.append(channel, line));
    if (this.#config.telemetry) {
      const action = channel === "execution" ? this.#state.last_result?.action : this.#state.in_progress;
      const tool = action && channel !== "chat" ? { name: action.type, callId: action.id } : undefined;
      this.#notify("telemetry", otelLogRecord(channel, record, time, tool));
    }
  }

  async #judge(effect) {
    const controller = new AbortController();
    this.#judgements.set(effect.judgement_id, controller);
    try {
      if (this.#config.reflection && this.#playbookText === undefined) await this.#loadPlaybook();
      const request = {
        situation: effect.situation,
        memory: effect.memory,
        action_types: this.#actionTypes(),
        settings: this.#state.settings,
      };
      if (this.#playbookText) request.playbook = this.#playbookText;
      if (effect.include_log_tail) request.log_tail = await this.#logs.tail("execution", 300);
      const judge = this.#config.judge;
      const signal = controller.signal;
      // After an abort the judge is not called again (a re-ask included), and its answer is not awaited.
      const query = (prompt, options) => (signal.aborted ? { error: "aborted" } : judge(prompt, { ...options, signal }));
      const aborted = new Promise((resolve) => signal.addEventListener("abort", () => resolve(null), { once: true }));
      let outcome;
      try {
        outcome = await Promise.race([judgeNextAction(request, query, this.#config.prompts), aborted]);
      } catch (error) {
        outcome = { ok: false, error: messageOf(error), judgement: null, prompt_path: null, queries: 0, repairs: [] };
      }
      if (signal.aborted || outcome === null) return;
      this.#notify("onJudgement", outcome);
      this.#dispatch(
        outcome.ok
          ? { event: "judgement_received", judgement_id: effect.judgement_id, judgement: outcome.judgement }
          : { event: "judgement_failed", judgement_id: effect.judgement_id, error: outcome.error },
      );
    } finally {
      this.#judgements.delete(effect.judgement_id);
    }
  }

  #actionTypes() {
    const described = this.#config.actionTypes ?? {};
    return Object.keys(this.#skills).map((type) => ({ type, description: String(described[type] ?? "") }));
  }

  #requestApproval(effect) {
    const approve = this.#config.approve;
    if (!approve) return;
    const action = structuredClone(this.#state.in_progress);
    const request = { actionId: effect.action_id, lines: effect.lines, action };
    let returned;
    try {
      returned = approve(request);
    } catch (error) {
      this.#failed("approve", error);
      return;
    }
    // A returned answer is the human's; nothing returned means the answer comes through answer().
    Promise.resolve(returned).then(
      (answer) => {
        if (typeof answer === "string" && !this.#stopped) this.answer(answer, effect.action_id);
      },
      (error) => this.#failed("approve", error),
    );
  }

  async #execute(action) {
    let finished;
    try {
      finished = await this.#run(action);
    } catch (error) {
      finished = { succeeded: false, detail: `the skill threw: ${messageOf(error)}` };
    }
    this.#answeredYes.delete(action.id);
    this.#dispatch({
      event: "execution_finished",
      action_id: action.id,
      succeeded: finished.succeeded,
      detail: finished.detail,
    });
    if (finished.pendingActions?.length > 0 && !this.#stopped) {
      const situation = this.#state.situation;
      const internal = isPlainObject(situation.internal) ? situation.internal : {};
      this.#dispatch({
        event: "situation_changed",
        external: situation.external,
        internal: { ...internal, pending_actions: finished.pendingActions },
      });
    }
  }

  async #run(action) {
    if (action.purpose.kind === "restart") {
      if (!this.#config.restart) return { succeeded: false, detail: "this host cannot restart itself: stop it and start it again" };
      await this.#config.restart();
      return { succeeded: true, detail: "restart requested" };
    }
    const skill = this.#skills[action.type];
    if (skill === undefined) return { succeeded: false, detail: `no skill executes ${action.type}` };
    if (typeof skill === "function") {
      const outcome = await skill(structuredClone(action));
      if (outcome === null || typeof outcome !== "object" || typeof outcome.succeeded !== "boolean") {
        return { succeeded: false, detail: "the skill reported no outcome ({ succeeded, detail })" };
      }
      return { succeeded: outcome.succeeded, detail: String(outcome.detail ?? (outcome.succeeded ? "done" : "failed")) };
    }
    const applied = await this.#applyThroughExecutor(action);
    if (!applied.succeeded) return applied;
    return this.#review(action, applied);
  }

  /** A state change: the human's y (or the whitelist) becomes a signed Confirmation for exactly this change. */
  async #applyThroughExecutor(action) {
    const { node_id: nodeId, from, to } = action.parameters ?? {};
    if (![nodeId, from, to].every((value) => typeof value === "string" && value !== "")) {
      return { succeeded: false, detail: "a state change needs parameters node_id, from and to" };
    }
    const byHuman = this.#answeredYes.has(action.id);
    const change = { type: action.type, from, to };
    const confirmation = issueConfirmation(
      {
        node_id: nodeId,
        proposed_change: change,
        intent: action.summary,
        reason: byHuman ? "approved in chat with y" : `action type ${action.type} is whitelisted`,
        ui_action: byHuman ? "chat_y" : "whitelist",
      },
      this.#signer,
      this.#now(),
    );
    await saveConfirmation(this.#store, confirmation);
    const result = await this.#executor.execute(requestFor(confirmation));
    return { ...executorOutcome(result, change), result };
  }

  /** After an Apply: the optional Watcher review, then the Closer's completion check. */
  async #review(action, applied) {
    const { watcher, closer } = this.#config;
    const query = this.#config.judge;
    let detail = applied.detail;
    if (watcher) {
      const verdict = await watcher.inspect(
        {
          executor_result: { status: "completed", artifacts: [action.summary], execution_log: detail },
          original_request: `${this.#state.situation.goal}: ${action.summary}`,
        },
        query,
      );
      if (!verdict.pass) {
        return { succeeded: false, detail: `${detail}, but the review did not pass: ${verdict.issues.join("; ") || "no reason"}` };
      }
      detail = `${detail}; review passed`;
    }
    if (closer) {
      const check = await closer.check(
        {
          structuredOutput: { goal: this.#state.situation.goal, action: action.summary, result: detail },
          stepId: action.id,
          c3l: { c2: "complete", c3: "task" },
        },
        query,
      );
      if (!check.complete) {
        const pendingActions = check.output.pendingActions ?? [];
        const why = check.error ?? check.reasons?.join("; ") ?? "";
        return { succeeded: true, detail: `${detail}; step not complete (${why || "pending work"})`, pendingActions };
      }
      detail = `${detail}; step complete`;
    }
    return { succeeded: true, detail };
  }

  async #loadPlaybook() {
    const { store, playbook: name = "control" } = this.#config.reflection;
    const playbook = await Playbook.load(store, name);
    this.#playbookText = playbook.render();
  }

  /** After a task ends: the Reflector reflects on its trajectory and the playbook learns from it. */
  async #reflect(results) {
    const { reflector, store, playbook: name = "control", dataset } = this.#config.reflection;
    const trajectory = {
      query: this.#state.situation.goal,
      generated_result: results
        .map((result) => `${result.action.summary}: ${result.succeeded ? "done" : "FAILED"} (${result.detail})`)
        .join("\n"),
      reasoning_steps: results.map((result) => `${result.action.type}: ${result.action.summary}`),
      used_bullet_ids: [],
    };
    const report = results
      .map((result) => `${result.action.id} ${result.succeeded ? "succeeded" : `failed: ${result.detail}`}`)
      .join("\n");
    const reflection = await reflector.reflect(trajectory, "", report, dataset);
    if (reflection.error) return;
    const playbook = await Playbook.load(store, name);
    playbook.applyReflection(reflection);
    playbook.applyDeltas(playbook.curate(`${results[0].action.id}-${results.at(-1).action.id}`, reflection.insights));
    await playbook.save(store, name);
    this.#playbookText = playbook.render();
  }
}

/** A governed agent: the control loop over the given ports. See `Governor.loop`. */
export function createControlLoop(config) {
  return new ControlLoop(config);
}
