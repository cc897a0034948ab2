// The exact bytes an approver signs, with no WebAssembly: the same encoding as the core's (a JSON array of
// the binding fields, UTF-8), so a signature made here verifies in any guard. JSON.stringify and the core's
// serde_json write a string the same way (the same escapes for `"`, `\` and control characters, and nothing
// else escaped) when the string is well-formed UTF-16, which `text` requires. The input must be JSON data
// exactly, as the guard reads it (a Date, NaN, a getter or a class instance is refused with its path), and is
// refused where the core would refuse it (unknown fields, wrong types, a time that is not strict RFC 3339, a malformed nonce),
// so a person never signs what no guard accepts. tests/js/approver-canonical compares these bytes with the
// core's for every field over many generated values.
import { typedError } from "./errors.js";
import { checkJsonData } from "./json-data.js";

const CONFIRMATION_DOMAIN = "agent-governor/confirmation/v1";
const CONFIRMATION_DOMAIN_WITH_AUDIENCE = "agent-governor/confirmation/v2";
const CONFIRMATION_DOMAIN_WITH_ACTION = "agent-governor/confirmation/v3";
const ACTION_DOMAIN = "agent-governor/action/v2";
const RECEIPT_DOMAIN = "agent-governor/receipt/v1";
const MANDATE_DOMAIN = "agent-governor/mandate/v1";

/** The human action kinds a guard knows (`HumanActionKind` in the core). */
export const HUMAN_ACTION_KINDS = Object.freeze([
  "decline",
  "cancel",
  "reconcile_applied",
  "reconcile_not_applied",
  "add_key",
  "revoke_key",
  "rename_key",
  "command",
  "enroll",
  "revoke_mandate",
]);

/** The core reads no input (a text, an object's JSON) over 1 MiB; neither is one signed here. */
const MAX_INPUT_BYTES = 1 << 20;

const encoder = new TextEncoder();

/**
 * `value` as the guard will read it: its JSON form, which must be an object (JSON data or an object a class
 * made, from any realm), at most 1 MiB of JSON, with no field outside `fields`.
 */
function jsonObject(path, value, fields) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw typedError("invalid_input", path, `${path} must be an object, got ${kindOf(value)}`);
  }
  let json;
  try {
    checkJsonData(path, value);
    json = JSON.stringify(value);
  } catch (error) {
    if (error?.name === "AgentGovernorError") throw error;
    throw typedError("invalid_input", path, `${path} could not be read as JSON: ${error?.message ?? String(error)}`);
  }
  if (json === undefined) throw typedError("invalid_input", path, `${path} has no JSON form`);
  if (json.length > MAX_INPUT_BYTES) {
    throw typedError("invalid_input", path, `${path} is at least ${json.length} bytes; the limit is ${MAX_INPUT_BYTES}`);
  }
  const copy = JSON.parse(json);
  if (copy === null || typeof copy !== "object" || Array.isArray(copy)) {
    throw typedError("invalid_input", path, `${path} must be an object, got ${kindOf(copy)} as JSON`);
  }
  const unknown = Object.keys(copy).find((field) => !fields.includes(field));
  if (unknown !== undefined) throw typedError("invalid_input", `${path}.${unknown}`, `unknown field ${unknown}`);
  return copy;
}

function optional(path, value, read) {
  return value === undefined || value === null ? null : read(path, value);
}

function boolean(path, value) {
  if (typeof value !== "boolean") throw typedError("invalid_input", path, `${path} must be a boolean, got ${kindOf(value)}`);
  return value;
}

