// The edge guard service under the real runtime (`wrangler dev`, workerd, a SQLite-backed Durable Object),
// with a local task board as the upstream skill that counts every Apply it receives.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTaskBoard } from "../../examples/task-board.mjs";
import {
  ADMIN,
  AGENT,
  INBOX,
  approve,
  draftOf,
  holdApplies,
  humanAction,
  humanActionFor,
  nextNode,
  propose,
  registerEd25519,
  softwarePasskey,
  startGuardService,
} from "./edge-service-support.mjs";
import { generateApproverKey, signConfirmation } from "../../dist/guard/node.js";
import WebSocket from "ws";
import http from "node:http";

let board;
let guard;
let api;
let alice;

/** A node on the board in `status`, and a pending proposal to move it to `to`. */
async function proposal(status = "todo", to = "in_progress") {
  const node = nextNode();
  board.board.set(node, status);
  return propose(api, node, { type: "status_change", from: status, to });
}

async function approved(key = alice) {
  const approval = await proposal();
  const { status, body } = await approve(api, approval, key);
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.state, "approved");
  return body;
}

/** A POST through `agent` (a bounded connection pool), answering `{ status, body }` like the API client. */
function postOver(agent, path, body, token) {
  const url = new URL(path, guard.url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "content-length": Buffer.byteLength(payload) },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => {
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = { unparsed: text };
          }
          resolve({ status: response.statusCode, body: json });
        });
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

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

