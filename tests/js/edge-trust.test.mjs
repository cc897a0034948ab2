// The edge guard under `wrangler dev`, tried as an attacker would: every signed action is used once and only
// on the state it was made for, times are read one strict way, bodies are read by a bounded parser, key ids
// belong to their approver, what a person reads is the change, approvals belong to one inbox, the store's
// records are sealed and a consumed id stays consumed, and every Apply outcome has a signed receipt whose
// chain anyone verifies offline.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { startTaskBoard } from "../../examples/task-board.mjs";
import {
  ADMIN,
  AGENT,
  INBOX,
  approve,
  draftOf,
  humanAction,
  humanActionFor,
  nextNode,
  propose,
  registerEd25519,
  softwarePasskey,
  startGuardService,
} from "./edge-service-support.mjs";
import { actionChallenge, generateApproverKey, signAction, signConfirmation, verifyReceipts } from "../../dist/guard/node.js";

let board;
let guard;
let api;
let alice;

async function proposal(status = "todo", to = "in_progress") {
  const node = nextNode();
  board.board.set(node, status);
  return propose(api, node, { type: "status_change", from: status, to });
}

async function approved(key = alice) {
  const approval = await proposal();
  const { status, body } = await approve(api, approval, key);
  assert.equal(status, 200, JSON.stringify(body));
  return body;
}

/** An approval whose Apply reached the board but whose answer was lost: in_flight, outcome unknown. */
async function inFlight() {
  const approval = await approved();
  board.hold = async (_request, { drop }) => drop();
  const lost = await api.post("/v1/apply", approval.executor_request, AGENT);
  board.hold = null;
  assert.equal(lost.body.outcome, "error", JSON.stringify(lost.body));
  const view = await api.get(`/v1/approvals/${approval.approval_id}`);
  assert.equal(view.body.state, "in_flight");
  return view.body;
}

const view = async (id) => (await api.get(`/v1/approvals/${id}`)).body;

before(async () => {
  board = await startTaskBoard();
  guard = await startGuardService(board);
  api = guard.client;
  alice = await registerEd25519(api, "alice", "alice-1");
});

after(async () => {
  await guard?.dispose();
  await board?.close();
});

