// The fair peer of the edge guard's Apply in bench/edge.bench.mjs: a Durable Object in plain JavaScript, with
// no WebAssembly, doing the same exactly-once protocol with the same storage writes and upstream calls:
// bearer token (SHA-256 digest, constant-time compare), the stored confirmation read from SQLite, its
// Ed25519 signature verified with WebCrypto over the same canonical bytes, the checks of the six steps,
// the reservation written (approved -> in_flight, compare-and-swap) before the Preview, the status compared
// with the approved `from`, the Apply, the commit (in_flight -> consumed), an audit row, and a signed receipt
// chained to the one before. What it leaves out is what the guard adds beyond the protocol: typed input
// validation, two-language reasons, display-safe text, reconfirm facts, a live feed and webhooks.
// Inboxes are routed by name (`x-inbox`, default "default"): one object per inbox.
import { confirmationBytes, receiptBytes } from "../../js/approver/canonical.js";

const encoder = new TextEncoder();
const ED25519 = { name: "Ed25519" };
const SCHEMA = `
CREATE TABLE IF NOT EXISTS confirmations (id TEXT PRIMARY KEY, state TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, id TEXT NOT NULL, event TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS receipts (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);
`;

let tokenDigest = null;
const digest = (text) => crypto.subtle.digest("SHA-256", encoder.encode(text));

export default {
  async fetch(request, env) {
    const given = await digest((request.headers.get("authorization") ?? "").replace(/^bearer\s+/i, ""));
    tokenDigest ??= digest(env.AGENT_TOKEN);
    if (!crypto.subtle.timingSafeEqual(given, await tokenDigest)) return Response.json({ code: "unauthorized" }, { status: 401 });
    const name = request.headers.get("x-inbox") ?? "default";
    return env.INBOX.get(env.INBOX.idFromName(name)).fetch(request);
  },
};

export class PlainInbox {
  constructor(ctx, env) {
    this.sql = ctx.storage.sql;
    this.env = env;
    this.sql.exec(SCHEMA);
    this.keys = new Map();
    this.receiptKey = crypto.subtle.generateKey(ED25519, false, ["sign", "verify"]);
    this.tail = Promise.resolve();
  }

  async fetch(request) {
    const { pathname } = new URL(request.url);
    const body = await request.json();
    if (pathname === "/v1/seed") {
      // Bench setup: an approver's public key and a signed confirmation, as the inbox holds them after a decision.
      this.keys.set(body.key_id, crypto.subtle.importKey("raw", Uint8Array.from(atob(body.public_key.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)), ED25519, false, ["verify"]));
      this.sql.exec("INSERT OR REPLACE INTO confirmations (id, state, body) VALUES (?, 'approved', ?)", body.confirmation.confirmation_id, JSON.stringify(body.confirmation));
      return Response.json({ seeded: true });
    }
    if (pathname === "/v1/apply") return Response.json(await this.apply(body));
    return Response.json({ code: "not_found" }, { status: 404 });
  }

  async apply(request) {
    const id = request.confirmation_id;
    const row = this.sql.exec("SELECT state, body FROM confirmations WHERE id = ?", id).toArray()[0];
    if (row === undefined) return this.rejected(id, "not_found");
    const confirmation = JSON.parse(row.body);
    const key = this.keys.get(confirmation.key_id);
    const signature = Uint8Array.from(confirmation.signature.match(/../g) ?? [], (pair) => parseInt(pair, 16));
    if (key === undefined || !(await crypto.subtle.verify(ED25519, await key, signature, confirmationBytes(confirmation, confirmation.key_id)))) {
      return this.rejected(id, "signature_invalid");
    }
    if (row.state === "consumed") return this.rejected(id, "already_consumed");
    if (row.state !== "approved") return this.rejected(id, "in_flight");
    const asked = request.apply_request;
    const change = confirmation.proposed_change;
    if (asked.node_id !== confirmation.node_id || asked.confirm_status !== change.to) return this.rejected(id, "change_mismatch");
    if (Date.parse(confirmation.confirmed_at) > Date.now() + 300_000) return this.rejected(id, "expired");
    // Write-ahead: the reservation is durable before the Preview and the Apply leave.
    if (this.sql.exec("UPDATE confirmations SET state = 'in_flight' WHERE id = ? AND state = 'approved'", id).rowsWritten !== 1) {
      return this.rejected(id, "in_flight");
    }
    const preview = await this.upstream("/preview", { node_id: asked.node_id });
    if (preview.body.current_status !== change.from) {
      this.sql.exec("UPDATE confirmations SET state = 'invalidated' WHERE id = ?", id);
      return this.finish(id, "reconfirm_required");
    }
    const applied = await this.upstream("/apply", { ...asked, confirmation });
    this.sql.exec("UPDATE confirmations SET state = ? WHERE id = ?", applied.status === 200 ? "consumed" : "approved", id);
    return this.finish(id, applied.status === 200 ? "applied" : "failed");
  }

  async upstream(path, body) {
    const response = await fetch(`${this.env.UPSTREAM}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  }

  rejected(id, phase) {
    return { confirmation_id: id, outcome: "rejected", rejection: { phase } };
  }

  async finish(id, outcome) {
    this.sql.exec("INSERT INTO audit (at, id, event) VALUES (?, ?, ?)", Date.now(), id, outcome);
    return { confirmation_id: id, outcome, receipt: await this.receipt(id, outcome) };
  }

  /** A receipt signed with the inbox's Ed25519 key, chained to the one before (appended one at a time). */
  receipt(id, outcome) {
    const next = this.tail.then(async () => {
      const last = this.sql.exec("SELECT seq, body FROM receipts ORDER BY seq DESC LIMIT 1").toArray()[0];
      const prev = last === undefined ? "" : [...new Uint8Array(await digest(last.body))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
      const unsigned = { seq: (last?.seq ?? 0) + 1, approval_id: id, change_digest: "", approver: "", outcome, at: new Date().toISOString(), prev, key_id: "plain", signature: null };
      const { privateKey } = await this.receiptKey;
      const signature = new Uint8Array(await crypto.subtle.sign(ED25519, privateKey, receiptBytes(unsigned)));
      const receipt = { ...unsigned, signature: [...signature].map((byte) => byte.toString(16).padStart(2, "0")).join("") };
      this.sql.exec("INSERT INTO receipts (seq, body) VALUES (?, ?)", receipt.seq, JSON.stringify(receipt));
      return receipt;
    });
    this.tail = next.catch(() => {});
    return next;
  }
}
