// The control loop's driver (seed 002): it performs the effects of the pure step (`controlStep`) through
// the host's ports and feeds their outcomes back as events. Every decision is the step's; this file only
// does what the step asks: ask the judge, ask the human, execute through the Executor, report, log, save.
import {
  Executor,
  GatedPlaybook,
  MemoryStore,
  Playbook,
  controlStep,
  executionLogLine,
  issueConfirmation,
  judgeNextAction,
  newBootId,
  newControlState,
  otelLogRecord,
  requestFor,
  retainLog,
  saveConfirmation,
} from "../wasm/agent_governor_full.js";
import { memoryLogStore } from "./log-stores.js";
import { typedError } from "../approver/errors.js";
import { notAnOption } from "../approver/options.js";

const CONFIG_KEYS = [
  "goal", "whitelist", "privilegedPrefix", "settings", "memoryLimit", "memoryLimitBytes", "maxInvalidAnswers",
  "renderers", "rules", "state", "judge", "prompts", "actionTypes", "approve", "reconcile", "skills", "chat",
  "logs", "storage", "store", "signer", "now", "audit", "language", "closer", "watcher", "reflection", "restart",
  "telemetry", "onEffect", "onJudgement", "onError",
];
const REFLECTION_KEYS = ["reflector", "store", "playbook", "dataset", "gate"];
const GATE_KEYS = ["cases", "evaluate", "timeoutMs", "policy", "onOutcome"];

/** Refuses a key of `object` (the loop config's member at `path`) that `known` does not list. */
function onlyKnown(path, object, known) {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) throw governorError(`${path}.${key}`, notAnOption(key, `createControlLoop's ${path}`, known));
  }
}
const SETUP_KEYS = ["whitelist", "privilegedPrefix", "settings", "memoryLimit", "memoryLimitBytes", "maxInvalidAnswers", "renderers", "rules"];

/** The package's typed error, with the path first (as this file reads best). */
const governorError = (path, message, code = "invalid_input") => typedError(code, path, message);

function readTimeout(options) {
  if (options === undefined || options === null) return undefined;
  if (!isPlainObject(options)) throw governorError("options", "options must be { timeoutMs? }");
  for (const key of Object.keys(options)) {
    if (key !== "timeoutMs") throw governorError(`options.${key}`, notAnOption(key, "this call", ["timeoutMs"]));
  }
  const { timeoutMs } = options;
  if (timeoutMs === undefined) return undefined;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0) throw governorError("options.timeoutMs", "timeoutMs must be a whole number of milliseconds");
  return timeoutMs;
}

/** What a thrown value says, whatever it is (a Symbol, an object whose toString throws). */
function messageOf(thrown) {
  try {
    return thrown instanceof Error ? String(thrown.message) : String(thrown);
  } catch {
    return "(an error that cannot be shown as text)";
  }
}

/** The most UTF-16 units of a port's text carried into an event (the core cuts it further, to one line). */
const MAX_PORT_TEXT = 16 * 1024;

/**
 * A port's text as an event can carry it: a string (or what it says), no longer than MAX_PORT_TEXT, and
 * well-formed (a lone surrogate, e.g. from `.slice()`, becomes U+FFFD): the core never refuses it, so an
 * outcome is never lost for the way it was written.
 */
function portText(value, fallback = "") {
  let text;
  try {
    text = typeof value === "string" ? value : value === undefined || value === null ? fallback : String(value);
  } catch {
    text = fallback;
  }
  return text.slice(0, MAX_PORT_TEXT).toWellFormed();
}

/** How long the loop waits for `storage.loadRules()` before it starts without the saved rules. */
const LOAD_RULES_TIMEOUT_MS = 10_000;