describe("single-use signed actions", () => {
  test("a reconcile_not_applied closes the approval: it is never applied again, and the reconcile replayed is refused", async () => {
    const first = await inFlight();
    const reconcile = await humanAction("reconcile_not_applied", first.approval_id, alice, "the board did not change", first.version);
    const settled = await api.post(`/v1/approvals/${first.approval_id}/reconcile`, { action: reconcile });
    assert.equal(settled.status, 200, JSON.stringify(settled.body));
    assert.equal(settled.body.state, "cancelled", "closed, never re-armed: doing it again is a new approval");
    const appliesBefore = board.appliesFor(first.approval_id);

    // The agent applies with it again: refused, nothing reaches the board.
    board.board.set(first.node_id, "todo");
    const retried = await api.post("/v1/apply", settled.body.executor_request, AGENT);
    assert.equal(retried.body.outcome, "rejected");
    assert.equal(board.appliesFor(first.approval_id), appliesBefore, "nothing applied again");

    // The same signed reconcile, posted again.
    const replay = await api.post(`/v1/approvals/${first.approval_id}/reconcile`, { action: reconcile });
    assert.equal(replay.status, 409);
    assert.equal(replay.body.code, "action_replayed");
    assert.equal((await view(first.approval_id)).state, "cancelled", "the approval was not reopened");
  });

  test("an action made for an earlier version of the approval is stale", async () => {
    const approval = await approved();
    const cancelMadeEarlier = await humanAction("cancel", approval.approval_id, alice, "", approval.version);
    // The approval moves on (an Apply starts and its answer is lost) before the cancel arrives.
    board.hold = async (_request, { drop }) => drop();
    await api.post("/v1/apply", approval.executor_request, AGENT);
    board.hold = null;
    const now = await view(approval.approval_id);
    assert.equal(now.state, "in_flight");
    assert.notEqual(now.version, approval.version);
    const late = await api.post(`/v1/approvals/${approval.approval_id}/cancel`, { action: cancelMadeEarlier });
    assert.equal(late.status, 409);
    assert.equal(late.body.code, "stale_action");
    // A reconcile made for a version that never existed.
    const forged = await humanAction("reconcile_applied", approval.approval_id, alice, "", "0".repeat(32));
    const refused = await api.post(`/v1/approvals/${approval.approval_id}/reconcile`, { action: forged });
    assert.equal(refused.body.code, "stale_action");
    assert.equal((await view(approval.approval_id)).state, "in_flight");
  });

  test("a decline and a cancel are used once; a passkey action whose counter does not grow is refused", async () => {
    const pending = await proposal();
    const decline = await humanActionFor(api, "decline", pending.approval_id, alice, "no");
    assert.equal((await api.post(`/v1/approvals/${pending.approval_id}/decision`, { decision: "n", action: decline })).status, 200);
    const again = await api.post(`/v1/approvals/${pending.approval_id}/decision`, { decision: "n", action: decline });
    assert.equal(again.status, 409);

    const approval = await approved();
    const cancel = await humanActionFor(api, "cancel", approval.approval_id, alice);
    assert.equal((await api.post(`/v1/approvals/${approval.approval_id}/cancel`, { action: cancel })).status, 200);
    const replayed = await api.post(`/v1/approvals/${approval.approval_id}/cancel`, { action: cancel });
    assert.equal(replayed.status, 409);
    assert.equal(replayed.body.code, "action_replayed");

    const passkey = await softwarePasskey("alice/trust-passkey");
    assert.equal((await api.post("/v1/approvers/alice/keys", passkey.registration, ADMIN)).status, 201);
    const target = await approved();
    const current = await view(target.approval_id);
    const first = await passkey.act("cancel", target.approval_id, "", current.version);
    // The same counter again on another action: a cloned authenticator or a replayed assertion.
    const other = await approved();
    const otherView = await view(other.approval_id);
    const unsigned = { action: "cancel", approval_id: other.approval_id, version: otherView.version, nonce: crypto.randomUUID(), detail: "", at: new Date().toISOString(), key_id: "alice/trust-passkey" };
    const cloned = { ...unsigned, assertion: await passkey.assert(actionChallenge(unsigned, "alice/trust-passkey"), { count: 1 }) };
    assert.equal((await api.post(`/v1/approvals/${target.approval_id}/cancel`, { action: first })).status, 200);
    const refused = await api.post(`/v1/approvals/${other.approval_id}/cancel`, { action: cloned });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "signature_invalid");
    assert.equal((await view(other.approval_id)).state, "approved");
  });
});

