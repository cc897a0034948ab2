// The edge guard service against a passthrough worker that forwards to the same upstream, both under
// `wrangler dev` (workerd) on this machine, in one run with interleaved rounds:
//   - the rejection path: an Apply of a consumed approval (signature verified, step 2 rejects, no upstream
//     call) against the passthrough forwarding the same request to the upstream;
//   - a full apply: an Apply of a fresh approval (verify, reserve, preview, apply, commit: two upstream calls
//     and three SQLite writes) against the passthrough forwarding one Apply, against one that makes the
//     same two upstream calls (Preview, then Apply) without the guard, and against the fair peer: a plain
//     JavaScript Durable Object doing the same exactly-once protocol and storage writes with no WebAssembly
//     (bench/plain-inbox);
//   - one inbox against four: the same applies spread over four inboxes (four guard services, four objects of
//     the peer routed by name).
// Figures and ratios, never assertions: `node bench/edge.bench.mjs` after `npm run build`.
import { startEdgeWorker } from "../tests/js/helpers.mjs";
import { AGENT, approve, client, propose, registerEd25519, startGuardService } from "../tests/js/edge-service-support.mjs";
import { signConfirmation } from "agent-governor/approver";
import { startTaskBoard } from "../examples/task-board.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const REJECTIONS_PER_ROUND = Number(process.env.REJECTIONS ?? 600);
const APPLIES_PER_ROUND = Number(process.env.APPLIES ?? 200);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const INBOXES = Number(process.env.INBOXES ?? 4);

/** Runs `requests` with CONCURRENCY closed-loop clients; returns requests per second and latencies (ms). */
async function load(requests, send) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next];
        next += 1;
        const begin = performance.now();
        const response = await send(request);
        if (response.status >= 500) throw new Error(`HTTP ${response.status}`);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { rps: requests.length / seconds, latencies };
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

