// The exact bytes an approver signs, with no WebAssembly: the same encoding as the core's (a JSON array of
// the binding fields, UTF-8), so a signature made here verifies in any guard. JSON.stringify and the core's
// serde_json write a string the same way (the same escapes for `"`, `\` and control characters, and nothing
// else escaped) when the string is well-formed UTF-16, which `text` requires. tests/js/approver-canonical
// compares these bytes with the core's for every field over many generated values.
import { typedError } from "./errors.js";

const CONFIRMATION_DOMAIN = "agent-governor/confirmation/v1";
const CONFIRMATION_DOMAIN_WITH_AUDIENCE = "agent-governor/confirmation/v2";
const ACTION_DOMAIN = "agent-governor/action/v2";
const RECEIPT_DOMAIN = "agent-governor/receipt/v1";

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
]);

/** The core reads no input (a text, an object's JSON) over 1 MiB; neither is one signed here. */
const MAX_INPUT_BYTES = 1 << 20;

const encoder = new TextEncoder();

function isPlainObject(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function object(path, value) {
  if (!isPlainObject(value)) throw typedError("invalid_input", path, `${path} must be a plain object`);
  return value;
}

/** A string the core can hold: well-formed UTF-16 (a lone surrogate has no UTF-8 form). */
function text(path, value) {
  if (typeof value !== "string") throw typedError("invalid_input", path, `${path} must be a string, got ${kindOf(value)}`);
  if (value.length > MAX_INPUT_BYTES) {
    throw typedError("invalid_input", path, `${path} is at least ${value.length} bytes; the limit is ${MAX_INPUT_BYTES}`);
  }
  if (!value.isWellFormed()) throw typedError("invalid_input", path, `${path} contains a lone surrogate`);
  return value;
}

/** Only white space, as the core reads it (Unicode White_Space: U+0085 is, U+FEFF is not, unlike `trim`). */
const BLANK = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

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

/** The bytes that approve `confirmation` with key `keyId` (its binding fields only). */
export function confirmationBytes(confirmation, keyId) {
  const c = object("confirmation", confirmation);
  const id = keyIdText("keyId", keyId);
  const change = object("confirmation.proposed_change", c.proposed_change);
  if (c.confirmed_by !== "human") {
    throw typedError("invalid_input", "confirmation.confirmed_by", 'confirmation.confirmed_by must be "human"');
  }
  const audience = c.audience === undefined || c.audience === null ? null : nonEmpty("confirmation.audience", c.audience);
  const head = audience === null ? [CONFIRMATION_DOMAIN, id] : [CONFIRMATION_DOMAIN_WITH_AUDIENCE, id, audience];
  return bytesOf("confirmation", [
    ...head,
    text("confirmation.confirmation_id", c.confirmation_id),
    nonEmpty("confirmation.node_id", c.node_id),
    nonEmpty("confirmation.proposed_change.type", change.type),
    text("confirmation.proposed_change.from", change.from),
    nonEmpty("confirmation.proposed_change.to", change.to),
    text("confirmation.intent", c.intent),
    text("confirmation.reason", c.reason),
    "human",
    nonEmpty("confirmation.confirmed_at", c.confirmed_at),
    text("confirmation.ui_action", c.ui_action),
  ]);
}

/** The bytes that sign human action `action` with key `keyId`. */
export function actionBytes(action, keyId) {
  const a = object("action", action);
  const id = keyIdText("keyId", keyId);
  if (!HUMAN_ACTION_KINDS.includes(a.action)) {
    throw typedError("invalid_input", "action.action", `action.action must be one of ${HUMAN_ACTION_KINDS.join(", ")}`);
  }
  const detail = a.detail === undefined ? "" : text("action.detail", a.detail);
  return bytesOf("action", [
    ACTION_DOMAIN,
    id,
    a.action,
    nonEmpty("action.approval_id", a.approval_id),
    nonEmpty("action.version", a.version),
    nonEmpty("action.nonce", a.nonce),
    detail,
    nonEmpty("action.at", a.at),
  ]);
}

/** The bytes a guard signs for `receipt` (with its `key_id` set). */
export function receiptBytes(receipt) {
  const r = object("receipt", receipt);
  if (!Number.isSafeInteger(r.seq) || r.seq < 0) {
    throw typedError("invalid_input", "receipt.seq", "receipt.seq must be a whole number from 0");
  }
  const prev = r.prev === undefined || r.prev === null ? "" : text("receipt.prev", r.prev);
  return bytesOf("receipt", [
    RECEIPT_DOMAIN,
    text("receipt.key_id", r.key_id),
    r.seq,
    text("receipt.approval_id", r.approval_id),
    text("receipt.change_digest", r.change_digest),
    text("receipt.approver", r.approver),
    text("receipt.outcome", r.outcome),
    text("receipt.at", r.at),
    prev,
  ]);
}

/** SHA-256 of `bytes` from the host's WebCrypto: the 32-byte challenge a passkey signs. */
export async function sha256(subtle, bytes) {
  return new Uint8Array(await subtle.digest("SHA-256", bytes));
}