describe("the flow", () => {
  test("a proposal becomes a two-line pending approval, an approver's signed y approves it, the agent applies it once", async () => {
    const approval = await proposal();
    assert.equal(approval.state, "pending");
    assert.deepEqual(Object.keys(approval.request), ["what", "impact"]);
    assert.match(approval.request.what, /todo -> in_progress/);
    assert.equal(approval.draft.confirmation_id, approval.approval_id);
    assert.equal(approval.executor_request, null);

    const decided = await approve(api, approval, alice);
    assert.equal(decided.status, 200);
    assert.equal(decided.body.state, "approved");
    assert.equal(decided.body.decision.key_id, "alice/alice-1", "key ids are namespaced by their approver");

    const first = await api.post("/v1/apply", decided.body.executor_request, AGENT);
    assert.equal(first.status, 200);
    assert.equal(first.body.outcome, "applied");
    assert.equal(board.board.get(approval.node_id), "in_progress");
    const second = await api.post("/v1/apply", decided.body.executor_request, AGENT);
    assert.equal(second.body.outcome, "rejected");
    assert.equal(second.body.rejection.phase, "already_consumed");
    assert.equal(board.appliesFor(approval.approval_id), 1);

    const after = await api.get(`/v1/approvals/${approval.approval_id}`, AGENT);
    assert.equal(after.body.state, "consumed");
    const audit = await api.get(`/v1/audit?approval_id=${approval.approval_id}`);
    assert.deepEqual(audit.body.records.map((record) => record.event).reverse(), ["proposed", "approved", "apply", "apply"]);
  });

  test("the Apply carries the action's idempotency key; the board answers the same key once more without applying", async () => {
    const approval = await approved();
    const applied = await api.post("/v1/apply", approval.executor_request, AGENT);
    assert.equal(applied.body.outcome, "applied");
    const [sent] = board.applies.filter((apply) => apply.confirmation_id === approval.approval_id);
    assert.match(sent.idempotency_key, /^[0-9a-f]{64}$/, "the header reached the board");
    // A guard that lost its own record and sent the same action again: the board applies nothing more.
    const again = await fetch(`${board.url}/apply`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": sent.idempotency_key },
      body: JSON.stringify({ node_id: approval.node_id, confirm_status: "in_progress", confirmation: { confirmation_id: approval.approval_id } }),
    });
    assert.equal(again.status, 200);
    assert.deepEqual(await again.json(), { applied: true, node_id: approval.node_id, status: "in_progress" });
    assert.equal(board.appliesFor(approval.approval_id), 1, "applied once");
    assert.equal(board.repeats.filter((repeat) => repeat.idempotency_key === sent.idempotency_key).length, 1);
  });

  test("evidence from the Closer and the Watcher travels with the proposal; listing filters by state, newest first", async () => {
    const node = nextNode();
    board.board.set(node, "in_review");
    const evidence = { closer: { complete: true, checklist: [{ id: "tests", completed: true }] }, watcher: { pass: true, issues: [] } };
    const approval = await propose(api, node, { type: "status_change", from: "in_review", to: "done" }, { evidence, summary: "close the reviewed task", impact_scope: `${node} only; nothing else` });
    assert.deepEqual(approval.evidence, evidence);
    // What the person reads is rendered from the change; the agent's own words are a labelled note.
    assert.deepEqual(approval.request, { what: `Execute: status_change on ${node}: in_review -> done`, impact: `Impact: ${node}` });
    assert.deepEqual(approval.agent_note, { summary: "close the reviewed task", impact_scope: `${node} only; nothing else` });
    const pending = await api.get("/v1/approvals?state=pending&limit=500");
    assert.equal(pending.status, 200);
    assert.ok(pending.body.approvals.every((item) => item.state === "pending"));
    assert.equal(pending.body.approvals[0].approval_id, approval.approval_id, "newest first");
  });

  test("reconfirm: the node moved on, the Apply is refused with the facts, a person picks a transition as a new approval", async () => {
    const approval = await approved();
    board.board.set(approval.node_id, "in_review"); // someone else moved it
    const refused = await api.post("/v1/apply", approval.executor_request, AGENT);
    assert.equal(refused.body.outcome, "reconfirm_required");
    assert.equal(board.appliesFor(approval.approval_id), 0);
    const invalidated = (await api.get(`/v1/approvals/${approval.approval_id}`)).body;
    assert.equal(invalidated.state, "invalidated");
    assert.equal(invalidated.reconfirm.current_status, "in_review");
    assert.deepEqual(invalidated.reconfirm.valid_transitions.map((transition) => transition.status), ["done", "in_progress"]);

    assert.equal((await api.post(`/v1/approvals/${approval.approval_id}/reconfirm`, { to: "done" }, AGENT)).status, 403, "never chosen by the machine");
    const notOffered = await api.post(`/v1/approvals/${approval.approval_id}/reconfirm`, { to: "todo" }, INBOX);
    assert.equal(notOffered.status, 422);
    const picked = await api.post(`/v1/approvals/${approval.approval_id}/reconfirm`, { to: "done" }, INBOX);
    assert.equal(picked.status, 201, JSON.stringify(picked.body));
    assert.equal(picked.body.state, "pending");
    assert.deepEqual(picked.body.proposed_change, { type: "status_change", from: "in_review", to: "done" });
    assert.equal(picked.body.reconfirms, approval.approval_id);
  assert.equal(picked.body.evidence, null, "the reviews were of another change");

    // The inbox may apply only what a person picked; the agent's own approvals stay the agent's to apply.
    const other = await approved();
    assert.equal((await api.post("/v1/apply", other.executor_request, INBOX)).status, 403);
    const decided = await approve(api, picked.body, alice);
    assert.equal(decided.status, 200);
    const applied = await api.post("/v1/apply", decided.body.executor_request, INBOX);
    assert.equal(applied.body.outcome, "applied");
    assert.equal(board.board.get(approval.node_id), "done");
    assert.equal(board.appliesFor(picked.body.approval_id), 1);
    const again = await api.post(`/v1/approvals/${approval.approval_id}/reconfirm`, { to: "done" }, INBOX);
    assert.equal(again.status, 409, "its replacement was applied: the invalidated approval is settled");
    assert.equal(again.body.code, "already_reconfirmed");
  });

  test("the signed change is compared field by field, whatever the order of its keys", async () => {
    const approval = await proposal();
    const { type, from, to } = approval.draft.proposed_change;
    const reordered = await approve(api, approval, alice, { proposed_change: { to, from, type } });
    assert.equal(reordered.status, 200, JSON.stringify(reordered.body));
    assert.equal(reordered.body.state, "approved");
  });

  test("n with a signed decline stores the reason; nothing can be applied", async () => {
    const approval = await proposal();
    const action = await humanActionFor(api, "decline", approval.approval_id, alice, "not this sprint");
    const declined = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "n", action });
    assert.equal(declined.status, 200, JSON.stringify(declined.body));
    assert.equal(declined.body.state, "declined");
    assert.equal(declined.body.decision.reason, "not this sprint");
    const late = await approve(api, approval, alice);
    assert.equal(late.status, 409);
    assert.equal(late.body.code, "not_pending");
    assert.equal(board.appliesFor(approval.approval_id), 0);
  });

  test("a signed cancel withdraws an unused approval; its Apply is rejected as cancelled", async () => {
    const approval = await approved();
    const cancel = await api.post(`/v1/approvals/${approval.approval_id}/cancel`, { action: await humanActionFor(api, "cancel", approval.approval_id, alice) });
    assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
    assert.equal(cancel.body.state, "cancelled");
    const applied = await api.post("/v1/apply", approval.executor_request, AGENT);
    assert.equal(applied.body.rejection.phase, "cancelled");
    const again = await api.post(`/v1/approvals/${approval.approval_id}/cancel`, { action: await humanActionFor(api, "cancel", approval.approval_id, alice) });
    assert.equal(again.status, 409);
    const undecided = await proposal();
    const early = await api.post(`/v1/approvals/${undecided.approval_id}/cancel`, { action: await humanActionFor(api, "cancel", undecided.approval_id, alice) });
    assert.equal(early.status, 409);
    assert.equal(early.body.code, "not_pending");
    assert.equal(board.appliesFor(approval.approval_id), 0);
  });

  test("a passkey (ES256 WebAuthn assertion over the confirmation's hash) approves; its counter must grow", async () => {
    const passkey = await softwarePasskey("alice/alice-passkey");
    const registered = await api.post("/v1/approvers/alice/keys", passkey.registration, ADMIN);
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    assert.equal(registered.body.rp_id, "localhost");

    const approval = await proposal();
    const confirmation = await passkey.approve(approval);
    const decided = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    const applied = await api.post("/v1/apply", decided.body.executor_request, AGENT);
    assert.equal(applied.body.outcome, "applied");

    // A second approval whose assertion repeats the last counter: a cloned credential or a replay.
    const next = await proposal();
    const stale = await passkey.approve(next, { count: 1 });
    const refused = await api.post(`/v1/approvals/${next.approval_id}/decision`, { decision: "y", confirmation: stale });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, "signature_invalid");
    // The passkey from another origin, or without user verification: refused.
    for (const options of [{ origin: "https://evil.example" }, { flags: 0x01 }, { rpId: "evil.example" }, { type: "webauthn.create" }]) {
      const bad = await passkey.approve(next, { ...options, count: 100 + Object.keys(options).length });
      const answer = await api.post(`/v1/approvals/${next.approval_id}/decision`, { decision: "y", confirmation: bad });
      assert.equal(answer.status, 403, JSON.stringify(options));
      assert.equal(answer.body.code, "signature_invalid");
    }
    const keys = await api.get("/v1/keys");
    assert.equal(keys.body.keys.find((key) => key.key_id === "alice/alice-passkey").sign_count, 1);
  });

  test("the live feed (WebSocket) says hello with the recent approvals and pushes each change", async () => {
    // A browser's WebSocket cannot send a header: it asks for a one-time ticket first.
    const ticket = await api.post("/v1/feed-tickets", undefined, INBOX);
    assert.equal(ticket.status, 201, JSON.stringify(ticket.body));
    const socket = new WebSocket(`${guard.url.replace("http", "ws")}/v1/feed?ticket=${ticket.body.ticket}`);
    const messages = [];
    const arrived = (predicate) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching message; got ${JSON.stringify(messages.map((m) => m.type))}`)), 10_000);
        const check = () => {
          const found = messages.find(predicate);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        };
        socket.addEventListener("message", () => check());
        check();
      });
    socket.addEventListener("message", (event) => messages.push(JSON.parse(String(event.data))));
    await new Promise((resolve, reject) => {
      socket.addEventListener("open", resolve, { once: true });
      socket.addEventListener("error", reject, { once: true });
    });
    const hello = await arrived((message) => message.type === "hello");
    assert.ok(Array.isArray(hello.approvals));
    const approval = await proposal();
    const pushed = await arrived((message) => message.type === "approval" && message.approval.approval_id === approval.approval_id);
    assert.equal(pushed.approval.state, "pending");
    await approve(api, approval, alice);
    await arrived((message) => message.type === "approval" && message.approval.approval_id === approval.approval_id && message.approval.state === "approved");
    socket.close();
    assert.equal((await api.get("/v1/feed", null)).status, 401, "no token, no feed");
    const plain = await api.get("/v1/feed", INBOX);
    assert.equal(plain.status, 426);
    assert.equal(plain.body.code, "upgrade_required");
  });
});

describe("races", () => {
  test("2,000 applies over 50 approvals, each approval's forty in flight together: exactly one Apply each, zero doubles", async () => {
    const approvals = [];
    for (let batch = 0; batch < 5; batch += 1) {
      approvals.push(...(await Promise.all(Array.from({ length: 10 }, () => approved()))));
    }
    const before = board.applies.length;
    // Forty Applies of each of the fifty approvals, all sent at once and queued approval by approval over a
    // pool of 32 connections, so an approval's Applies are in flight together and race each other.
    // (`wrangler dev`'s local proxy resets connections, answering 503 "Your worker restarted mid-request",
    // when hundreds are open at once on a busy machine, which says nothing about the guard.)
    const pool = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const clients = approvals.map((approval) =>
      Promise.all(Array.from({ length: 40 }, () => postOver(pool, "/v1/apply", approval.executor_request, AGENT))),
    );
    const results = (await Promise.all(clients)).flat();
    pool.destroy();
    assert.equal(results.length, 2000);
    const odd = results.filter((result) => result.status !== 200);
    assert.deepEqual(odd, [], "every answer is an ExecutorResult");
    const applied = results.filter((result) => result.body.outcome === "applied");
    const rejected = results.filter((result) => result.body.outcome === "rejected");
    assert.equal(applied.length, 50);
    assert.equal(rejected.length, 1950);
    assert.ok(rejected.every((result) => ["already_consumed", "in_flight"].includes(result.body.rejection.phase)));
    assert.equal(board.applies.length - before, 50);
    for (const approval of approvals) assert.equal(board.appliesFor(approval.approval_id), 1, approval.approval_id);
    const phase = (name) => rejected.filter((result) => result.body.rejection.phase === name).length;
    console.log(`[races] 2000 applies over 50 approvals: applied ${applied.length}, rejected ${rejected.length} (already_consumed ${phase("already_consumed")}, in_flight ${phase("in_flight")}), upstream Applies ${board.applies.length - before}, doubles 0`);
  });
});

describe("attacks over HTTP: rejected with the right phase, the upstream never called", () => {
  test("forged: signed by a key the guard does not know", async () => {
    const approval = await proposal();
    const mallory = await generateApproverKey({ keyId: "alice-1" });
    const answer = await approve(api, approval, mallory);
    assert.equal(answer.status, 403);
    assert.equal(answer.body.code, "signature_invalid");
    const unknown = await approve(api, approval, await generateApproverKey({ keyId: "mallory-1" }));
    assert.equal(unknown.body.code, "signature_invalid");
    assert.match(unknown.body.message, /unknown key `mallory-1`/);
    assert.equal((await api.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending");
  });

  test("altered: a signature over another change, edited to look like this one", async () => {
    const approval = await proposal();
    const signedOther = await signConfirmation(draftOf(approval, { proposed_change: { ...approval.draft.proposed_change, to: "done" } }), alice);
    const edited = { ...signedOther, proposed_change: approval.draft.proposed_change };
    const answer = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation: edited });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.code, "signature_invalid");
    const mismatch = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation: signedOther });
    assert.equal(mismatch.status, 422);
    assert.equal(mismatch.body.code, "change_mismatch");
    assert.equal(mismatch.body.path, "confirmation.proposed_change.to");
  });

  test("replayed: the same decision again, another approval's confirmation, the same Apply again", async () => {
    const approval = await proposal();
    const confirmation = await signConfirmation(draftOf(approval), alice);
    const first = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation });
    assert.equal(first.status, 200);
    const replay = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation });
    assert.equal(replay.status, 409);
    const other = await proposal();
    const moved = await api.post(`/v1/approvals/${other.approval_id}/decision`, { decision: "y", confirmation });
    assert.equal(moved.status, 422);
    assert.equal(moved.body.code, "change_mismatch");
    await api.post("/v1/apply", first.body.executor_request, AGENT);
    const again = await api.post("/v1/apply", first.body.executor_request, AGENT);
    assert.equal(again.body.rejection.phase, "already_consumed");
    assert.equal(board.appliesFor(approval.approval_id), 1);
    assert.equal(board.appliesFor(other.approval_id), 0);
  });

  test("expired and future-dated confirmations", async () => {
    const approval = await proposal();
    const old = await approve(api, approval, alice, { confirmed_at: new Date(Date.now() - 25 * 3600_000).toISOString() });
    assert.equal(old.status, 422);
    assert.equal(old.body.code, "expired_time");
    const future = await approve(api, approval, alice, { confirmed_at: new Date(Date.now() + 3600_000).toISOString() });
    assert.equal(future.status, 422);
    assert.equal(future.body.code, "not_yet_valid");
    assert.equal((await api.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending");
  });

  test("wrong node: the Apply names another node than the one approved", async () => {
    const approval = await approved();
    const request = structuredClone(approval.executor_request);
    request.apply_request.node_id = nextNode();
    const answer = await api.post("/v1/apply", request, AGENT);
    assert.equal(answer.body.rejection.phase, "node_mismatch");
    const wrongStatus = structuredClone(approval.executor_request);
    wrongStatus.apply_request.confirm_status = "done";
    assert.equal((await api.post("/v1/apply", wrongStatus, AGENT)).body.rejection.phase, "change_mismatch");
    assert.equal(board.appliesFor(approval.approval_id), 0);
  });

  test("revoked key: what it approved no longer applies, and it approves nothing new", async () => {
    const bob = await registerEd25519(api, "bob", "bob-1");
    const approval = await approved(bob);
    const revoked = await api.call("DELETE", "/v1/approvers/bob/keys/bob-1", undefined, ADMIN);
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.revoked_at);
    const applied = await api.post("/v1/apply", approval.executor_request, AGENT);
    assert.equal(applied.body.rejection.phase, "signature_invalid");
    assert.match(applied.body.rejection.reason, /revoked key `bob\/bob-1`/);
    const fresh = await proposal();
    const answer = await approve(api, fresh, bob);
    assert.equal(answer.body.code, "signature_invalid");
    assert.equal(board.appliesFor(approval.approval_id), 0);
  });

  test("body-trusting: a consumed approval resent with `consumed: false`", async () => {
    const approval = await approved();
    await api.post("/v1/apply", approval.executor_request, AGENT);
    const resent = { ...approval.confirmation, consumed: false, consumed_at: null };
    const decision = await api.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation: resent });
    assert.equal(decision.status, 409);
    const smuggled = await api.post("/v1/apply", { ...approval.executor_request, confirmation: resent }, AGENT);
    assert.equal(smuggled.status, 400);
    assert.equal(smuggled.body.code, "invalid_input");
    const fresh = await proposal();
    const lifecycle = await approve(api, fresh, alice, { consumed: true });
    assert.equal(lifecycle.status, 400);
    assert.equal(lifecycle.body.path, "confirmation.consumed");
    assert.equal(board.appliesFor(approval.approval_id), 1);
    assert.equal(board.appliesFor(fresh.approval_id), 0);
  });
});

describe("bad requests: typed 4xx, nothing stored", () => {
  test("malformed, oversized, wrong media type, unknown fields, bad tokens, wrong roles, wrong approver", async () => {
    const count = async () => (await api.get("/v1/approvals?limit=500")).body.approvals.length;
    const auditCount = async () => (await api.get("/v1/audit?limit=1")).body.records[0]?.seq ?? 0;
    const before = [await count(), await auditCount()];
    const cases = [
      [await api.call("POST", "/v1/proposals", undefined, AGENT, { raw: "{not json" }), 400, "invalid_json"],
      [await api.call("POST", "/v1/proposals", undefined, AGENT, { raw: "[1,2]" }), 400, "invalid_input"],
      [await api.call("POST", "/v1/proposals", undefined, AGENT, { raw: "\"text\"" }), 400, "invalid_input"],
      [await api.call("POST", "/v1/proposals", undefined, AGENT, { raw: JSON.stringify({ node_id: "x".repeat(70_000) }) }), 413, "payload_too_large"],
      [await api.call("POST", "/v1/proposals", undefined, AGENT, { raw: "{}", headers: { "content-type": "text/plain" } }), 415, "unsupported_media_type"],
      [await api.post("/v1/proposals", { node_id: "n", proposed_change: { type: "status_change", from: "a", to: "b" }, intent: "i", extra: 1 }, AGENT), 400, "invalid_input"],
      [await api.post("/v1/proposals", { node_id: "n", proposed_change: { type: "delete_everything", from: "a", to: "b" }, intent: "i" }, AGENT), 422, "no_skill"],
      [await api.post("/v1/proposals", { node_id: "n", proposed_change: { type: "status_change", from: "a", to: "b" }, intent: "i", summary: "two\nlines" }, AGENT), 400, "invalid_input"],
      [await api.post("/v1/proposals", { node_id: "n", proposed_change: { type: "status_change", from: "a", to: "b" }, intent: "i" }, "wrong-token"), 401, "unauthorized"],
      [await api.post("/v1/proposals", { node_id: "n", proposed_change: { type: "status_change", from: "a", to: "b" }, intent: "i" }), 401, "unauthorized"],
      [await api.post("/v1/proposals", { node_id: "n", proposed_change: { type: "status_change", from: "a", to: "b" }, intent: "i" }, INBOX), 403, "forbidden"],
      [await api.post("/v1/apply", { confirmation_id: "c" }, AGENT), 400, "invalid_input"],
      [await api.post("/v1/apply", { confirmation_id: "c", apply_request: { node_id: "n", confirm_status: "b", intent: "i", reason: "r" } }, INBOX), 403, "forbidden"],
      [await api.get("/v1/audit", AGENT), 403, "forbidden"],
      [await api.get("/v1/approvals?state=bogus"), 400, "invalid_input"],
      [await api.get("/v1/approvals?limit=0"), 400, "invalid_input"],
      [await api.get("/v1/approvals/no-such-id"), 404, "not_found"],
      [await api.post("/v1/approvals/no-such-id/decision", { decision: "y", confirmation: {} }), 404, "not_found"],
      [await api.get("/v1/nothing-here"), 404, "not_found"],
      [await api.call("PUT", "/v1/proposals", {}, AGENT), 405, "method_not_allowed"],
      [await api.get("/v1/apply", AGENT), 405, "method_not_allowed"],
      [await api.post("/v1/approvers/carol/keys", { key_id: "carol-1", type: "ed25519", public_key: "AAAA" }, AGENT), 403, "forbidden"],
      [await api.post("/v1/approvers/carol/keys", { key_id: "carol-1", type: "ed25519", public_key: "AAAA" }, ADMIN), 400, "invalid_key"],
      [await api.post("/v1/approvers/carol/keys", { key_id: "carol-1", type: "ed25519", public_key: "AAAA", enrollment_code: "guess" }), 403, "forbidden"],
      [await api.post("/v1/approvers/alice/keys", { key_id: "alice-1", type: "ed25519", public_key: (await generateApproverKey()).publicKey.public_key }, ADMIN), 409, "conflict"],
    ];
    for (const [[answer, status, code], index] of cases.map((entry, index) => [entry, index])) {
      assert.equal(answer.status, status, `case ${index}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, code, `case ${index}`);
      assert.equal(typeof answer.body.message, "string", `case ${index}`);
      assert.equal(typeof answer.body.path, "string", `case ${index}`);
    }
    // The wrong approver: an enrollment code for bob cannot register a key for carol.
    const code = (await api.post("/v1/enrollments", { approver: "bob" }, ADMIN)).body.enrollment_code;
    const wrong = await api.post("/v1/approvers/carol/keys", { key_id: "carol-2", ...(await generateApproverKey()).publicKey, enrollment_code: code });
    assert.equal(wrong.status, 403);
    // A decision signed by a key of someone who is not an approver here.
    const approval = await proposal();
    const stranger = await approve(api, approval, await generateApproverKey({ keyId: "stranger-1" }));
    assert.equal(stranger.status, 403);
    // The one proposal made above, and the enrollment code made for bob (who was invited is audited).
    assert.deepEqual([await count(), await auditCount()], [before[0] + 1, before[1] + 2], "only the one proposal and the one code made above were stored (and audited)");
  });

  test("a one-time enrollment code lets an approver register their own key once", async () => {
    const { body } = await api.post("/v1/enrollments", { approver: "dana" }, ADMIN);
    const key = await generateApproverKey({ keyId: "dana-1" });
    const first = await api.post("/v1/approvers/dana/keys", { key_id: "dana-1", ...key.publicKey, enrollment_code: body.enrollment_code });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const second = await api.post("/v1/approvers/dana/keys", { key_id: "dana-2", ...(await generateApproverKey()).publicKey, enrollment_code: body.enrollment_code });
    assert.equal(second.status, 403);
  });
});

