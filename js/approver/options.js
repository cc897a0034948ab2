// Options read against a declared table: a key the table does not name is refused with the name the caller
// most likely meant ("`sealkey` is not an option of governToolCalls; did you mean `sealKey`?"), and a value
// of the wrong kind is refused naming its key. The one reading of options in the package's JavaScript; the
// core reads its own options the same way (the same "did you mean" rule).

import { typedError } from "./errors.js";
import { isPlainObject } from "./plain-object.js";

/** Names longer than this are compared no further (an option name is short; a long key is not a typo). */
const MAX_COMPARED = 64;

const folded = (name) => {
  const chars = [...name.toLowerCase()].filter((c) => c !== "_" && c !== "-");
  return chars.length <= MAX_COMPARED ? chars : undefined;
};

/** Optimal string alignment distance: Levenshtein where a swap of neighbours counts once. */
function editDistance(a, b) {
  let before = new Array(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 0; i < a.length; i += 1) {
    const row = [i + 1];
    for (let j = 0; j < b.length; j += 1) {
      let distance = Math.min(previous[j + 1] + 1, row[j] + 1, previous[j] + (a[i] === b[j] ? 0 : 1));
      if (i > 0 && j > 0 && a[i - 1] === b[j] && a[i] === b[j - 1]) distance = Math.min(distance, before[j - 1] + 1);
      row.push(distance);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length];
}

/**
 * The known name closest to `given`: equal ignoring case, `_` and `-`; else one it begins (three letters at
 * least); else the nearest by edit distance when at most a third of its length away (at least one edit).
 */
export function closestName(given, known) {
  const target = folded(String(given));
  if (target === undefined) return undefined;
  const candidates = known.map((name) => [name, folded(name)]).filter(([, chars]) => chars !== undefined);
  const same = candidates.find(([, chars]) => chars.join("") === target.join(""));
  if (same) return same[0];
  if (target.length >= 3) {
    const begun = candidates.find(([, chars]) => chars.join("").startsWith(target.join("")));
    if (begun) return begun[0];
  }
  const allowed = Math.max(1, Math.floor(target.length / 3));
  let best;
  for (const [name, chars] of candidates) {
    const distance = editDistance(target, chars);
    if (distance <= allowed && (best === undefined || distance < best[1])) best = [name, distance];
  }
  return best?.[0];
}

/** "`key` is not an option of owner; did you mean `x`?", or the known options when none is close. */
export function notAnOption(key, owner, known) {
  const text = String(key);
  const shown = text.length > MAX_COMPARED ? `${text.slice(0, MAX_COMPARED)}...` : text;
  const meant = closestName(text, known);
  if (meant !== undefined) return `\`${shown}\` is not an option of ${owner}; did you mean \`${meant}\`?`;
  return `\`${shown}\` is not an option of ${owner} (known: ${known.join(", ")})`;
}

/** What each kind of the tables accepts, and how a person reads it. */
const KINDS = {
  string: [(v) => typeof v === "string", "a string"],
  boolean: [(v) => typeof v === "boolean", "true or false"],
  function: [(v) => typeof v === "function", "a function"],
  number: [(v) => typeof v === "number" && Number.isFinite(v), "a finite number"],
  integer: [(v) => Number.isSafeInteger(v) && v >= 0, "a whole number (0 or more)"],
  plain: [(v) => isPlainObject(v), "a plain object"],
  object: [(v) => v !== null && typeof v === "object" && !Array.isArray(v), "an object"],
  array: [(v) => Array.isArray(v), "an array"],
  any: [() => true, "any value"],
};

function describe(value) {
  try {
    return describeReadable(value);
  } catch {
    return "an unreadable value";
  }
}

function describeReadable(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (typeof value === "object") return isPlainObject(value) ? "an object" : `a ${value.constructor?.name ?? "class instance"}`;
  return `a ${typeof value}`;
}

/**
 * Reads `value`, the options of `owner` (at `path`; `""` for a whole argument), against `table` (`{ name:
 * kind }`, a kind being `"string"`, `"boolean"`, `"function"`, `"number"`, `"integer"`, `"plain"`,
 * `"object"`, `"array"`, `"any"`, or several joined by `|`). `undefined` (or a member set to `undefined`)
 * is an option not given. Returns a copy holding the given options, read once (a getter runs once).
 * Throws `invalid_input` naming the key for an unknown key or a value of the wrong kind.
 */
export function readOptions(owner, path, value, table, { required = false } = {}) {
  const at = (key) => (path === "" ? key : `${path}.${key}`);
  const known = Object.keys(table);
  if (value === undefined && !required) return {};
  let plain;
  let keys;
  try {
    plain = isPlainObject(value);
    keys = plain ? Reflect.ownKeys(value) : [];
  } catch (error) {
    throw typedError("invalid_input", path, `the options of ${owner} could not be read: ${error?.message ?? error}`);
  }
  if (!plain) {
    throw typedError("invalid_input", path, `the options of ${owner} must be a plain object { ${known.join(", ")} }, got ${describe(value)}`);
  }
  const read = {};
  for (const key of keys) {
    if (typeof key !== "string") throw typedError("invalid_input", path, `the options of ${owner} have a symbol key: options are named by strings`);
    if (!Object.hasOwn(table, key)) throw typedError("invalid_input", at(key), notAnOption(key, owner, known));
    let member;
    try {
      member = value[key];
    } catch (error) {
      throw typedError("invalid_input", at(key), `\`${key}\` of ${owner} could not be read: ${error?.message ?? error}`);
    }
    if (member === undefined) continue;
    const kinds = table[key].split("|");
    if (!kinds.some((kind) => KINDS[kind][0](member))) {
      const wanted = kinds.map((kind) => KINDS[kind][1]).join(" or ");
      throw typedError("invalid_input", at(key), `\`${key}\` of ${owner} must be ${wanted}, got ${describe(member)}`);
    }
    read[key] = member;
  }
  return read;
}

/** The Executor's options (the core checks each value again). */
export const EXECUTOR_OPTIONS = {
  store: "object",
  keys: "plain",
  now: "function",
  audit: "function",
  auditTimeoutMs: "number",
  clockSkewMs: "number",
  audience: "string",
  sealKey: "string",
  language: "string",
};

/** What `governToolCalls` reads: the Executor's options, `whitelist` and `keepOutputs`. */
export const GOVERN_TOOL_CALLS_OPTIONS = { ...EXECUTOR_OPTIONS, whitelist: "array", keepOutputs: "boolean", agentId: "string" };
