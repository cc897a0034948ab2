// The one reading of "a plain object" in the package's JavaScript: a literal or JSON data, not an array or an
// instance of a class.

/** Whether `value` is a plain object. */
export function isPlainObject(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