describe("times, bodies and what a person reads", () => {
  test("a confirmed_at with an odd separator is refused before anything is stored; every view still renders", async () => {
    const approval = await proposal();
    for (const confirmedAt of ["2026-11-23_20:52:05.449Z", "2026-11-23t20:52:05Z", "2026-11-23T20:52:05.449z", "2026-11-23T20:52:05", "2026-02-30T00:00:00Z"]) {
      // The package refuses to sign it.
      await assert.rejects(signConfirmation(draftOf(approval, { confirmed_at: confirmedAt }), alice), { code: "invalid_input" });
      // A signer of its own signs it anyway: the guard refuses it before storing anything.
      const confirmation = await signedByHand(draftOf(approval, { confirmed_at: confirmedAt }), alice);
      const answer = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation });
      assert.equal(answer.status, 400, `${confirmedAt}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.path, "confirmation.confirmed_at");
    }
    assert.equal((await view(approval.approval_id)).state, "pending");
    assert.equal((await api.get("/v1/approvals")).status, 200);
    // A space is as good as a T: the core reads it, and the view shows the core's normal form.
    const spaced = await signConfirmation(draftOf(approval, { confirmed_at: new Date().toISOString().replace("T", " ") }), alice);
    const decided = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation: spaced });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    assert.match(decided.body.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test("evidence nested 5,000 deep and duplicate keys are clean 400s; nothing is stored", async () => {
    const before = (await api.get("/v1/approvals?limit=500")).body.approvals.length;
    const node = nextNode();
    const deep = `{"node_id":"${node}","proposed_change":{"type":"status_change","from":"todo","to":"done"},"intent":"i","evidence":{"closer":${"[".repeat(5000)}${"]".repeat(5000)}}}`;
    const tooDeep = await api.call("POST", "/v1/proposals", undefined, AGENT, { raw: deep });
    assert.equal(tooDeep.status, 400, JSON.stringify(tooDeep.body));
    assert.equal(tooDeep.body.code, "too_deep");
    const duplicate = `{"node_id":"${node}","proposed_change":{"type":"status_change","from":"todo","to":"done","to":"deleted"},"intent":"i"}`;
    const twice = await api.call("POST", "/v1/proposals", undefined, AGENT, { raw: duplicate });
    assert.equal(twice.status, 400);
    assert.equal(twice.body.code, "duplicate_key");
    assert.equal(twice.body.path, "proposed_change.to");
    assert.equal((await api.get("/v1/approvals?limit=500")).body.approvals.length, before);
  });

  test("an agent whose words disagree with its change: the person reads the change, the words as a note", async () => {
    const node = nextNode();
    board.board.set(node, "todo");
    const approval = await propose(api, node, { type: "status_change", from: "todo", to: "deleted" }, { summary: "tidy the title", impact_scope: "nothing" });
    assert.equal(approval.request.what, `Execute: status_change on ${node}: todo -> deleted`);
    assert.equal(approval.request.impact, `Impact: ${node}`);
    assert.deepEqual(approval.agent_note, { summary: "tidy the title", impact_scope: "nothing" });
    // Invisible characters in the change are shown, never hidden.
    const hidden = await propose(api, nextNode(), { type: "status_change", from: "todo", to: "don\u200be" });
    assert.match(hidden.request.what, /"don<U\+200B>e"/);
  });
});

describe("keys belong to their approver", () => {
  test("an approver cannot register or sign for another approver's key ids; their own key changes are signed and single-use", async () => {
    const code = await api.post("/v1/enrollments", { approver: "mallory" }, ADMIN);
    const malloryKey = await generateApproverKey({ keyId: "alice/2" });
    const squat = await api.post("/v1/approvers/mallory/keys", { key_id: "alice/2", ...malloryKey.publicKey, enrollment_code: code.body.enrollment_code });
    assert.equal(squat.status, 403);
    const adminSquat = await api.post("/v1/approvers/mallory/keys", { key_id: "alice/2", ...malloryKey.publicKey }, ADMIN);
    assert.equal(adminSquat.status, 403, "even the admin cannot file a key under another approver's name");
    const mallory = await registerEd25519(api, "mallory", "m-1");
    assert.equal(mallory.keyId, "mallory/m-1");

    // Alice adds a second key herself, signing with her first.
    const second = await generateApproverKey({ keyId: "alice-2" });
    // The approver needs no token to read her key set's version.
    const keys = (await api.get("/v1/approvers/alice/keys", null)).body;
    const detail = `ed25519::${second.publicKey.public_key}`;
    const add = await signAction({ action: "add_key", approval_id: "alice/alice-2", version: keys.version, detail, at: new Date().toISOString(), key_id: null }, alice);
    const added = await api.post("/v1/approvers/alice/keys", { key_id: "alice-2", ...second.publicKey, action: add });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    // Mallory's key cannot sign a key change for alice.
    const third = await generateApproverKey({ keyId: "alice-3" });
    const newKeys = (await api.get("/v1/approvers/alice/keys")).body;
    assert.notEqual(newKeys.version, keys.version);
    const byMallory = await signAction({ action: "add_key", approval_id: "alice/alice-3", version: newKeys.version, detail: `ed25519::${third.publicKey.public_key}`, at: new Date().toISOString(), key_id: null }, mallory);
    const refused = await api.post("/v1/approvers/alice/keys", { key_id: "alice-3", ...third.publicKey, action: byMallory });
    assert.equal(refused.status, 403);
    // The same add_key replayed for the same key id: refused.
    const replay = await api.post("/v1/approvers/alice/keys", { key_id: "alice-2", ...second.publicKey, action: add });
    assert.equal(replay.status, 409);
    // Alice revokes her second key, signing with it; without a signature or the admin, nobody can.
    const anonymous = await api.call("DELETE", "/v1/approvers/alice/keys/alice-2", undefined, null);
    assert.equal(anonymous.status, 401);
    const revoke = await signAction({ action: "revoke_key", approval_id: "alice/alice-2", version: newKeys.version, detail: "", at: new Date().toISOString(), key_id: null }, { ...second, keyId: "alice/alice-2" });
    const revoked = await api.call("DELETE", "/v1/approvers/alice/keys/alice-2", { action: revoke }, null);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    assert.ok(revoked.body.revoked_at);

    // Alice names her first key: signed by her, made for the key set's version, once; the id never changes.
    const aliceKey = { ...alice, keyId: "alice/alice-1" };
    const rename = async (label, signer = aliceKey, version) =>
      signAction({ action: "rename_key", approval_id: "alice/alice-1", version: version ?? (await api.get("/v1/approvers/alice/keys")).body.version, detail: label, at: new Date().toISOString(), key_id: null }, signer);
    const named = await rename("Alice's laptop");
    const renamed = await api.post("/v1/approvers/alice/keys/alice-1", { action: named });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.label, "Alice's laptop");
    assert.equal(renamed.body.key_id, "alice/alice-1");
    assert.equal((await api.post("/v1/approvers/alice/keys/alice-1", { action: named })).status, 409, "a rename replayed");
    const stale = await rename("Old name", aliceKey, newKeys.version);
    assert.equal((await api.post("/v1/approvers/alice/keys/alice-1", { action: stale })).body.code, "stale_action", "made for a key set that changed since");
    assert.equal((await api.post("/v1/approvers/alice/keys/alice-1", { action: await rename("Mallory's now", { ...mallory }) })).status, 403, "another approver's key");
    for (const label of [" padded", "bidi\u202eevil", "x".repeat(65), "tab\there"]) {
      const bad = await api.post("/v1/approvers/alice/keys/alice-1", { action: await rename(label) });
      assert.equal(bad.status, 400, `${JSON.stringify(label)}: ${JSON.stringify(bad.body)}`);
    }
    assert.equal((await api.get("/v1/approvers/alice/keys")).body.keys.find((key) => key.key_id === "alice/alice-1").label, "Alice's laptop");
  });
});

describe("keys a path can name, codes and replacements used once", () => {
  test("a key name no URL can name is refused; a path with extra segments revokes nothing", async () => {
    for (const keyId of ["alice/x\ny", "alice/tab\tx", "alice/bidi\u202eevil", "zw\u200bj", "alice/ spaced", "..", "alice/."]) {
      const key = await generateApproverKey({ keyId: "k" });
      const answer = await api.post("/v1/approvers/alice/keys", { key_id: keyId, ...key.publicKey }, ADMIN);
      assert.equal(answer.status, 400, `${JSON.stringify(keyId)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.path, "key_id");
    }
    const spare = await registerEd25519(api, "alice", "spare");
    const extra = await api.call("DELETE", "/v1/approvers/alice/keys/spare/extra/more", undefined, ADMIN);
    assert.equal(extra.status, 404);
    const keys = (await api.get("/v1/approvers/alice/keys", null)).body.keys;
    assert.equal(keys.find((key) => key.key_id === spare.keyId).revoked_at, null, "nothing was revoked");
  });

  test("a refused registration leaves the enrollment code unused", async () => {
    const code = (await api.post("/v1/enrollments", { approver: "carol" }, ADMIN)).body.enrollment_code;
    const bad = await api.post("/v1/approvers/carol/keys", { key_id: "c1", type: "ed25519", public_key: "AAAA", enrollment_code: code });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    const key = await generateApproverKey({ keyId: "c1" });
    const good = await api.post("/v1/approvers/carol/keys", { key_id: "c1", ...key.publicKey, enrollment_code: code });
    assert.equal(good.status, 201, JSON.stringify(good.body));
    const again = await api.post("/v1/approvers/carol/keys", { key_id: "c2", ...(await generateApproverKey({ keyId: "c2" })).publicKey, enrollment_code: code });
    assert.equal(again.status, 403, "then it is used");
  });

  test("an invalidated approval has one live replacement at a time", async () => {
    const approval = await approved();
    board.board.set(approval.node_id, "in_review");
    assert.equal((await api.post("/v1/apply", approval.executor_request, AGENT)).body.outcome, "reconfirm_required");
    const first = await api.post(`/v1/approvals/${approval.approval_id}/reconfirm`, { to: "done" }, INBOX);
    assert.equal(first.status, 201);
    const second = await api.post(`/v1/approvals/${approval.approval_id}/reconfirm`, { to: "done" }, INBOX);
    assert.equal(second.status, 409);
    assert.equal(second.body.code, "already_reconfirmed");
    // Once the first is declined, a person may pick again.
    const decline = await humanActionFor(api, "decline", first.body.approval_id, alice, "not this one");
    const declined = await api.post(`/v1/approvals/${first.body.approval_id}/decision`, { decision: "n", action: decline });
    assert.equal(declined.status, 200, JSON.stringify(declined.body));
    const third = await api.post(`/v1/approvals/${approval.approval_id}/reconfirm`, { to: "done" }, INBOX);
    assert.equal(third.status, 201, JSON.stringify(third.body));
  });

  test("the bearer scheme is read in any case; the receipt key as served verifies the chain", async () => {
    const lower = await api.call("GET", "/v1/approvals?limit=1", undefined, null, { headers: { authorization: `bearer ${INBOX}` } });
    assert.equal(lower.status, 200);
    const served = (await api.get("/v1/receipts/key", null)).body;
    assert.equal(typeof served.key_id, "string");
    const receipts = (await api.get("/v1/receipts?since=0&limit=500")).body.receipts;
    assert.ok(receipts.length > 0);
    assert.equal(verifyReceipts(receipts, served).verdict, "valid");
    const other = verifyReceipts(receipts, { ...served, key_id: "guard-another" });
    assert.deepEqual([other.verdict, other.index], ["broken", 0]);
  });
});

