// Drives the edge guard service (edge/service) under the real `wrangler dev`: an HTTP client with the demo
// tokens, approvers with Ed25519 keys, and a software WebAuthn authenticator (ES256) that makes the same
// assertions a browser's passkey would.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { webcrypto, createHash } from "node:crypto";
import { after, before } from "node:test";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { startEdgeWorker } from "./helpers.mjs";
import { base64url, confirmationChallenge, actionChallenge, generateApproverKey, signAction, signConfirmation, verifyReceipts } from "../../dist/guard/node.js";

export const AGENT = "agent-demo-token";
export const INBOX = "inbox-demo-token";
export const ADMIN = "admin-demo-token";
export const ORIGIN = "http://localhost:8080";
const RP_ID = "localhost";

export function freshStateDir() {
  return mkdtempSync(join(tmpdir(), "guard-state-"));
}

export async function startGuardService(board, { persistTo = freshStateDir(), port = null, vars = {} } = {}) {
  const guard = await startEdgeWorker({ SKILLS: JSON.stringify({ status_change: board.url }), ...vars }, { dir: "edge/service", persistTo, port });
  return {
    ...guard,
    persistTo,
    client: client(guard.url),
    /** Stops the runtime and deletes its Durable Object state, once the inbox's receipt chain has verified. */
    async dispose() {
      await verifyReceiptChain(guard.url);
      await guard.kill();
      rmSync(persistTo, { recursive: true, force: true });
    },
  };
}

/**
 * Every receipt the inbox signed, fetched page by page and verified offline with the guard's public key: a
 * broken chain fails the test run that produced it. Resolves to the number of receipts.
 */
export async function verifyReceiptChain(base) {
  const api = client(base);
  const key = await api.get("/v1/receipts/key", null);
  if (key.status !== 200) throw new Error(`the guard's receipt key: ${key.status} ${JSON.stringify(key.body)}`);
  const chain = [];
  for (;;) {
    const page = await api.get(`/v1/receipts?since=${chain.length}&limit=500`, INBOX);
    if (page.status !== 200) throw new Error(`receipts: ${page.status} ${JSON.stringify(page.body)}`);
    chain.push(...page.body.receipts);
    if (page.body.receipts.length < 500) break;
  }
  const verdict = verifyReceipts(chain, { type: key.body.type, public_key: key.body.public_key });
  if (verdict.verdict !== "valid") throw new Error(`the receipt chain is broken: ${JSON.stringify(verdict)}`);
  return chain.length;
}

export function client(base) {
  async function call(method, path, body, token, { raw = null, headers = {} } = {}) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body !== undefined || raw !== null ? { "content-type": "application/json" } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await response.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = { unparsed: text };
    }
    return { status: response.status, body: json };
  }
  return {
    call,
    get: (path, token = INBOX) => call("GET", path, undefined, token),
    post: (path, body, token) => call("POST", path, body, token),
    put: (path, body, token) => call("PUT", path, body, token),
  };
}

/** Registers an Ed25519 key for `approver`; the guard namespaces its id (`alice/alice-1`), which signs from then on. */
export async function registerEd25519(api, approver, keyId) {
  const key = await generateApproverKey({ keyId });
  const { status, body } = await api.post(`/v1/approvers/${approver}/keys`, { key_id: keyId, ...key.publicKey }, ADMIN);
  if (status !== 201) throw new Error(`registering ${keyId}: ${status} ${JSON.stringify(body)}`);
  return { ...key, keyId: body.key_id };
}

/**
 * Holds every Apply the board receives from now on until `release()`: `arrived` resolves when the first one
 * reaches the board (it is then counted, and its answer waits).
 */
export function holdApplies(board) {
  let release;
  const held = new Promise((resolve) => (release = resolve));
  let arrive;
  const arrived = new Promise((resolve) => (arrive = resolve));
  board.hold = async () => {
    arrive();
    await held;
  };
  return { arrived, release };
}

let nodeCounter = 0;
/**
 * The demo task board and a guard service in front of it, for the tests of one file: started before them and
 * stopped after. Returns `{ board, guard }`, filled once they have started.
 */
