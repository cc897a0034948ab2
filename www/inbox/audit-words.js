// The audit in words: each record of the guard's trail as a sentence a person reads ("Alice approved with
// her key laptop", "the agent took command 3"), in the page's language. A key id is `<approver>/<key name>`:
// the person is its first part. A record this page has no sentence for is shown by its event name.

/** The person and the key name of a key id `approver/name`; the whole id as the person otherwise. */
export function keyHolder(keyId) {
  if (typeof keyId !== "string" || keyId === "") return { person: "", key: "" };
  const at = keyId.indexOf("/");
  return at < 0 ? { person: keyId, key: "" } : { person: keyId.slice(0, at), key: keyId.slice(at + 1) };
}

/** One record as a sentence in `words`' language. */
export function auditSentence(record, words) {
  const detail = record.detail ?? {};
  const { person, key } = keyHolder(detail.key_id ?? detail.by);
  const say = words.auditSays?.[record.event];
  if (typeof say === "function") return say({ ...detail, person: person || detail.approver || "", key }, record);
  return words.events?.[record.event] ?? record.event;
}