describe("approvals bound to their inbox, records sealed, consumed ids kept", () => {
  test("a confirmation made for another inbox, or for none, is refused", async () => {
    const approval = await proposal();
    for (const audience of ["agent-governor:other-team", undefined]) {
      const confirmation = await signConfirmation({ ...draftOf(approval), audience }, alice);
      if (audience === undefined) delete confirmation.audience;
      const answer = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation });
      assert.equal(answer.status, 403, JSON.stringify(answer.body));
      assert.equal(answer.body.code, "wrong_audience");
    }
    assert.equal((await view(approval.approval_id)).state, "pending");
  });

  test("a lifecycle field changed in the store is refused; a consumed record deleted from the store is never applied again", async () => {
    const cancelled = await approved();
    assert.equal((await api.post(`/v1/approvals/${cancelled.approval_id}/cancel`, { action: await humanActionFor(api, "cancel", cancelled.approval_id, alice) })).status, 200);
    const consumed = await approved();
    assert.equal((await api.post("/v1/apply", consumed.executor_request, AGENT)).body.outcome, "applied");
    const appliesBefore = board.appliesFor(consumed.approval_id);
    const garbled = await approved();

    // Whoever can write the store (not the guard) un-cancels one record, deletes another, garbles a third.
    await guard.kill();
    editInboxDatabase(guard.persistTo, [
      `UPDATE confirmations SET value = json_set(value, '$.cancelled', json('false')) WHERE key = 'confirmation/${cancelled.approval_id}'`,
      `DELETE FROM confirmations WHERE key = 'confirmation/${consumed.approval_id}'`,
      `UPDATE confirmations SET value = '{"confirmed_at": ' WHERE key = 'confirmation/${garbled.approval_id}'`,
    ]);
    guard = await startGuardService(board, { persistTo: guard.persistTo });
    api = guard.client;

    board.board.set(cancelled.node_id, "todo");
    const tampered = await api.post("/v1/apply", cancelled.executor_request, AGENT);
    assert.equal(tampered.body.outcome, "rejected");
    assert.equal(tampered.body.rejection.phase, "record_tampered");

    // The consumed approval's record is gone: the consumed-id ledger still refuses it.
    board.board.set(consumed.node_id, "todo");
    const resaved = await api.post("/v1/apply", consumed.executor_request, AGENT);
    assert.equal(resaved.body.outcome, "rejected");
    assert.equal(resaved.body.rejection.phase, "already_consumed");
    assert.equal(board.appliesFor(consumed.approval_id), appliesBefore);

    // The record no view can render degrades that one view; the list still answers, flagged.
    const list = await api.get("/v1/approvals?limit=500");
    assert.equal(list.status, 200);
    const flagged = list.body.approvals.find((item) => item.approval_id === garbled.approval_id);
    assert.equal(flagged.state, "unreadable");
    assert.equal(typeof flagged.error.message, "string");
    assert.ok(list.body.approvals.filter((item) => item.state !== "unreadable").length > 5, "every other approval renders");
    const garbledApply = await api.post("/v1/apply", garbled.executor_request, AGENT);
    assert.notEqual(garbledApply.body.outcome, "applied");
  });
});

