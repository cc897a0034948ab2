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

/** Trusted verification keys: key id -> secret (at least 32 bytes). */
export type VerificationKeys = Record<string, string>;

export interface ExecutorPorts {
  store: ConfirmationStore;
  skill: ExecutorSkill;
  keys: VerificationKeys;
  /** Host clock in epoch milliseconds; `Date.now` when omitted. */
  now?: () => number;
  /** Receives one audit record per decision; its failures never change an outcome. */
  audit?: (record: AuditRecord) => void | Promise<void>;
}

export interface DirectApplyPorts {
  skill: ExecutorSkill;
  now?: () => number;
  audit?: (record: AuditRecord) => void | Promise<void>;
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
