// Types only: importing `agent-governor/approver` loads no WebAssembly. The module's types declare
// `[Symbol.dispose]`, hence the lib reference (as in the module entries).
/// <reference lib="esnext.disposable" />
import type { Confirmation, HumanAction, Mandate, PasskeyAssertion, PublicKeySpec, Receipt } from "../guard/wasm/agent_governor_guard.js";

/**
 * The host's WebCrypto `CryptoKey` where its types are loaded (the DOM lib, a worker's types, @types/node);
 * an opaque object in a project typed without them.
 */
export type HostCryptoKey = typeof globalThis extends { CryptoKey: { prototype: infer Key } } ? Key : object;

/** A passkey assertion as `navigator.credentials.get` returns it (the parts a guard verifies). */
export type AssertedCredential = {
  response: { authenticatorData: ArrayBuffer | ArrayBufferView; clientDataJSON: ArrayBuffer | ArrayBufferView; signature: ArrayBuffer | ArrayBufferView };
};

/** A passkey registration as `navigator.credentials.create` returns it (its public key and algorithm). */
export type RegisteredCredential = {
  response: { getPublicKey(): ArrayBuffer | null; getPublicKeyAlgorithm(): number };
};

/** The browser's `PublicKeyCredential` where the DOM lib is loaded; nothing extra elsewhere. */
type HostPublicKeyCredential = typeof globalThis extends { PublicKeyCredential: { prototype: infer Credential } } ? Credential : never;

/** A human action before signing: `nonce` is filled with a fresh one when absent; `key_id` is the key's. */
export type UnsignedHumanAction = Omit<HumanAction, "nonce" | "key_id"> & { nonce?: string; key_id?: string | null };

/** Bytes over an `ArrayBuffer`: what WebAuthn's `challenge` takes under every TypeScript 5 and later. */
export type Challenge = Uint8Array & { readonly buffer: ArrayBuffer };

/** A fresh single-use nonce (16 random bytes, base64url). */
export function newNonce(): string;

/** Signs a receipt with the guard's Ed25519 key; returns it with `key_id` and `signature`. */
export function signReceipt(receipt: Omit<Receipt, "key_id" | "signature">, key: Pick<ApproverKey, "keyId" | "privateKey">): Promise<Receipt>;

/** An Ed25519 key only the approver holds. */
export type ApproverKey = {
  keyId: string;
  /** Non-extractable unless generated with `extractable: true`. */
  privateKey: HostCryptoKey;
  /** What a guard is configured with. */
  publicKey: PublicKeySpec;
};

/** A registered passkey to approve with. */
export type PasskeyRef = {
  /** The key id the guard knows the passkey by. */
  keyId: string;
  /** The credential's id (base64url); omitted: any discoverable passkey of the relying party. */
  credentialId?: string;
  rpId: string;
  /** Milliseconds the browser may wait for the person (default 120000). */
  timeout?: number;
};

export function generateApproverKey(options?: { keyId?: string; extractable?: boolean }): Promise<ApproverKey>;
export function signConfirmation(
  confirmation: Confirmation,
  key: Pick<ApproverKey, "keyId" | "privateKey">,
): Promise<Confirmation>;
export function signAction(action: UnsignedHumanAction, key: Pick<ApproverKey, "keyId" | "privateKey">): Promise<HumanAction>;
/** The 32-byte challenge a passkey signs to approve `confirmation` (SHA-256 of its canonical bytes). */
export function passkeyChallenge(confirmation: Confirmation, keyId: string): Promise<Challenge>;
/** The 32-byte challenge a passkey signs for a human action. */
export function passkeyActionChallenge(action: HumanAction, keyId: string): Promise<Challenge>;
export function passkeyAssertion(credential: AssertedCredential | HostPublicKeyCredential): PasskeyAssertion;
export function passkeyPublicKey(
  credential: RegisteredCredential | HostPublicKeyCredential,
  relyingParty: { rpId: string; origins: string[] },
): PublicKeySpec;
export function approveWithPasskey(confirmation: Confirmation, passkey: PasskeyRef): Promise<Confirmation>;
export function signActionWithPasskey(action: UnsignedHumanAction, passkey: PasskeyRef): Promise<HumanAction>;
/** A standing approval before signing: its terms, with no proof. */
export type UnsignedMandate = Omit<Mandate, "key_id" | "signature" | "assertion"> & { key_id?: string | null };
/** Signs a standing approval's terms with an Ed25519 approver key; returns them with `key_id` and `signature`. */
export function signMandate(mandate: UnsignedMandate, key: Pick<ApproverKey, "keyId" | "privateKey">): Promise<Mandate>;
/** Signs a standing approval's terms with the person's passkey; returns them with `key_id` and `assertion`. */
export function signMandateWithPasskey(mandate: UnsignedMandate, passkey: PasskeyRef): Promise<Mandate>;
export function base64url(bytes: ArrayBuffer | Uint8Array): string;
export function fromBase64url(text: string): Uint8Array;