/** Strict RFC 3339, as the core reads it: a `T` or a space between date and time, an explicit offset, a real date. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;

function time(path, value) {
  const match = RFC3339.exec(text(path, value));
  const valid = match !== null && (() => {
    const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
    // Not Date.UTC: it reads the years 0 to 99 as 1900 to 1999 (so 0000-02-29 would not exist).
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    const daysInMonth = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
    const offsetOk = match[8] === "Z" || (Number(match[9]) < 24 && Number(match[10]) < 60);
    return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour < 24 && minute < 60 && second < 60 && offsetOk;
  })();
  if (!valid) throw typedError("invalid_input", path, `${path} must be an RFC 3339 time with an offset, e.g. 2026-11-25T04:00:00.000Z`);
  return value;
}

/** A string the core can hold: well-formed UTF-16 (a lone surrogate has no UTF-8 form). */
function text(path, value) {
  if (typeof value !== "string") throw typedError("invalid_input", path, `${path} must be a string, got ${kindOf(value)}`);
  if (value.length > MAX_INPUT_BYTES) {
    throw typedError("invalid_input", path, `${path} is at least ${value.length} bytes; the limit is ${MAX_INPUT_BYTES}`);
  }
  if (!isWellFormed(value)) throw typedError("invalid_input", path, `${path} contains a lone surrogate`);
  return value;
}

