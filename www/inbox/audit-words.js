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
 * The fields of a record whose values the page's words name (an outcome, a verb, an event, an answer): they
 * are read by the sentence, never marked as someone's text.
 */
const ENUMERATED = new Set(["outcome", "verb", "event", "state", "phase", "roles"]);
/** Marks around a value in a sentence (Unicode private use: never in what the guard stores as words). */
const OPEN = "\uE000";
const CLOSE = "\uE001";

/**
 * One record as a line: the sentence in `words`' language, split so that what people, agents and keys wrote
 * or are called (names, reasons, key names, node ids, statuses, commands' text, at any depth of the record)
 * is a `<span class="agent-text">` of its own, shown as written, and the rest is the page's words.
 * `span(text)` makes the span. The sentence is made from the record with each such value replaced by a mark,
 * so a value is marked where the sentence puts it, never where the same letters happen to appear.
 */
export function auditParts(record, words, span) {
  const detail = record.detail ?? {};
  const values = [];
  const mark = (value) => {
    values.push(value);
    return `${OPEN}${values.length - 1}${CLOSE}`;
  };
  // A command's text that the sentence reads as a word (an answer, a whitelist change) stays as it is.
  const readText = detail.verb === "answer" || detail.verb === "whitelist" || record.event === "answer";
  const marked = (value, field, depth) => {
    if (typeof value === "string") return ENUMERATED.has(field) || (field === "text" && readText && depth === 0) || value === "" ? value : mark(value);
    if (Array.isArray(value)) return value.map((item) => marked(item, field, depth + 1));
    if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, marked(item, key, depth + 1)]));
    return value;
  };
  const { person, key } = keyHolder(detail.key_id ?? detail.by);
  const say = words.auditSays?.[record.event];
  const sentence =
    typeof say === "function"
      ? say({ ...marked(detail, "", -1), person: person || detail.approver ? mark(person || detail.approver) : "", key: key ? mark(key) : "" }, record)
      : (words.events?.[record.event] ?? record.event);
  const parts = [];
  const pattern = new RegExp(`${OPEN}(\\d+)${CLOSE}`, "gu");
  let at = 0;
  for (const found of sentence.matchAll(pattern)) {
    if (found.index > at) parts.push(sentence.slice(at, found.index));
    const value = values[Number(found[1])];
    parts.push(value === undefined ? found[0] : span(value));
    at = found.index + found[0].length;
  }
  if (at < sentence.length) parts.push(sentence.slice(at));
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