/** The judge reads at most this much of the execution log's tail (whole lines, cut by the core). */
const MAX_LOG_TAIL_BYTES = 256 * 1024;
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
  #starting = false;
  #stopped = false;
  #tasks = new Set();
  #writes = Promise.resolve();
  #judgements = new Map();
  #refused = null;
  #pending = null;
  #playbookText;
  #actionsSinceReflection = [];
  /** Reflections run one after another: each loads what the one before it saved. */
  #reflections = Promise.resolve();

  constructor(rawConfig) {
    if (!isPlainObject(rawConfig)) throw governorError("config", "the loop's config must be a plain object");
    let config;
    try {
      config = { ...rawConfig };
    } catch (error) {
      throw governorError("config", `could not be read: ${messageOf(error)}`);
    }
    for (const key of Object.keys(config)) {
      if (!CONFIG_KEYS.includes(key)) throw governorError(key, notAnOption(key, "createControlLoop", CONFIG_KEYS));
    }
    if (typeof config.judge !== "function") throw governorError("judge", "judge must be a QueryFn (prompt, options) => reply");
    for (const key of ["approve", "reconcile", "chat", "now", "audit", "restart", "telemetry", "onEffect", "onJudgement", "onError"]) {
      optionalFunction(config, key);
    }
    this.#config = config;
    this.#logs = readPort(config, "logs", ["append", "tail", "size"]) ?? memoryLogStore();
    const storage = readPort(config, "storage", ["save"]);
    for (const method of ["saveRules", "loadRules"]) {
      if (storage && storage[method] !== undefined && typeof storage[method] !== "function") {
        throw governorError(`storage.${method}`, `storage.${method} must be a function`);
      }
    }
    readPort(config, "closer", ["check"]);
    readPort(config, "watcher", ["inspect"]);
    if (config.reflection !== undefined) {
      if (!isPlainObject(config.reflection)) throw governorError("reflection", "reflection must be { reflector, store, playbook?, dataset? }");
      onlyKnown("reflection", config.reflection, REFLECTION_KEYS);
      if (isPlainObject(config.reflection.gate)) onlyKnown("reflection.gate", config.reflection.gate, GATE_KEYS);
      readPort(config.reflection, "reflector", ["reflect"]);
      readPort(config.reflection, "store", ["get", "put", "compareAndSwap"]);
      if (!config.reflection.reflector || !config.reflection.store) throw governorError("reflection", "reflection needs a reflector and a store");
      const gate = config.reflection.gate;
      if (gate !== undefined) {
        if (!isPlainObject(gate) || !Array.isArray(gate.cases)) throw governorError("reflection.gate", "reflection.gate must be { cases, evaluate, policy?, onOutcome? }");
        if (typeof gate.evaluate !== "function") throw governorError("reflection.gate.evaluate", "reflection.gate.evaluate must be a function", "invalid_port");
        if (gate.onOutcome !== undefined && typeof gate.onOutcome !== "function") throw governorError("reflection.gate.onOutcome", "reflection.gate.onOutcome must be a function", "invalid_port");
        if (gate.cases.length === 0) throw governorError("reflection.gate.cases", "reflection.gate.cases must hold at least one held-out case");
        try {
          // The core checks the policy now, not at the first reflection.
          new GatedPlaybook({ policy: gate.policy }).free();
        } catch (error) {
          throw governorError("reflection.gate.policy", error.message);
        }
      }
    }
    if (config.state !== undefined && !isPlainObject(config.state)) throw governorError("state", "state must be a persisted ControlState");
    this.#store = readPort(config, "store", ["get", "put", "compareAndSwap"]) ?? new MemoryStore();
    this.#skills = readSkills(config.skills);
    this.#signer = config.signer ?? randomSigner();
    this.#now = config.now ?? Date.now;
    // The setup is checked by the core even when a persisted state is given (its renderers and rules are
    // the host's current configuration, handed to the restarted state).
    const setup = { goal: config.state !== undefined ? "restarted" : config.goal };
    for (const key of SETUP_KEYS) {
      if (config[key] !== undefined) setup[key] = config[key];
    }
    const fresh = newControlState(setup);
    this.#state = config.state !== undefined ? config.state : fresh;
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
    // A saved state is checked now (a no-op step), so a bad one is a typed error from the constructor.
    if (config.state !== undefined) controlStep(config.state, { event: "state_persisted", revision: 0 });
    const loadRules = config.storage?.loadRules;
    if (loadRules && config.rules === undefined) {
      // Events wait until the persisted rules are back: nothing is judged under rules a person replaced.
      this.#starting = true;
      this.#track(this.#start(config.state !== undefined, () => loadRules.call(config.storage)));
    } else if (config.state !== undefined) {
      this.#dispatch(this.#restarted(config.rules));
    }
  }

  #restarted(rules) {
    const event = { event: "host_restarted", boot: newBootId() };
    if (rules !== undefined && rules !== null) event.rules = rules;
    if (this.#config.renderers !== undefined) event.renderers = this.#config.renderers;
    return event;
  }

  async #start(restarted, loadRules) {
    let rules;
    let timer;
    try {
      // A load that never settles must not hold the restart (nor a person's message) back.
      const late = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${LOAD_RULES_TIMEOUT_MS} ms: started without them`)), LOAD_RULES_TIMEOUT_MS);
      });
      rules = (await Promise.race([Promise.resolve().then(loadRules), late])) ?? undefined;
    } catch (error) {
      this.#failed("storage.loadRules", error);
    } finally {
      clearTimeout(timer);
    }
    this.#starting = false;
    const queued = this.#queue.splice(0);
    if (restarted || rules !== undefined) {
      try {
        this.#dispatch(this.#restarted(rules));
      } catch (error) {
        // Rules the core refuses are not used (the defaults deny); the restart itself is never skipped,
        // since it is what turns an action found executing into an unknown outcome.
        this.#failed("storage.loadRules", error);
        if (restarted) this.#dispatch(this.#restarted(undefined));
      }
    }
    for (const event of queued) this.#dispatch(event);
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
    if (this.#stopped) return;
    const event = { event: "situation_changed" };
    for (const key of ["external", "internal"]) {
      if (situation[key] !== undefined) event[key] = situation[key];
    }
    this.#dispatch(event);
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
      if (this.#state.mode !== "interrupted") {
        throw governorError("requestId", "an approval's answer needs the id of its request (ApprovalRequest.requestId)", "answer_refused");
      }
      this.#dispatch({ event: "interruption_answered", answer: text });
      return;
    }
    this.#dispatchAnswer({ event: "approval_answered", request_id: requestId, answer: text });
  }

  /** A person says whether an action with an unknown outcome (found executing after a restart) was applied. */
  reconcile(actionId, outcome) {
    if (typeof actionId !== "string") throw governorError("actionId", "actionId must be a string");
    if (outcome !== "applied" && outcome !== "not_applied") throw governorError("outcome", 'outcome must be "applied" or "not_applied"');
    this.#refuseWhenStopped();
    this.#dispatchAnswer({ event: "outcome_reconciled", action_id: actionId, applied: outcome === "applied" });
  }

  /** A human message (it always wins), or a developer command when its first token is the prefix. */
  say(text) {
    if (typeof text !== "string") throw governorError("text", "the message must be a string");
    this.#refuseWhenStopped();
    this.#dispatch({ event: "human_message", text });
  }

  #refuseWhenStopped() {
    if (this.#stopped) throw governorError("loop", "the loop is stopped: nothing is asked, judged or executed any more", "loop_stopped");
  }

  /** Dispatches a person's answer; when the core refuses it, the caller gets the typed error. */
  #dispatchAnswer(event) {
    const synchronous = !this.#stepping && !this.#starting;
    this.#refused = null;
    this.#dispatch(event);
    const refused = this.#refused;
    this.#refused = null;
    if (synchronous && refused) throw governorError("requestId", refused.reason, "answer_refused");
  }

  /** Undoes the most recent self-modification. */
  revert() {
    this.#refuseWhenStopped();
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

  /**
   * What a UI shows: the mode, why the loop stopped (`halt.kind` `declined` means "stopped after your
   * decline": a new goal or instruction through `say()` starts again), the waiting request, and the actions
   * whose outcome a person must reconcile.
   */
  status() {
    const state = this.#state;
    const waiting = ["awaiting_approval", "stopped"].includes(state.mode) ? this.#pending : null;
    return {
      mode: state.mode,
      stopped: this.#stopped,
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
      // A save can start an execution, and an execution more saves: wait until neither is left.
      for (;;) {
        if (this.#tasks.size > 0) {
          await Promise.allSettled([...this.#tasks]);
          continue;
        }
        const writes = this.#writes;
        await writes;
        if (writes === this.#writes && this.#tasks.size === 0 && this.#queue.length === 0 && !this.#starting) return;
        if (this.#queue.length > 0 && !this.#stepping && !this.#starting) {
          try {
            this.#drain();
          } catch (error) {
            this.#failed("loop", error);
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
    this.#stopped = true;
    for (const controller of this.#judgements.values()) controller.abort();
    await this.settled(timeoutMs === undefined ? undefined : { timeoutMs });
  }

  // ---- the step and its effects ----

  #dispatch(event) {
    this.#queue.push(event);
    this.#drain();
  }

  /**
   * Steps every queued event in order. An event the core refuses is dropped (its typed error is thrown to
   * whoever dispatched it, once the queue is empty); the events after it are still stepped.
   */
  #drain() {
    if (this.#stepping || this.#starting) return;
    this.#stepping = true;
    let refused = null;
    try {
      while (this.#queue.length > 0) {
        const next = this.#queue.shift();
        let step;
        try {
          step = controlStep(this.#state, next);
        } catch (error) {
          refused ??= error;
          continue;
        }
        this.#state = step.state;
        for (const effect of step.effects) this.#perform(effect);
        this.#afterStep(next, step.effects);
      }
    } finally {
      this.#stepping = false;
    }
    if (refused) throw refused;
  }

  /** One effect; one that throws is reported and the step's other effects are still performed. */
  #perform(effect) {
    try {
      this.#performOne(effect);
    } catch (error) {
      this.#failed(`effect ${effect.effect}`, error);
    }
  }

  #performOne(effect) {
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
      case "request_reconcile":
        this.#requestReconcile(effect);
        break;
      case "answer_refused":
        this.#refused = effect;
        break;
      case "execute":
        // Emitted only once the state saying it executes was saved; never after stop() (its outcome is
        // then unknown to the next start, which asks a person to reconcile it).
        if (!this.#stopped) this.#track(this.#execute(effect.action, effect.approval));
        break;
      case "report_to_chat":
        this.#notify("chat", effect.text);
        break;
      case "append_log":
        this.#appendLog(effect.channel, effect.record);
        break;
      case "persist_state":
        this.#persist(effect.revision);
        break;
      case "persist_rules":
        this.#write(() => this.#config.storage?.saveRules?.(effect.rules));
        break;
      case "stop":
        break;
    }
  }

  /** Saves the state, then tells the core it is saved (an approved action waits for that) or that it is not. */
  #persist(revision) {
    const state = this.state();
    const storage = this.#config.storage;
    const saved = this.#writes.then(() => storage?.save(state));
    this.#writes = saved.then(
      () => this.#dispatch({ event: "state_persisted", revision }),
      (error) => {
        this.#failed("storage", error);
        this.#dispatch({ event: "state_not_persisted", revision, error: portText(messageOf(error), "the save failed") });
      },
    ).catch((error) => this.#failed("loop", error));
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
      const reflection = this.#reflections.then(() => this.#reflect(results));
      this.#reflections = reflection.catch(() => {});
      this.#track(reflection);
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
      const result = channel === "execution" ? this.#state.last_result : undefined;
      const action = channel === "execution" ? result?.action : this.#state.in_progress;
      let tool;
      if (action && channel !== "chat") {
        tool = { name: action.type, callId: action.id, changeDigest: action.digest };
        // The approval the core wrote ahead of executing this action, if it is approved.
        const approval = this.#state.execution?.approval;
        if (approval && approval.digest === action.digest) {
          tool.approvedBy = approval.by;
          if (approval.request_id) tool.requestId = approval.request_id;
        }
        if (result) tool.succeeded = result.succeeded;
      }
      this.#notify("telemetry", otelLogRecord(channel, record, time, tool));
    }
  }

  async #judge(effect) {
    const controller = new AbortController();
    this.#judgements.set(effect.judgement_id, controller);
    const signal = controller.signal;
    try {
      let outcome;
      try {
        outcome = await this.#ask(effect, signal);
      } catch (error) {
        // A port that failed while the request was built (the log, the playbook): the judgement failed.
        outcome = { ok: false, error: portText(messageOf(error), "the judge failed"), judgement: null, prompt_path: null, queries: 0, repairs: [] };
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

  /** Builds the judge's request and asks; resolves to the JudgeOutcome, or null once aborted. */
  async #ask(effect, signal) {
    {
      if (this.#config.reflection && this.#playbookText === undefined) await this.#loadPlaybook();
      const request = {
        situation: effect.situation,
        memory: effect.memory,
        action_types: this.#actionTypes(),
        settings: this.#state.settings,
      };
      if (this.#playbookText) request.playbook = this.#playbookText;
      if (effect.include_log_tail) {
        // The newest lines matter: a tail too long for a request is cut from its start, by the core, at a
        // whole line.
        const tail = await this.#logs.tail("execution", 300);
        const text = typeof tail === "string" ? tail : "";
        request.log_tail = retainLog(text.slice(-4 * MAX_LOG_TAIL_BYTES).toWellFormed(), MAX_LOG_TAIL_BYTES);
      }
      const judge = this.#config.judge;
      // After an abort the judge is not called again (a re-ask included), and its answer is not awaited.
      const query = (prompt, options) => (signal.aborted ? { error: "aborted" } : judge(prompt, { ...options, signal }));
      const aborted = new Promise((resolve) => signal.addEventListener("abort", () => resolve(null), { once: true }));
      return Promise.race([judgeNextAction(request, query, this.#config.prompts), aborted]);
    }
  }

  #actionTypes() {
    const described = this.#config.actionTypes ?? {};
    return Object.keys(this.#skills).map((type) => ({ type, description: String(described[type] ?? "") }));
  }

  #requestApproval(effect) {
    const action = structuredClone(this.#state.in_progress);
    const request = { requestId: effect.request_id, actionId: effect.action_id, lines: [...effect.lines], note: effect.note ?? null, digest: effect.digest, action };
    this.#pending = structuredClone(request);
    // A string is the person's answer; `{ withdraw: reason }` is the host setting its own request aside
    // before anyone answered (what it would act on is gone): the loop then judges again.
    this.#askPerson("approve", request, (answer) => {
      if (typeof answer === "string") return { event: "approval_answered", request_id: effect.request_id, answer: portText(answer) };
      if (isPlainObject(answer) && typeof answer.withdraw === "string") {
        return { event: "approval_withdrawn", request_id: effect.request_id, reason: portText(answer.withdraw, "withdrawn by the host") };
      }
      return null;
    });
  }

  #requestReconcile(effect) {
    const waiting = (this.#state.unreconciled ?? []).find(({ action }) => action.id === effect.action_id);
    const request = { actionId: effect.action_id, lines: [...effect.lines], action: structuredClone(waiting?.action ?? null) };
    this.#askPerson("reconcile", request, (outcome) =>
      outcome === "applied" || outcome === "not_applied"
        ? { event: "outcome_reconciled", action_id: effect.action_id, applied: outcome === "applied" }
        : null,
    );
  }

  /**
   * Shows `request` through the `port` (approve, reconcile). What the port returns, when `toEvent` reads it
   * as an answer, is the person's; nothing returned means the answer comes through the loop's methods. It is
   * taken on a later turn of the event loop, so a port that answers at once cannot spin the loop. The loop
   * is settled while it waits for a person, and not between an answer's arrival and its step.
   */
  #askPerson(port, request, toEvent) {
    const show = this.#config[port];
    if (!show || this.#stopped) return;
    let returned;
    try {
      returned = show(request);
    } catch (error) {
      this.#failed(port, error);
      return;
    }
    Promise.resolve(returned).then(
      (answer) => {
        const event = toEvent(answer);
        if (event) this.#track(this.#later(event, port));
      },
      (error) => this.#failed(port, error),
    );
  }

  /** Dispatches `event` on a later turn of the event loop, unless the loop was stopped by then. */
  #later(event, port) {
    return new Promise((resolve) => {
      setTimeout(() => {
        try {
          if (!this.#stopped) this.#dispatch(event);
        } catch (error) {
          this.#failed(port, error);
        }
        resolve();
      }, 0);
    });
  }

  async #execute(action, approval) {
    let finished;
    try {
      finished = await this.#run(action, approval);
    } catch (error) {
      finished = { succeeded: false, detail: `the skill threw: ${messageOf(error)}` };
    }
    this.#dispatch({
      event: "execution_finished",
      action_id: action.id,
      succeeded: finished.succeeded === true,
      detail: portText(finished.detail),
    });
    const pending = Array.isArray(finished.pendingActions) ? finished.pendingActions.map((item) => portText(item)).filter(Boolean) : [];
    if (pending.length > 0 && !this.#stopped) {
      const situation = this.#state.situation;
      const internal = isPlainObject(situation.internal) ? situation.internal : {};
      this.#dispatch({ event: "situation_changed", internal: { ...internal, pending_actions: pending } });
    }
  }

  async #run(action, approval) {
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
      return { succeeded: outcome.succeeded, detail: portText(outcome.detail, outcome.succeeded ? "done" : "failed") };
    }
    const applied = await this.#applyThroughExecutor(action, approval);
    if (!applied.succeeded) return applied;
    return this.#review(action, applied);
  }

  /**
   * A state change: the approval the core recorded (a person's y to this request, or the whitelist entry
   * that matched) becomes a signed Confirmation for exactly the parameters the person saw.
   */
  async #applyThroughExecutor(action, approval) {
    const { node_id: nodeId, from, to, ...rest } = action.parameters ?? {};
    if (![nodeId, from, to].every((value) => typeof value === "string" && value !== "") || Object.keys(rest).length > 0) {
      return { succeeded: false, detail: "a state change needs exactly the parameters node_id, from and to" };
    }
    const change = { type: action.type, from, to };
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
      let verdict;
      try {
        verdict = await watcher.inspect(
          {
            executor_result: { status: "completed", artifacts: [action.lines[0]], execution_log: detail },
            original_request: `${this.#state.situation.goal}: ${action.lines[0]}`,
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
            structuredOutput: { goal: this.#state.situation.goal, action: action.lines[0], result: detail },
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
  }

  async #loadPlaybook() {
    const { store, playbook: name = "control", gate } = this.#config.reflection;
    const playbook = gate ? await GatedPlaybook.load(store, name, gate.policy) : await Playbook.load(store, name);
    this.#playbookText = gate ? playbook.prompt() : playbook.render();
  }

  /** After a task ends: the Reflector reflects on its trajectory and the playbook learns from it. */
  async #reflect(results) {
    const { reflector, store, playbook: name = "control", dataset } = this.#config.reflection;
    const trajectory = {
      query: this.#state.situation.goal,
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
    const { gate } = this.#config.reflection;
    if (gate) {
      // The deltas reach the judge only through the gate; its decision is stored with the playbook.
      const gated = await GatedPlaybook.load(store, name, gate.policy);
      const evaluation = { cases: gate.cases, evaluate: gate.evaluate, timeoutMs: gate.timeoutMs };
      const outcome = await gated.proposeReflection(reflectionId, reflection, evaluation);
      await gated.save(store, name);
      this.#playbookText = gated.prompt();
      if (gate.onOutcome) {
        try {
          gate.onOutcome(outcome);
        } catch (error) {
          this.#failed("reflection.gate.onOutcome", error);
        }
      }
      return;
    }
    const playbook = await Playbook.load(store, name);
    playbook.applyReflection(reflection);
    playbook.applyDeltas(playbook.curate(reflectionId, reflection.insights));
    await playbook.save(store, name);
    this.#playbookText = playbook.render();
  }
}

/** A governed agent: the control loop over the given ports. See `Governor.loop`. */
export function createControlLoop(config) {
  return new ControlLoop(config);
}
