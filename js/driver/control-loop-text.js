// The control loop's text helpers: what a thrown value says, and a port's text as an event can carry it.

/** What a thrown value says, whatever it is (a Symbol, an object whose toString throws). */
export function messageOf(thrown) {
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
export function portText(value, fallback = "") {
  let text;
  try {
    text = typeof value === "string" ? value : value === undefined || value === null ? fallback : String(value);
  } catch {
    text = fallback;
  }
  return text.slice(0, MAX_PORT_TEXT).toWellFormed();
}
