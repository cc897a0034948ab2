// Every bad request to the edge guard is a clean 4xx before any state changes, whoever sends it and however
// large; tokens are read only from the Authorization header; a browser opens the live feed with a
// short-lived, single-use ticket. Under the real `wrangler dev`.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import WebSocket from "ws";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { ADMIN, AGENT, INBOX, approve, nextNode, propose, registerEd25519, holdApplies, startGuardService } from "./edge-service-support.mjs";

let board;
let guard;
let api;
let alice;

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

/** A raw request; a connection the guard cut shows as `{ status: "reset" }`. */
async function raw(path, { method = "POST", token = null, body, headers = {}, duplex } = {}) {
  try {
    const response = await fetch(`${guard.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      body,
      duplex,
    });
    const text = await response.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = { unparsed: text };
    }
    return { status: response.status, body: json };
  } catch (error) {
    return { status: "reset", body: { error: error.cause?.code ?? error.message } };
  }
}

/** A body of `size` bytes sent in chunks with no Content-Length. */
function streamed(size, chunk = 64 * 1024) {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close();
      const length = Math.min(chunk, size - sent);
      sent += length;
      controller.enqueue(new Uint8Array(length).fill(0x20));
    },
  });
}

const NINE_MIB = 9 * 1024 * 1024;

describe("malformed paths", () => {
  test("malformed percent-encoding, control characters and over-long segments are 400 malformed_path, with or without a token", async () => {
    for (const path of ["/v1/%zz", "/v1/approvals/%E0%A4%A", "/v1/approvals/%C0%AF", "/v1/approvals/a%00b", "/v1/approvals/a%E2%80%AEb", `/v1/approvals/${"x".repeat(300)}`]) {
      for (const token of [null, INBOX]) {
        const answer = await raw(path, { method: "GET", token });
        assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, "malformed_path", path);
        assert.equal(typeof answer.body.message, "string");
      }
    }
  });
});

describe("oversized bodies", () => {
  test("a declared Content-Length over the limit is 413 before the body is read; a streamed one is cut at the limit", async () => {
    const big = new Uint8Array(NINE_MIB).fill(0x20);
    for (const token of [AGENT, null]) {
      const declared = await raw("/v1/proposals", { token, body: big });
      // The guard answers 413 at once; a client still sending may see its connection closed instead.
      assert.ok(declared.status === 413 || declared.status === "reset", JSON.stringify(declared));
      if (declared.status === 413) assert.equal(declared.body.code, "payload_too_large");
      const chunked = await raw("/v1/enrollments", { token, body: streamed(NINE_MIB), duplex: "half" });
      assert.ok(chunked.status === 413 || chunked.status === "reset", JSON.stringify(chunked));
    }
  });

  test("a flood of 9 MiB bodies, with and without tokens, leaves the runtime up: an Apply in flight completes, and the next requests succeed", async () => {
    const node = nextNode();
    board.board.set(node, "todo");
    const approval = await propose(api, node, { type: "status_change", from: "todo", to: "in_progress" });
    const decided = await approve(api, approval, alice);
    assert.equal(decided.status, 200);
    // The skill holds the Apply until the flood has been sent.
    const { arrived: applyArrived, release } = holdApplies(board);
    const inFlight = api.post("/v1/apply", decided.body.executor_request, AGENT);
    await applyArrived;
    const big = new Uint8Array(NINE_MIB).fill(0x7b);
    const routes = ["/v1/proposals", "/v1/apply", `/v1/approvals/${approval.approval_id}/decision`, "/v1/enrollments", "/v1/approvers/alice/keys"];
    const started = Date.now();
    const flood = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        raw(routes[index % routes.length], {
          token: [AGENT, null, ADMIN, "wrong-token"][index % 4],
          ...(index % 2 === 0 ? { body: big } : { body: streamed(NINE_MIB), duplex: "half" }),
        }),
      ),
    );
    const floodMs = Date.now() - started;
    // Never a restart of the runtime (503) or a fault (500): a 413, or for a declared body a client cut off
    // while still sending.
    assert.ok(flood.every((answer) => answer.status === 413 || answer.status === "reset"), JSON.stringify(flood));
    assert.ok(flood.filter((answer, index) => index % 2 === 1).every((answer) => answer.status === 413), "every streamed body is read to its end and answered 413");
    release();
    board.hold = null;
    const applied = await inFlight;
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    assert.equal(applied.body.outcome, "applied");
    assert.equal(board.appliesFor(approval.approval_id), 1);
    // The runtime is still there for the next requests.
    for (let index = 0; index < 5; index += 1) {
      assert.equal((await api.get("/v1/approvals?limit=5")).status, 200);
    }
    assert.equal((await api.get(`/v1/approvals/${approval.approval_id}`)).body.state, "consumed");
    console.log(`[flood] 20 bodies of 9 MiB (10 declared, 10 streamed; agent, none, admin, wrong tokens) answered in ${floodMs} ms: ${flood.filter((answer) => answer.status === 413).length} x 413, ${flood.filter((answer) => answer.status === "reset").length} closed; the held Apply then applied once and the runtime answered on`);
  });
});

describe("credentials", () => {
  test("a token in the query string is never read, on any route", async () => {
    for (const [method, path] of [["GET", `/v1/approvals?access_token=${INBOX}`], ["POST", `/v1/enrollments?access_token=${ADMIN}`], ["GET", `/v1/audit?token=${ADMIN}`]]) {
      const answer = await raw(path, { method, body: method === "POST" ? JSON.stringify({ approver: "eve" }) : undefined });
      assert.equal(answer.status, 401, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    }
    const feed = await new Promise((resolve) => {
      const socket = new WebSocket(`${guard.url.replace("http", "ws")}/v1/feed?access_token=${INBOX}`);
      socket.on("open", () => {
        socket.close();
        resolve({ opened: true });
      });
      socket.on("unexpected-response", (_request, response) => resolve({ opened: false, status: response.statusCode }));
      socket.on("error", (error) => resolve({ opened: false, error: error.message }));
    });
    assert.deepEqual(feed, { opened: false, status: 401 }, "the feed is not opened by a token in its URL");
  });

  test("a feed ticket opens the feed once, within its minute; a used, unknown or forged ticket is 401", async () => {
    const noToken = await raw("/v1/feed-tickets", { body: "{}" });
    assert.equal(noToken.status, 401);
    const issued = await api.post("/v1/feed-tickets", undefined, INBOX);
    assert.equal(issued.status, 201);
    assert.match(issued.body.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const open = (ticket) =>
      new Promise((resolve) => {
        const socket = new WebSocket(`${guard.url.replace("http", "ws")}/v1/feed?ticket=${encodeURIComponent(ticket)}`);
        socket.on("message", (data) => {
          const message = JSON.parse(String(data));
          socket.close();
          resolve({ opened: true, type: message.type });
        });
        socket.on("unexpected-response", (_request, response) => resolve({ opened: false, status: response.statusCode }));
        socket.on("error", (error) => resolve({ opened: false, error: error.message }));
      });
    // A plain GET cannot open the feed: it is refused before the ticket is used.
    const plain = await raw(`/v1/feed?ticket=${issued.body.ticket}`, { method: "GET" });
    assert.equal(plain.status, 426);
    assert.deepEqual(await open(issued.body.ticket), { opened: true, type: "hello" });
    assert.deepEqual(await open(issued.body.ticket), { opened: false, status: 401 }, "a ticket is used once");
    assert.deepEqual(await open("not-a-ticket"), { opened: false, status: 401 });
    assert.deepEqual(await open(""), { opened: false, status: 401 });
  });
});
