// A chain of signed receipts kept in a ConfirmationStore: each names the digest of the one before, and the
// holder of the Ed25519 key signs each. `verifyReceipts` (agent-governor, agent-governor/guard) checks a chain
// offline with the public key.
import { formatTime, receiptDigest } from "agent-governor";
import { signReceipt } from "../approver/index.js";

const LAST = "tool-call-receipts/last";
const receiptKey = (seq) => `tool-call-receipts/${seq}`;

/** Receipts in `store`, signed with `key` (`{ keyId, privateKey }`: an Ed25519 CryptoKey); `now()` in epoch ms. */
export function receiptChain(store, key, now) {
  let tail = Promise.resolve();
  return {
    /** Appends a receipt for an outcome and resolves to it. Appends are serialised: each needs the one before. */
    append({ approvalId, changeDigest, approver, outcome }) {
      const next = tail.then(async () => {
        const lastText = await store.get(LAST);
        const last = typeof lastText === "string" ? JSON.parse(lastText) : null;
        const unsigned = {
          seq: last === null ? 1 : last.seq + 1,
          approval_id: approvalId,
          change_digest: changeDigest,
          approver: approver ?? "",
          outcome,
          at: formatTime(now()),
          prev: last === null ? null : receiptDigest(last),
        };
        const receipt = await signReceipt(unsigned, key);
        const text = JSON.stringify(receipt);
        // The receipt under its number first, then the chain's end: a crash between the two loses no receipt.
        await store.put(receiptKey(receipt.seq), text);
        if (!(await store.compareAndSwap(LAST, lastText ?? null, text))) {
          throw Object.assign(new Error("another writer appended to this receipt chain"), { code: "storage_error" });
        }
        return receipt;
      });
      tail = next.catch(() => {});
      return next;
    },
    /** Every receipt from `from` (1) on, in order. */
    async list(from = 1) {
      const lastText = await store.get(LAST);
      if (typeof lastText !== "string") return [];
      const { seq } = JSON.parse(lastText);
      const receipts = [];
      for (let at = from; at <= seq; at += 1) receipts.push(JSON.parse(await store.get(receiptKey(at))));
      return receipts;
    },
  };
}
