// The edge guard service against a passthrough worker that forwards to the same upstream, both under
// `wrangler dev` (workerd) on this machine, in one run with interleaved rounds:
//   - the rejection path: an Apply of a consumed approval (signature verified, step 2 rejects, no upstream
//     call) against the passthrough forwarding the same request to the upstream;
//   - a full apply: an Apply of a fresh approval (verify, reserve, preview, apply, commit: two upstream calls
//     and three SQLite writes) against the passthrough forwarding one Apply, and against one that makes the
//     same two upstream calls (Preview, then Apply) without the guard.
// Figures and ratios, never assertions: `node bench/edge.bench.mjs` after `npm run build`.
import { startEdgeWorker } from "../tests/js/helpers.mjs";
import { AGENT, approve, client, propose, registerEd25519, startGuardService } from "../tests/js/edge-service-support.mjs";
import { startTaskBoard } from "../edge/task-board.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const REJECTIONS_PER_ROUND = Number(process.env.REJECTIONS ?? 600);
const APPLIES_PER_ROUND = Number(process.env.APPLIES ?? 200);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);

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
    console.log(`${row.name.padEnd(34)} ${row.rps.toFixed(0).padStart(7)} req/s   p50 ${row.p50.toFixed(2).padStart(7)} ms   p99 ${row.p99.toFixed(2).padStart(7)} ms`);
  }
}

const board = await startTaskBoard();
const guard = await startGuardService(board);
const passthrough = await startEdgeWorker({ UPSTREAM: board.url }, { dir: "bench/passthrough" });
const api = guard.client;
const direct = client(passthrough.url);
try {
  const alice = await registerEd25519(api, "alice", "alice-bench");
  let nodeCount = 0;
  const approvedBatch = async (count) => {
    const approvals = [];
    for (let start = 0; start < count; start += 20) {
      approvals.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(20, count - start) }, async () => {
            nodeCount += 1;
            const node = `bench-${nodeCount}`;
            board.board.set(node, "todo");
            const approval = await propose(api, node);
            const { body } = await approve(api, approval, alice);
            return body;
          }),
        )),
      );
    }
    return approvals;
  };
  // The rejection path reuses one consumed approval; the passthrough forwards the same body.
  const [consumed] = await approvedBatch(1);
  await api.post("/v1/apply", consumed.executor_request, AGENT);
  const rejection = consumed.executor_request;
  const forwardedApply = (approval) => ({ ...approval.executor_request.apply_request, source: "ai_agent", confirmation: approval.confirmation });

  const results = { guardReject: [], passReject: [], guardApply: [], passApply: [], passTwoCalls: [] };
  // Warm both isolates.
  await load(Array(50).fill(rejection), (body) => api.post("/v1/apply", body, AGENT));
  await load(Array(50).fill(forwardedApply(consumed)), (body) => direct.post("/v1/apply", body));
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
  }
  const rows = [
    summary("guard: rejection (already_consumed)", results.guardReject),
    summary("passthrough: forward to upstream", results.passReject),
    summary("guard: full apply (Ed25519)", results.guardApply),
    summary("passthrough: forward one Apply", results.passApply),
    summary("passthrough: Preview, then Apply", results.passTwoCalls),
  ];
  console.log(`edge guard vs passthrough, wrangler dev on this machine; ${ROUNDS} interleaved rounds, ${CONCURRENCY} concurrent clients`);
  print(rows);
  console.log(`ratio, rejection path:  ${(rows[0].rps / rows[1].rps).toFixed(2)}x the passthrough's requests per second (goal >= 0.9x)`);
  console.log(`ratio, full apply:      ${(rows[2].rps / rows[3].rps).toFixed(2)}x the passthrough's requests per second (goal >= 0.9x)`);
  console.log(`ratio, full apply:      ${(rows[2].rps / rows[4].rps).toFixed(2)}x a passthrough making the same two upstream calls`);
} catch (error) {
  console.error(`${error.stack}\n--- guard output ---\n${guard.output().slice(-3000)}`);
  process.exitCode = 1;
} finally {
  await guard.dispose();
  passthrough.stop();
  await board.close();
}
