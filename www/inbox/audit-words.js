// The audit in words: each record of the guard's trail as a sentence a person reads ("Alice approved with
// her key laptop", "the agent took command 3"), in the page's language. A key id is `<approver>/<key name>`:
// the person is its first part. A record this page has no sentence for is shown by its event name.

/** The person and the key name of a key id `approver/name`; the whole id as the person otherwise. */
export function keyHolder(keyId) {
  if (typeof keyId !== "string" || keyId === "") return { person: "", key: "" };
  const at = keyId.indexOf("/");
  return at < 0 ? { person: keyId, key: "" } : { person: keyId.slice(0, at), key: keyId.slice(at + 1) };
}

/**
 * The fields of a record whose values the page's words name (an outcome, a verb, an event): they are words
 * of the page, never marked as someone's text.
 */
const ENUMERATED = new Set(["outcome", "verb", "event", "state", "phase"]);

/**
 * One record as a line: the sentence in `words`' language, split so that what people, agents and keys wrote
 * or are called (names, reasons, key names, node ids, commands' text) is a `<span class="agent-text">` of
 * its own, shown as written, and the rest is the page's words. `span(text)` makes the span.
 */
export function auditParts(record, words, span) {
  const sentence = auditSentence(record, words);
  const detail = record.detail ?? {};
  const { person, key } = keyHolder(detail.key_id ?? detail.by);
  const named = [person, key, ...Object.entries(detail).filter(([field, value]) => typeof value === "string" && !ENUMERATED.has(field)).map(([, value]) => value)]
    .filter((value) => typeof value === "string" && value.length > 0)
    .sort((a, b) => b.length - a.length);
  const parts = [];
  let rest = sentence;
  while (rest.length > 0) {
    let first = null;
    for (const value of named) {
      const at = rest.indexOf(value);
      if (at >= 0 && (first === null || at < first.at || (at === first.at && value.length > first.value.length))) first = { at, value };
    }
    if (first === null) {
      parts.push(rest);
      break;
    }
    if (first.at > 0) parts.push(rest.slice(0, first.at));
    parts.push(span(first.value));
    rest = rest.slice(first.at + first.value.length);
  }
  return parts;
}

/** One record as a sentence in `words`' language. */
export function auditSentence(record, words) {
  const detail = record.detail ?? {};
  const { person, key } = keyHolder(detail.key_id ?? detail.by);
  const say = words.auditSays?.[record.event];
  if (typeof say === "function") return say({ ...detail, person: person || detail.approver || "", key }, record);
  return words.events?.[record.event] ?? record.event;
}