describe("a restart between the upstream's Apply and the commit", () => {
  test("the approval is in_flight after restart, never applied again, and a human reconciles it", async () => {
    const approval = await approved();
    const { arrived: applyArrived, release } = holdApplies(board);
    const pending = api.post("/v1/apply", approval.executor_request, AGENT).catch((error) => ({ error }));
    await applyArrived;
    assert.equal(board.appliesFor(approval.approval_id), 1);
    await guard.kill();
    board.hold = null;
    release();
    const lost = await pending;
    assert.ok(lost.error || lost.status >= 500, "the agent never heard an outcome");

    guard = await startGuardService(board, { persistTo: guard.persistTo });
    api = guard.client;
    const after = await api.get(`/v1/approvals/${approval.approval_id}`);
    assert.equal(after.body.state, "in_flight");
    const retried = await api.post("/v1/apply", approval.executor_request, AGENT);
    assert.equal(retried.body.outcome, "rejected");
    assert.equal(retried.body.rejection.phase, "in_flight");
    assert.equal(board.appliesFor(approval.approval_id), 1, "never applied again");

    // The agent cannot reconcile: the action must be signed by an approver.
    const unsigned = await api.post(`/v1/approvals/${approval.approval_id}/reconcile`, { action: { action: "reconcile_applied", approval_id: approval.approval_id, version: after.body.version, nonce: "agent-made-nonce-0001", at: new Date().toISOString(), key_id: null } }, AGENT);
    assert.equal(unsigned.status, 403);
    const reconciled = await api.post(`/v1/approvals/${approval.approval_id}/reconcile`, { action: await humanActionFor(api, "reconcile_applied", approval.approval_id, alice, "the board shows in_progress") });
    assert.equal(reconciled.status, 200, JSON.stringify(reconciled.body));
    assert.equal(reconciled.body.state, "consumed");
    const audit = await api.get(`/v1/audit?approval_id=${approval.approval_id}`);
    assert.equal(audit.body.records[0].event, "reconciled");
    console.log(`[restart] after a kill between Apply and commit: state in_flight, retry rejected (in_flight), upstream Applies 1, reconciled -> consumed`);
  });
});