/** Only white space, as the core reads it (Unicode White_Space: U+0085 is, U+FEFF is not, unlike `trim`). */
const BLANK = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** Whether `text` is blank as the core reads it (Rust's white space: U+FEFF is not), not as `trim` does. */
export const isBlank = (text) => BLANK.test(text);

/** No lone surrogate (`isWellFormed` where the host has it; `encodeURIComponent` refuses one everywhere). */
function isWellFormed(value) {
  if (typeof value.isWellFormed === "function") return value.isWellFormed();
  try {
    encodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}

function nonEmpty(path, value) {
  if (BLANK.test(text(path, value))) throw typedError("invalid_input", path, `${path} must not be empty`);
  return value;
}

function kindOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/** A key id: a non-empty string. */
export function keyIdText(path, value) {
  return nonEmpty(path, value);
}

function bytesOf(path, fields) {
  const bytes = encoder.encode(JSON.stringify(fields));
  if (bytes.length > MAX_INPUT_BYTES) {
    throw typedError("invalid_input", path, `${path} is at least ${bytes.length} bytes; the limit is ${MAX_INPUT_BYTES}`);
  }
  return bytes;
}

const CONFIRMATION_FIELDS = [
  "confirmation_id", "node_id", "proposed_change", "intent", "reason", "confirmed_by", "confirmed_at", "ui_action",
  "audience", "action_id", "key_id", "signature", "assertion", "consumed", "consumed_at", "cancelled", "in_flight_at",
  "invalidated_at", "seal",
];
const CHANGE_FIELDS = ["type", "from", "to"];
const ACTION_FIELDS = ["action", "approval_id", "detail", "at", "nonce", "version", "key_id", "signature", "assertion"];
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;
const MAX_VERSION_CHARS = 128;
/** The longest action id, in characters (`MAX_ACTION_ID_CHARS` in the core). */
const MAX_ACTION_ID_CHARS = 512;

/** An action id as the core reads it: not blank, at most 512 characters, no control character. */
function actionId(path, value) {
  nonEmpty(path, value);
  if ([...value].length > MAX_ACTION_ID_CHARS || /\p{Cc}/u.test(value)) {
    throw typedError("invalid_input", path, `${path} must be at most ${MAX_ACTION_ID_CHARS} characters with no control character`);
  }
  return value;
}

/** The fields a signature does not bind, checked for their type as the core reads them. */
function lifecycleFields(path, value) {
  for (const field of ["key_id", "signature", "consumed_at", "in_flight_at", "invalidated_at", "seal"]) {
    optional(`${path}.${field}`, value[field], text);
  }
  for (const field of ["consumed", "cancelled"]) if (value[field] !== undefined) boolean(`${path}.${field}`, value[field]);
  optional(`${path}.assertion`, value.assertion, (at, assertion) => jsonObject(at, assertion, ["authenticator_data", "client_data_json", "signature"]));
}

/** `confirmation` as the guard reads it, and the bytes that approve it with key `keyId`. */
export function confirmationPayload(confirmation, keyId) {
  const c = jsonObject("confirmation", confirmation, CONFIRMATION_FIELDS);
  const id = keyIdText("keyId", keyId);
  const change = jsonObject("confirmation.proposed_change", c.proposed_change, CHANGE_FIELDS);
  if (c.confirmed_by !== "human") {
    throw typedError("invalid_input", "confirmation.confirmed_by", 'confirmation.confirmed_by must be "human"');
  }
  lifecycleFields("confirmation", c);
  const audience = optional("confirmation.audience", c.audience, nonEmpty);
  const action = optional("confirmation.action_id", c.action_id, actionId);
  const head =
    action !== null
      ? [CONFIRMATION_DOMAIN_WITH_ACTION, id, audience ?? "", action]
      : audience === null
        ? [CONFIRMATION_DOMAIN, id]
        : [CONFIRMATION_DOMAIN_WITH_AUDIENCE, id, audience];
  const bytes = bytesOf("confirmation", [
    ...head,
    nonEmpty("confirmation.confirmation_id", c.confirmation_id),
    nonEmpty("confirmation.node_id", c.node_id),
    nonEmpty("confirmation.proposed_change.type", change.type),
    text("confirmation.proposed_change.from", change.from),
    nonEmpty("confirmation.proposed_change.to", change.to),
    text("confirmation.intent", c.intent),
    text("confirmation.reason", c.reason),
    "human",
    time("confirmation.confirmed_at", c.confirmed_at),
    text("confirmation.ui_action", c.ui_action),
  ]);
  return { value: c, bytes };
}

/** The bytes that approve `confirmation` with key `keyId` (its binding fields only). */
export function confirmationBytes(confirmation, keyId) {
  return confirmationPayload(confirmation, keyId).bytes;
}

/** Human action `action` as the guard reads it, and the bytes that sign it with key `keyId`. */
export function actionPayload(action, keyId) {
  const a = jsonObject("action", action, ACTION_FIELDS);
  const id = keyIdText("keyId", keyId);
  if (!HUMAN_ACTION_KINDS.includes(a.action)) {
    throw typedError("invalid_input", "action.action", `action.action must be one of ${HUMAN_ACTION_KINDS.join(", ")}`);
  }
  for (const field of ["key_id", "signature"]) optional(`action.${field}`, a[field], text);
  optional("action.assertion", a.assertion, (at, assertion) => jsonObject(at, assertion, ["authenticator_data", "client_data_json", "signature"]));
  if (typeof a.nonce !== "string" || !NONCE.test(a.nonce)) {
    throw typedError("invalid_input", "action.nonce", "action.nonce must be 16 to 128 characters of A-Z a-z 0-9 - _, fresh for every action");
  }
  if ([...nonEmpty("action.version", a.version)].length > MAX_VERSION_CHARS) {
    throw typedError("invalid_input", "action.version", `action.version is longer than ${MAX_VERSION_CHARS} characters`);
  }
  const detail = a.detail === undefined ? "" : text("action.detail", a.detail);
  const bytes = bytesOf("action", [
    ACTION_DOMAIN,
    id,
    a.action,
    nonEmpty("action.approval_id", a.approval_id),
    a.version,
    a.nonce,
    detail,
    time("action.at", a.at),
  ]);
  return { value: a, bytes };
}

/** The bytes that sign human action `action` with key `keyId`. */
export function actionBytes(action, keyId) {
  return actionPayload(action, keyId).bytes;
}

/** The bytes a guard signs for `receipt` (with its `key_id` set). */
export function receiptBytes(receipt) {
  const r = jsonObject("receipt", receipt, ["seq", "approval_id", "change_digest", "approver", "outcome", "at", "prev", "key_id", "signature"]);
  if (!Number.isSafeInteger(r.seq) || r.seq < 0) {
    throw typedError("invalid_input", "receipt.seq", "receipt.seq must be a whole number from 0");
  }
  const prev = r.prev === undefined || r.prev === null ? "" : text("receipt.prev", r.prev);
  return bytesOf("receipt", [
    RECEIPT_DOMAIN,
    nonEmpty("receipt.key_id", r.key_id),
    r.seq,
    nonEmpty("receipt.approval_id", r.approval_id),
    text("receipt.change_digest", r.change_digest),
    text("receipt.approver", r.approver),
    nonEmpty("receipt.outcome", r.outcome),
    time("receipt.at", r.at),
    prev,
  ]);
}

/** SHA-256 of `bytes` from the host's WebCrypto: the 32-byte challenge a passkey signs. */
export async function sha256(subtle, bytes) {
  return new Uint8Array(await subtle.digest("SHA-256", bytes));
}

const MANDATE_FIELDS = ["mandate_id", "audience", "agents", "action", "constraints", "max_uses", "issued_at", "expires_at", "key_id", "signature", "assertion"];
const CONSTRAINT_OPS = ["equals", "one_of", "starts_with", "ends_with", "at_most", "at_least"];

/** JSON with every object's members sorted by UTF-16 code units and nothing else changed (the core's canonical JSON). */
function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Standing approval `mandate` as the guard reads it, and the bytes that sign it with key `keyId`: the canonical
 * JSON of `["agent-governor/mandate/v1", keyId, terms]`, the terms being every field but the proof.
 */
export function mandatePayload(mandate, keyId) {
  const m = jsonObject("mandate", mandate, MANDATE_FIELDS);
  const id = keyIdText("keyId", keyId);
  if (typeof m.mandate_id !== "string" || !NONCE.test(m.mandate_id)) {
    throw typedError("invalid_input", "mandate.mandate_id", "mandate.mandate_id must be 16 to 128 characters of A-Z a-z 0-9 - _");
  }
  const audience = optional("mandate.audience", m.audience, nonEmpty);
  if (!Array.isArray(m.agents) || m.agents.length === 0) throw typedError("invalid_input", "mandate.agents", "mandate.agents must name at least one agent");
  m.agents.forEach((agent, index) => nonEmpty(`mandate.agents[${index}]`, agent));
  nonEmpty("mandate.action", m.action);
  const constraints = m.constraints ?? [];
  if (!Array.isArray(constraints)) throw typedError("invalid_input", "mandate.constraints", "mandate.constraints must be a list");
  constraints.forEach((constraint, index) => {
    const at = `mandate.constraints[${index}]`;
    const c = jsonObject(at, constraint, ["field", "op", "value"]);
    nonEmpty(`${at}.field`, c.field);
    if (!CONSTRAINT_OPS.includes(c.op)) throw typedError("invalid_input", `${at}.op`, `${at}.op must be one of ${CONSTRAINT_OPS.join(", ")}`);
    if (!("value" in c)) throw typedError("invalid_input", `${at}.value`, `${at}.value is required`);
  });
  if (!Number.isInteger(m.max_uses) || m.max_uses < 1 || m.max_uses > 1000) {
    throw typedError("invalid_input", "mandate.max_uses", "mandate.max_uses must be a whole number from 1 to 1000");
  }
  const terms = {
    mandate_id: m.mandate_id,
    ...(audience === null ? {} : { audience }),
    agents: m.agents,
    action: m.action,
    constraints,
    max_uses: m.max_uses,
    issued_at: time("mandate.issued_at", m.issued_at),
    expires_at: time("mandate.expires_at", m.expires_at),
  };
  const json = canonicalJson([MANDATE_DOMAIN, id, terms]);
  if (json.length > MAX_INPUT_BYTES) throw typedError("invalid_input", "mandate", `mandate is at least ${json.length} bytes; the limit is ${MAX_INPUT_BYTES}`);
  return { value: terms, bytes: encoder.encode(json) };
}
