// A chain of signed receipts kept in a ConfirmationStore: each names the digest of the one before, and the
// holder of the Ed25519 key signs each. `verifyReceipts` (agent-governor, agent-governor/guard) checks a chain
// offline with the public key. Several writers (gateway replicas) may share the store: each receipt claims
// its number with an insert-if-absent, so two never take one number, and a writer that finds its number
// taken carries the chain's end forward before it tries the next.
import { formatTime, receiptDigest } from "agent-governor";
import { signReceipt } from "../approver/index.js";

const LAST = "tool-call-receipts/last";
const receiptKey = (seq) => `tool-call-receipts/${seq}`;
/** How many numbers a writer tries before it gives up (each try means another writer appended meanwhile). */
const MAX_TRIES = 32;

/** Receipts in `store`, signed with `key` (`{ keyId, privateKey }`: an Ed25519 CryptoKey); `now()` in epoch ms. */
export function receiptChain(store, key, now) {
  let tail = Promise.resolve();

  /** The chain's last receipt (text and value): the one `last` names, or a later one already claimed. */
  async function end() {
    let text = await store.get(LAST);
    let last = typeof text === "string" ? JSON.parse(text) : null;
    // A writer that claimed a number and stopped before moving `last` left its receipt: it is the end.
    for (;;) {
      const next = await store.get(receiptKey(last === null ? 1 : last.seq + 1));
      if (typeof next !== "string") return { text, last };
      await store.compareAndSwap(LAST, text ?? null, next);
      text = next;
      last = JSON.parse(next);
    }
  }

  async function appendOnce(fields) {
    for (let tries = 0; tries < MAX_TRIES; tries += 1) {
      const { text, last } = await end();
      const receipt = await signReceipt(
        {
          seq: last === null ? 1 : last.seq + 1,
          approval_id: fields.approvalId,
          change_digest: fields.changeDigest,
          approver: fields.approver ?? "",
          outcome: fields.outcome,
          at: formatTime(now()),
          prev: last === null ? null : receiptDigest(last),
        },
        key,
      );
      const receiptText = JSON.stringify(receipt);
      // Claim the number; another writer's claim wins and this one tries the next number.
      if (!(await store.compareAndSwap(receiptKey(receipt.seq), null, receiptText))) continue;
      await store.compareAndSwap(LAST, text ?? null, receiptText);
      return receipt;
    }
    throw Object.assign(new Error(`the receipt chain kept moving: ${MAX_TRIES} numbers were taken by other writers`), { code: "storage_error" });
  }

  return {
    /** Appends a receipt for an outcome and resolves to it. This writer's appends take turns. */
    append(fields) {
      const next = tail.then(() => appendOnce(fields));
      tail = next.catch(() => {});
      return next;
    },
    /** Every receipt from `from` (1) on, in order. */
    async list(from = 1) {
      const { last } = await end();
      if (last === null) return [];
      const receipts = [];
      for (let at = from; at <= last.seq; at += 1) receipts.push(JSON.parse(await store.get(receiptKey(at))));
      return receipts;
    },
  };
}
