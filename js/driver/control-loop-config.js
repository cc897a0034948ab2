// The control loop's config, read once by its constructor: the keys it knows, the ports it names (each
// checked for the methods the loop calls), the skills, the reflection and its gate, and the options of a call
// that waits (`{ timeoutMs }`). Every refusal is the package's typed error, naming the path of what is wrong.
import { GatedPlaybook, MemoryStore } from "../wasm/agent_governor_full.js";
import { memoryLogStore } from "./log-stores.js";
import { typedError } from "../approver/errors.js";
import { notAnOption } from "../approver/options.js";
import { messageOf } from "./control-loop-text.js";

const CONFIG_KEYS = [
  "goal", "whitelist", "privilegedPrefix", "settings", "memoryLimit", "memoryLimitBytes", "maxInvalidAnswers",
  "renderers", "rules", "state", "judge", "prompts", "actionTypes", "approve", "reconcile", "skills", "chat",
  "logs", "storage", "store", "signer", "now", "audit", "language", "closer", "watcher", "reflection", "restart",
  "telemetry", "onEffect", "onJudgement", "onError", "standingApprovals",
];
const REFLECTION_KEYS = ["reflector", "store", "playbook", "dataset", "gate"];
const GATE_KEYS = ["cases", "evaluate", "timeoutMs", "policy", "onOutcome"];

/** Refuses a key of `object` (the loop config's member at `path`) that `known` does not list. */
function onlyKnown(path, object, known) {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) throw governorError(`${path}.${key}`, notAnOption(key, `createControlLoop's ${path}`, known));
  }
}
export const SETUP_KEYS = ["whitelist", "privilegedPrefix", "settings", "memoryLimit", "memoryLimitBytes", "maxInvalidAnswers", "renderers", "rules"];

/** The package's typed error, with the path first (as the loop's files read best). */
export const governorError = (path, message, code = "invalid_input") => typedError(code, path, message);

export function readTimeout(options) {
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

export const isPlainObject = (value) =>
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

/**
 * Reads the loop's config: a copy of it, checked key by key, and the ports it names, with their defaults (a
 * log store and a store in memory, no skills, a random signer, `Date.now`). Throws the typed error of the
 * first thing wrong with it.
 */
export function readConfig(rawConfig) {
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
  const logs = readPort(config, "logs", ["append", "tail", "size"]) ?? memoryLogStore();
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
  const store = readPort(config, "store", ["get", "put", "compareAndSwap"]) ?? new MemoryStore();
  const skills = readSkills(config.skills);
  const signer = config.signer ?? randomSigner();
  const now = config.now ?? Date.now;
  return { config, logs, store, skills, signer, now };
}