describe("signed receipts", () => {
  test("every Apply outcome has a receipt; the chain verifies offline and one changed byte breaks it at that link", async () => {
    const applied = await approved();
    const result = await api.post("/v1/apply", applied.executor_request, AGENT);
    assert.equal(result.body.outcome, "applied");
    assert.equal(result.body.receipt.outcome, "applied");
    const again = await api.post("/v1/apply", applied.executor_request, AGENT);
    assert.equal(again.body.receipt.outcome, "rejected");

    const { body } = await api.get("/v1/receipts?limit=500");
    const key = (await api.get("/v1/receipts/key", null)).body;
    assert.deepEqual(body.public_key, key);
    const chain = body.receipts;
    assert.ok(chain.length >= 2);
    const verdict = verifyReceipts(chain, { type: key.type, public_key: key.public_key });
    assert.equal(verdict.verdict, "valid", JSON.stringify(verdict));
    assert.equal(verdict.count, chain.length);
    assert.equal(chain[0].seq, 1);
    assert.equal(chain[0].prev, null);
    const outcomes = new Set(chain.map((receipt) => receipt.outcome));
    for (const outcome of ["applied", "rejected", "unknown", "reconciled_not_applied", "cancelled"]) assert.ok(outcomes.has(outcome), `a receipt of ${outcome}`);

    for (const index of [0, Math.floor(chain.length / 2), chain.length - 1]) {
      const text = JSON.stringify(chain[index]);
      const position = text.indexOf(chain[index].change_digest) + 5;
      const flipped = text.slice(0, position) + (text[position] === "a" ? "b" : "a") + text.slice(position + 1);
      const altered = chain.map((receipt, at) => (at === index ? JSON.parse(flipped) : receipt));
      const verdict = verifyReceipts(altered, { type: "ed25519", public_key: key.public_key });
      assert.equal(verdict.verdict, "broken");
      assert.equal(verdict.index, index, `a byte changed in receipt ${index} breaks the chain there`);
    }
    const since = await api.get(`/v1/receipts?since=${chain.length - 1}`);
    assert.deepEqual(since.body.receipts, chain.slice(-1));
  });
});

/** A confirmation signed over its canonical bytes by a signer that does not check them first. */
async function signedByHand(draft, key) {
  const fields = ["agent-governor/confirmation/v2", key.keyId, draft.audience, draft.confirmation_id, draft.node_id, draft.proposed_change.type, draft.proposed_change.from, draft.proposed_change.to, draft.intent, draft.reason, "human", draft.confirmed_at, draft.ui_action];
  const signature = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key.privateKey, new TextEncoder().encode(JSON.stringify(fields))));
  return { ...draft, key_id: key.keyId, signature: Buffer.from(signature).toString("hex") };
}

/** Runs SQL on the inbox's Durable Object database, with the runtime stopped. */
function editInboxDatabase(persistTo, statements) {
  const directory = join(persistTo, "v3", "do");
  const files = readdirSync(directory, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith(".sqlite") && !name.endsWith("metadata.sqlite"));
  assert.equal(files.length, 1, `one inbox database under ${directory}: ${files.join(", ")}`);
  const file = join(directory, files[0]);
  const script = `import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\nfor statement in sys.argv[2:]:\n    db.execute(statement)\ndb.commit()\ndb.close()\n`;
  execFileSync("python3", ["-c", script, file, ...statements]);
}
