// Executor figures: the pure check and a full execute (MemoryStore, in-process skill), per second, and
// the ratio against a baseline: the same signature check and 6 steps written directly in JavaScript with
// node:crypto. The ratio is the price of the wasm boundary and the JSON crossing. Also prints the shipped
// .wasm size. Figures, not assertions: run with `node bench/executor.bench.mjs` after `npm run build`.
import { createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { Executor, MemoryStore, checkConfirmation, issueConfirmation, requestFor, saveConfirmation } from "agent-governor";

const signer = { keyId: "bench", secret: "0123456789abcdef0123456789abcdef-bench" };
const keys = { [signer.keyId]: signer.secret };
const draft = {
  node_id: "node-1",
  proposed_change: { type: "status_change", from: "todo", to: "done" },
  intent: "bench",
  reason: "bench",
  ui_action: "approve_button",
};

function measure(label, iterations, body) {
  for (let i = 0; i < Math.min(1000, iterations); i++) body(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) body(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const perSecond = iterations / seconds;
  console.log(`${label.padEnd(46)} ${perSecond.toFixed(0).padStart(9)} ops/s  ${((seconds / iterations) * 1e6).toFixed(2).padStart(8)} µs/op`);
  return perSecond;
}

async function measureAsync(label, iterations, body) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await body(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`${label.padEnd(46)} ${(iterations / seconds).toFixed(0).padStart(9)} ops/s  ${((seconds / iterations) * 1e6).toFixed(2).padStart(8)} µs/op`);
}

/** Baseline: the signature and steps 1-6 in plain JavaScript. */
function baselineCheck(confirmation, request, now, secret, currentStatus) {
  const c = confirmation;
  const fields = ["agent-governor/confirmation/v1", c.key_id, c.confirmation_id, c.node_id, c.proposed_change.type,
    c.proposed_change.from, c.proposed_change.to, c.intent, c.reason, "human", c.confirmed_at, c.ui_action];
  const expected = createHmac("sha256", secret).update(JSON.stringify(fields)).digest();
  const given = Buffer.from(c.signature, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { verdict: "rejected", phase: "signature_invalid" };
  if (c.consumed) return { verdict: "rejected", phase: "already_consumed" };
  if (now - Date.parse(c.confirmed_at) >= 86_400_000) return { verdict: "rejected", phase: "expired_time" };
  if (c.cancelled) return { verdict: "rejected", phase: "cancelled" };
  if (c.node_id !== request.apply_request.node_id) return { verdict: "rejected", phase: "node_mismatch" };
  if (c.proposed_change.to !== request.apply_request.confirm_status) return { verdict: "rejected", phase: "change_mismatch" };
  if (c.proposed_change.from !== currentStatus) return { verdict: "reconfirm_required" };
  return { verdict: "pass" };
}

const confirmation = issueConfirmation(draft, signer);
const request = requestFor(confirmation);
const now = Date.now();
const input = { confirmation, request, now, keys, current_status: "todo" };
if (checkConfirmation(input).verdict !== "pass" || baselineCheck(confirmation, request, now, signer.secret, "todo").verdict !== "pass") {
  throw new Error("the two checks disagree on a valid confirmation");
}

console.log("agent-governor Executor benchmark (Node", process.version + ")\n");
const ours = measure("checkConfirmation (wasm, signature + 6 steps)", 50_000, () => checkConfirmation(input));
const baseline = measure("baseline: same check in JS + node:crypto", 50_000, () => baselineCheck(confirmation, request, now, signer.secret, "todo"));
console.log(`ratio wasm/baseline time per check: ${(baseline / ours).toFixed(2)}x\n`);

measure("issueConfirmation (uuid v4 + HMAC)", 50_000, () => issueConfirmation(draft, signer));

const store = new MemoryStore();
const skill = {
  preview: () => ({ current_status: "todo" }),
  apply: () => ({ status: 200, body: { applied: true } }),
};
const executor = new Executor({ store, skill, keys });
const approvals = [];
for (let i = 0; i < 20_000; i++) {
  const approval = issueConfirmation(draft, signer);
  await saveConfirmation(store, approval);
  approvals.push(requestFor(approval));
}
await measureAsync("Executor.execute (MemoryStore, applied)", approvals.length, (i) => executor.execute(approvals[i]));
await measureAsync("Executor.execute again (already_consumed)", approvals.length, (i) => executor.execute(approvals[i]));

const wasm = readFileSync(new URL("../dist/wasm/agent_governor_full_bg.wasm", import.meta.url));
console.log(`\nshipped .wasm: ${wasm.length} bytes raw, ${gzipSync(wasm, { level: 9 }).length} bytes gzip`);
