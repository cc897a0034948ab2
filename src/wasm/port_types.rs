//! TypeScript declarations of the host ports (callbacks supplied by the host). The data types they carry
//! are generated from the Rust types by tsify.

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen(typescript_custom_section)]
const PORT_TYPES: &'static str = r#"
/** Key-value storage of JSON text with an atomic compare-and-swap. Methods may return promises. */
export interface ConfirmationStore {
  get(key: string): string | null | undefined | Promise<string | null | undefined>;
  put(key: string, value: string): void | Promise<void>;
  /** Replaces the value at `key` with `next` only if it currently equals `expected` (null: absent). */
  compareAndSwap(key: string, expected: string | null, next: string): boolean | Promise<boolean>;
}

/** The skill whose Apply the Executor performs. Preview is used for fact-finding only. */
export interface ExecutorSkill {
  preview(nodeId: string): PreviewResult | Promise<PreviewResult>;
  apply(request: ApplyRequest): SkillResponse | Promise<SkillResponse>;
}

/**
 * Trusted verification keys by key id: an HMAC secret (a string of at least 32 bytes, for a server that
 * issues approvals itself) or an approver's public key (Ed25519, or a WebAuthn passkey), which verifies
 * approvals but cannot make one.
 */
export type VerificationKeys = Record<string, string | PublicKeySpec>;

export type ExecutorPorts = {
  store: ConfirmationStore;
  keys: VerificationKeys;
  /** Host clock in epoch milliseconds; `Date.now` when omitted. */
  now?: () => number;
  /**
   * Receives one audit record per decision; awaited at most `auditTimeoutMs` (default 5000). A failed or
   * late audit never changes an outcome: it is reported in the result's `audit_error`.
   */
  audit?: (record: AuditRecord) => void | Promise<void>;
  auditTimeoutMs?: number;
  /** How far `confirmed_at` may lie ahead of the host's clock, in ms (default 300000: 5 minutes). */
  clockSkewMs?: number;
  /** Language of reasons and messages: "en" (default) or "ja" (the seed's wording). */
  language?: Language;
  /** This Executor's audience: only confirmations made for it pass (none: only those made for none). */
  audience?: string;
  /** The secret that seals the confirmation records it stores (at least 32 bytes): a record edited in the store is refused. */
  sealKey?: string;
} & (
  /** One skill for every change type; with `skills`, for the types `skills` does not name. */
  | { skill: ExecutorSkill; skills?: Record<string, ExecutorSkill> }
  /** A skill per `proposed_change.type` (seed 003 10.2); any other type is rejected with `no_skill`. */
  | { skill?: ExecutorSkill; skills: Record<string, ExecutorSkill> }
);

export interface DirectApplyPorts {
  skill: ExecutorSkill;
  now?: () => number;
  audit?: (record: AuditRecord) => void | Promise<void>;
  auditTimeoutMs?: number;
  language?: Language;
}

/** The approval side's signing key. */
export interface SignerKey {
  keyId: string;
  secret: string;
}

export interface DirectApplyResult {
  apply_request: ApplyRequest;
  result: ExecutorResult;
}

/** Thrown (or rejected with) when the caller breaks the contract. */
export interface AgentGovernorError extends Error {
  /** Stable machine-readable code, e.g. "invalid_input", "invalid_port", "invalid_key". */
  code: string;
  /** Dotted path of the bad field ("" for the whole value). */
  path: string;
}
"#;
