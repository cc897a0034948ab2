// Only JSON data is signed: what `JSON.stringify` would change (NaN and the infinities become null, a Date
// its text, a Map `{}`, a class instance its own fields, a hole null; a getter, a symbol key or `toJSON`
// decide what is written) is refused with its path, as the core refuses it, so what a person signs is what
// they were shown. A member set to `undefined` is a field not given.
import { typedError } from "./errors.js";

const MAX_DEPTH = 64;

/** A plain object from any realm: its prototype is null or a realm's `Object.prototype`. */
function plain(value) {
  const prototype = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

function refused(path, why) {
  return typedError("invalid_input", path, `invalid_input at \`${path}\`: ${why}`);
}

/** Throws a typed error at the first part of `value` that is not JSON data exactly. */
export function checkJsonData(path, value, depth = 0) {
  if (depth > MAX_DEPTH) throw refused(path, `is nested more than ${MAX_DEPTH} levels deep (or refers to itself)`);
  if (value === null || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw refused(path, `is ${value}: JSON has no such number (it would become null)`);
    return;
  }
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw refused(path, "holds a lone surrogate: JSON text must be well-formed");
    return;
  }
  if (typeof value !== "object") throw refused(path, `is a ${typeof value}: not JSON data (JSON would drop it or fail)`);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const at = `${path}[${index}]`;
      if (!(index in value)) throw refused(at, "is a hole: JSON would write null");
      checkJsonData(at, value[index], depth + 1);
    }
    return;
  }
  if (!plain(value)) {
    const name = value.constructor?.name;
    throw refused(path, `is ${name ? `a ${name}` : "an instance of a class"}: only plain objects are JSON data`);
  }
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== "string") throw refused(path, "has a symbol key: JSON would drop that member");
    const at = path === "" ? key : `${path}.${key}`;
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor.get || descriptor.set) throw refused(at, "is a getter: JSON data holds values, not code that computes them");
    if (!descriptor.enumerable) throw refused(at, "is not enumerable: JSON would drop it");
    if (key === "toJSON") throw refused(at, "is a toJSON member: JSON would write what it returns, not this object");
    if (descriptor.value === undefined) continue;
    checkJsonData(at, descriptor.value, depth + 1);
  }
}