function summary(name, runs) {
  const rps = runs.map((run) => run.rps).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const latencies = runs.flatMap((run) => run.latencies);
  return { name, rps, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

function print(rows) {
  for (const row of rows) {
    console.log(`${row.name.padEnd(44)} ${row.rps.toFixed(0).padStart(7)} req/s   p50 ${row.p50.toFixed(2).padStart(7)} ms   p99 ${row.p99.toFixed(2).padStart(7)} ms`);
  }
}

const board = await startTaskBoard();
const guards = [];
for (let index = 0; index < INBOXES; index += 1) guards.push(await startGuardService(board));
const guard = guards[0];
const passthrough = await startEdgeWorker({ UPSTREAM: board.url }, { dir: "bench/passthrough" });
const plain = await startEdgeWorker({ UPSTREAM: board.url }, { dir: "bench/plain-inbox" });
const api = guard.client;
const direct = client(passthrough.url);
const peer = client(plain.url);
try {
  const approvers = await Promise.all(guards.map((service, index) => registerEd25519(service.client, "alice", `alice-bench-${index}`)));
  const alice = approvers[0];
  let nodeCount = 0;
  const nextBoardNode = () => {
    nodeCount += 1;
    const node = `bench-${nodeCount}`;
    board.board.set(node, "todo");
    return node;
  };
  /** `count` approvals decided in the guard service `inbox` (round-robin over the services with `spread`). */
  const approvedBatch = async (count, spread = false) => {
    const approvals = [];
    for (let start = 0; start < count; start += 20) {
      approvals.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(20, count - start) }, async (_, offset) => {
            const inbox = spread ? (start + offset) % guards.length : 0;
            const service = guards[inbox].client;
            const approval = await propose(service, nextBoardNode());
            const { body } = await approve(service, approval, approvers[inbox]);
            return { ...body, inbox };
          }),
        )),
      );
    }
    return approvals;
  };
  /** `count` approvals signed by alice and seeded into the plain-JavaScript peer's objects (`inboxes` of them). */
  const peerBatch = async (count, inboxes = 1) => {
    const requests = [];
    for (let index = 0; index < count; index += 1) {
      const node = nextBoardNode();
      const confirmation = await signConfirmation(
        { confirmation_id: crypto.randomUUID(), node_id: node, proposed_change: { type: "status_change", from: "todo", to: "in_progress" }, intent: `start ${node}`, reason: "checked the board", confirmed_by: "human", confirmed_at: new Date().toISOString(), ui_action: "approve_button" },
        alice,
      );
      const inbox = `inbox-${index % inboxes}`;
      const seeded = await peer.call("POST", "/v1/seed", { key_id: alice.keyId, public_key: alice.publicKey.public_key, confirmation }, AGENT, { headers: { "x-inbox": inbox } });
      if (seeded.status !== 200) throw new Error(`seeding the peer: ${seeded.status}`);
      requests.push({ inbox, body: { confirmation_id: confirmation.confirmation_id, apply_request: { node_id: node, confirm_status: "in_progress" } } });
    }
    return requests;
  };
  // The rejection path reuses one consumed approval; the passthrough forwards the same body.
  const [consumed] = await approvedBatch(1);
  await api.post("/v1/apply", consumed.executor_request, AGENT);
  const rejection = consumed.executor_request;
  const forwardedApply = (approval) => ({ ...approval.executor_request.apply_request, source: "ai_agent", confirmation: approval.confirmation });

  /** One Apply through the peer, which must apply it (it does the same work, or the comparison means nothing). */
  const peerApply = async ({ inbox, body }) => {
    const response = await peer.call("POST", "/v1/apply", body, AGENT, { headers: { "x-inbox": inbox } });
    if (response.body.outcome !== "applied") throw new Error(`the peer did not apply: ${JSON.stringify(response.body)}`);
    return response;
  };
  const results = { guardReject: [], passReject: [], guardApply: [], passApply: [], passTwoCalls: [], peerApply: [], guardSpread: [], peerSpread: [] };
  // Warm both isolates.
  await load(Array(50).fill(rejection), (body) => api.post("/v1/apply", body, AGENT));
  await load(Array(50).fill(forwardedApply(consumed)), (body) => direct.post("/v1/apply", body));
  await load(await peerBatch(50, INBOXES), peerApply);
  for (const service of guards.slice(1)) await load(Array(20).fill(rejection), (body) => service.client.post("/v1/apply", body, AGENT));
  for (let round = 0; round < ROUNDS; round += 1) {
    results.guardReject.push(await load(Array(REJECTIONS_PER_ROUND).fill(rejection), (body) => api.post("/v1/apply", body, AGENT)));
    results.passReject.push(await load(Array(REJECTIONS_PER_ROUND).fill(forwardedApply(consumed)), (body) => direct.post("/v1/apply", body)));
    const forGuard = await approvedBatch(APPLIES_PER_ROUND);
    const forPassthrough = await approvedBatch(APPLIES_PER_ROUND);
    const forTwoCalls = await approvedBatch(APPLIES_PER_ROUND);
    const guardRun = await load(forGuard.map((approval) => approval.executor_request), (body) => api.post("/v1/apply", body, AGENT));
    results.guardApply.push(guardRun);
    results.passApply.push(await load(forPassthrough.map(forwardedApply), (body) => direct.post("/v1/apply", body)));
    results.passTwoCalls.push(await load(forTwoCalls.map(forwardedApply), (body) => direct.post("/v1/preview-and-apply", body)));
    const applied = forGuard.filter((approval) => board.appliesFor(approval.approval_id) === 1).length;
    if (applied !== APPLIES_PER_ROUND) throw new Error(`round ${round}: ${applied} of ${APPLIES_PER_ROUND} applied once`);
    const peerRun = await load(await peerBatch(APPLIES_PER_ROUND), peerApply);
    results.peerApply.push(peerRun);
    const spread = await approvedBatch(APPLIES_PER_ROUND, true);
    results.guardSpread.push(await load(spread, (approval) => guards[approval.inbox].client.post("/v1/apply", approval.executor_request, AGENT)));
    results.peerSpread.push(await load(await peerBatch(APPLIES_PER_ROUND, INBOXES), peerApply));
  }
  const rows = [
    summary("guard: rejection (already_consumed)", results.guardReject),
    summary("passthrough: forward to upstream", results.passReject),
    summary("guard: full apply (Ed25519)", results.guardApply),
    summary("passthrough: forward one Apply", results.passApply),
    summary("passthrough: Preview, then Apply", results.passTwoCalls),
    summary("peer: plain-JS Durable Object, full apply", results.peerApply),
    summary(`guard: full apply over ${INBOXES} inboxes`, results.guardSpread),
    summary(`peer: full apply over ${INBOXES} objects`, results.peerSpread),
  ];
  console.log(`edge guard vs passthrough, wrangler dev on this machine; ${ROUNDS} interleaved rounds, ${CONCURRENCY} concurrent clients`);
  print(rows);
  console.log(`ratio, rejection path:  ${(rows[0].rps / rows[1].rps).toFixed(2)}x the passthrough's requests per second (goal >= 0.9x)`);
  console.log(`ratio, full apply:      ${(rows[2].rps / rows[3].rps).toFixed(2)}x the passthrough's requests per second (goal >= 0.9x)`);
  console.log(`ratio, full apply:      ${(rows[2].rps / rows[4].rps).toFixed(2)}x a passthrough making the same two upstream calls`);
  console.log(`ratio, full apply:      ${(rows[2].rps / rows[5].rps).toFixed(2)}x the plain-JavaScript Durable Object doing the same protocol (goal >= 0.9x)`);
  console.log(`${INBOXES} inboxes vs 1:        guard ${(rows[6].rps / rows[2].rps).toFixed(2)}x, peer ${(rows[7].rps / rows[5].rps).toFixed(2)}x the requests per second of one`);
} catch (error) {
  console.error(`${error.stack}\n--- guard output ---\n${guard.output().slice(-3000)}`);
  process.exitCode = 1;
} finally {
  for (const service of guards) await service.dispose();
  passthrough.stop();
  plain.stop();
  await board.close();
}