export function boardAndGuard(options) {
  const running = { board: null, guard: null };
  before(async () => {
    running.board = await startTaskBoard();
    running.guard = await startGuardService(running.board, options);
  });
  after(async () => {
    await running.guard?.dispose();
    await running.board?.close();
  });
  return running;
}

export function nextNode() {
  nodeCounter += 1;
  return `task-${process.pid}-${nodeCounter}`;
}

export async function propose(api, nodeId, change = { type: "status_change", from: "todo", to: "in_progress" }, extra = {}) {
  const { status, body } = await api.post("/v1/proposals", { node_id: nodeId, proposed_change: change, intent: `start ${nodeId}`, reason: "it is next in the queue", ...extra }, AGENT);
  if (status !== 201) throw new Error(`proposing: ${status} ${JSON.stringify(body)}`);
  return body;
}

export function draftOf(approval, overrides = {}) {
  return { ...approval.draft, reason: "checked the board", confirmed_at: new Date().toISOString(), ui_action: "approve_button", ...overrides };
}

export async function approve(api, approval, key, overrides = {}) {
  const confirmation = await signConfirmation(draftOf(approval, overrides), key);
  return api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation });
}

/** A signed human action about `approvalId`, made for `version` (a fresh nonce each time). */
export async function humanAction(kind, approvalId, key, detail = "", version) {
  return signAction({ action: kind, approval_id: approvalId, version, detail, at: new Date().toISOString(), key_id: null }, key);
}

/** A signed human action about the approval as the guard shows it now (its current version). */
export async function humanActionFor(api, kind, approvalId, key, detail = "") {
  const { body } = await api.get(`/v1/approvals/${approvalId}`);
  return humanAction(kind, approvalId, key, detail, body.version);
}

/** A software passkey (ES256) that answers `navigator.credentials.get` as an authenticator would. */
export async function softwarePasskey(keyId) {
  const pair = await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const spki = new Uint8Array(await webcrypto.subtle.exportKey("spki", pair.publicKey));
  let counter = 0;
  return {
    keyId,
    registration: { key_id: keyId, type: "webauthn", algorithm: -7, public_key: base64url(spki), credential_id: base64url(new TextEncoder().encode(keyId)) },
    async assert(challenge, { origin = ORIGIN, rpId = RP_ID, flags = 0x05, type = "webauthn.get", count = null } = {}) {
      counter = count ?? counter + 1;
      const clientData = new TextEncoder().encode(JSON.stringify({ type, challenge: base64url(challenge), origin, crossOrigin: false }));
      const authenticatorData = new Uint8Array(37);
      authenticatorData.set(createHash("sha256").update(rpId).digest(), 0);
      authenticatorData[32] = flags;
      new DataView(authenticatorData.buffer).setUint32(33, counter);
      const signed = Buffer.concat([authenticatorData, createHash("sha256").update(clientData).digest()]);
      // WebCrypto gives the raw r||s form; WebAuthn carries DER.
      const raw = new Uint8Array(await webcrypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, signed));
      return { authenticator_data: base64url(authenticatorData), client_data_json: base64url(clientData), signature: base64url(derSignature(raw)) };
    },
    async approve(approval, options) {
      const draft = { ...draftOf(approval, { ui_action: "passkey" }), key_id: keyId, signature: null };
      return { ...draft, assertion: await this.assert(confirmationChallenge(draft, keyId), options) };
    },
    async act(kind, approvalId, detail = "", version) {
      const action = { action: kind, approval_id: approvalId, version, nonce: crypto.randomUUID(), detail, at: new Date().toISOString(), key_id: keyId };
      return { ...action, assertion: await this.assert(actionChallenge(action, keyId)) };
    },
  };
}

/** A raw `r || s` ECDSA signature (WebCrypto's form) as the DER WebAuthn authenticators send. */
export function derSignature(raw) {
  const integer = (bytes) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
    const trimmed = bytes.slice(start);
    const padded = trimmed[0] & 0x80 ? Uint8Array.of(0, ...trimmed) : trimmed;
    return Uint8Array.of(0x02, padded.length, ...padded);
  };
  const r = integer(raw.slice(0, 32));
  const s = integer(raw.slice(32));
  return Uint8Array.of(0x30, r.length + s.length, ...r, ...s);
}
