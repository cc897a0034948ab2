// Signed receipts of every Apply outcome, chained: each names the digest of the one before, and the guard
// signs each with its own Ed25519 key. Anyone holding the guard's public key (GET /v1/receipts/key)
// verifies a chain offline with `verifyReceipts` from `agent-governor/guard`.
//
// The signing key is the RECEIPT_SIGNING_KEY secret (PKCS#8, base64url) when set; otherwise the inbox makes
// one on first use and keeps it in its own storage (a local setup; a deployment sets the secret so the key
// survives a move of the inbox and is never stored beside the receipts).
import { base64url, formatTime, fromBase64url, receiptDigest, signReceipt } from "agent-governor/guard";

const ED25519 = { name: "Ed25519" };

export class ReceiptLog {
  constructor(db, env) {
    this.db = db;
    this.env = env;
    this.key = null;
    // Receipts are appended one at a time: each needs the digest of the one before.
    this.tail = Promise.resolve();
  }

  /** The guard's signing key and public key, loaded or made once per object. */
  async signingKey() {
    this.key ??= this.loadKey();
    return this.key;
  }

  async loadKey() {
    const subtle = crypto.subtle;
    let pkcs8 = this.env.RECEIPT_SIGNING_KEY ? fromBase64url(this.env.RECEIPT_SIGNING_KEY) : null;
    if (pkcs8 === null) {
      const stored = this.db.setting("receipt_signing_key");
      if (stored !== null) {
        pkcs8 = fromBase64url(stored);
      } else {
        const pair = await subtle.generateKey(ED25519, true, ["sign", "verify"]);
        this.db.putSetting("receipt_signing_key", base64url(new Uint8Array(await subtle.exportKey("pkcs8", pair.privateKey))));
        // Whichever key was stored first is the inbox's key from now on.
        pkcs8 = fromBase64url(this.db.setting("receipt_signing_key"));
      }
    }
    const privateKey = await subtle.importKey("pkcs8", pkcs8, ED25519, true, ["sign"]);
    // The public key is the last 32 bytes of the JWK's `x`; WebCrypto derives it from the private key.
    const jwk = await subtle.exportKey("jwk", privateKey);
    const publicKey = { type: "ed25519", public_key: jwk.x };
    const keyId = this.env.RECEIPT_KEY_ID || `guard-${jwk.x.slice(0, 12)}`;
    return { keyId, privateKey, publicKey };
  }

  async publicKey() {
    const { keyId, publicKey } = await this.signingKey();
    return { key_id: keyId, ...publicKey };
  }

  /** Appends a receipt for an outcome; resolves to it. Never throws: a receipt that cannot be made is reported. */
  append({ approvalId, changeDigest, approver, outcome }) {
    const next = this.tail.then(async () => {
      const { keyId, privateKey } = await this.signingKey();
      const last = this.db.lastReceipt();
      const unsigned = {
        seq: last === null ? 1 : last.seq + 1,
        approval_id: approvalId,
        change_digest: changeDigest,
        approver: approver ?? "",
        outcome,
        at: formatTime(Date.now()),
        prev: last === null ? null : receiptDigest(last),
      };
      const receipt = await signReceipt(unsigned, { keyId, privateKey });
      this.db.insertReceipt(receipt);
      return receipt;
    });
    this.tail = next.catch(() => {});
    return next;
  }
}
