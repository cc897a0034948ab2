// The guard's speed against its peers, interleaved in one process: our `Guard.check` (keys read once) and
// `checkConfirmation` (everything per call), the same signature check and 6 steps written directly in
// JavaScript with node:crypto, and cedar-wasm's preparsed `statefulIsAuthorized` on an equivalent policy
// (permit the approved action on the approved node while the approval is unused, unexpired and matching).
// Figures and ratios, never assertions: `node bench/guard.bench.mjs` after `npm run build`.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createRequire } from "node:module";
import { Guard, checkConfirmation, issueConfirmation, requestFor } from "agent-governor/guard";

const cedar = createRequire(import.meta.url)("@cedar-policy/cedar-wasm/nodejs");

const signer = { keyId: "bench", secret: "0123456789abcdef0123456789abcdef-bench" };
const keys = { [signer.keyId]: signer.secret };
const draft = {
  node_id: "node-1",
  proposed_change: { type: "status_change", from: "todo", to: "done" },
  intent: "close the finished task",
  reason: "every checklist item is done",
  ui_action: "approve_button",
};
const confirmation = issueConfirmation(draft, signer);
const request = requestFor(confirmation);
const now = Date.now();

/** The plain-JS peer: the signature over the canonical encoding, then steps 1-6. */
function plainCheck(c, req, at, secret, currentStatus) {
  if (!c || c.confirmation_id !== req.confirmation_id) return { verdict: "rejected", phase: "not_found" };
  const fields = ["agent-governor/confirmation/v1", c.key_id, c.confirmation_id, c.node_id, c.proposed_change.type,
    c.proposed_change.from, c.proposed_change.to, c.intent, c.reason, "human", c.confirmed_at, c.ui_action];
  const expected = createHmac("sha256", secret).update(JSON.stringify(fields)).digest();
  const given = Buffer.from(c.signature, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { verdict: "rejected", phase: "signature_invalid" };
  if (c.consumed) return { verdict: "rejected", phase: "already_consumed" };
  if (c.in_flight) return { verdict: "rejected", phase: "in_flight" };
  const confirmedAt = Date.parse(c.confirmed_at);
  if (confirmedAt > at + 300_000) return { verdict: "rejected", phase: "not_yet_valid" };
  if (at - confirmedAt >= 86_400_000) return { verdict: "rejected", phase: "expired_time" };
  if (c.cancelled) return { verdict: "rejected", phase: "cancelled" };
  if (c.invalidated_at) return { verdict: "rejected", phase: "invalidated" };
  const a = req.apply_request;
  if (c.node_id !== a.node_id) return { verdict: "rejected", phase: "node_mismatch" };
  if (c.proposed_change.to !== a.confirm_status || c.intent !== a.intent || c.reason !== a.reason) {
    return { verdict: "rejected", phase: "change_mismatch" };
  }
  if (c.proposed_change.from !== currentStatus) return { verdict: "reconfirm_required", current_status: currentStatus };
  return { verdict: "pass" };
}

// Cedar cannot verify a signature; its policy covers the state and matching steps only (a smaller job).
cedar.preparsePolicySet("guard", {
  staticPolicies: `permit(principal == Agent::"agent", action == Action::"apply", resource)
    when { context.approved_node == resource.id && context.approved_to == context.requested_to
           && context.approved_from == context.current_status && !context.consumed && !context.cancelled
           && context.age_ms < 86400000 };`,
});
function cedarCheck(c, req, at, currentStatus) {
  return cedar.statefulIsAuthorized({
    principal: { type: "Agent", id: "agent" },
    action: { type: "Action", id: "apply" },
    resource: { type: "Node", id: req.apply_request.node_id },
    context: {
      approved_node: c.node_id, approved_to: c.proposed_change.to, requested_to: req.apply_request.confirm_status,
      approved_from: c.proposed_change.from, current_status: currentStatus, consumed: c.consumed,
      cancelled: c.cancelled, age_ms: at - Date.parse(c.confirmed_at),
    },
    preparsedPolicySetId: "guard",
    entities: [{ uid: { type: "Node", id: req.apply_request.node_id }, attrs: { id: req.apply_request.node_id }, parents: [] }],
  });
}

const guard = new Guard({ keys });
const checkInput = { confirmation, request, now, keys, current_status: "todo" };
const peers = {
  "Guard.check (wasm, keys read once)": () => guard.check(confirmation, request, { now, currentStatus: "todo" }),
  "checkConfirmation (wasm, per-call keys)": () => checkConfirmation(checkInput),
  "plain JS + node:crypto": () => plainCheck(confirmation, request, now, signer.secret, "todo"),
  "cedar-wasm statefulIsAuthorized": () => cedarCheck(confirmation, request, now, "todo"),
};

// Every peer must allow the valid approval before it is timed.
for (const [name, run] of Object.entries(peers)) {
  const answer = run();
  const allowed = answer.verdict === "pass" || (answer.type === "success" && answer.response.decision === "allow");
  if (!allowed) throw new Error(`${name} did not allow the valid approval: ${JSON.stringify(answer)}`);
}

const rounds = 30;
const perRound = 2_000;
const samples = Object.fromEntries(Object.keys(peers).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(peers)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < perRound; i++) run();
    samples[name].push(Number(process.hrtime.bigint() - start) / perRound / 1000);
  }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
};
console.log(`guard benchmark: Node ${process.version}, ${rounds} interleaved rounds of ${perRound} checks (µs per check)\n`);
console.log(`${"peer".padEnd(42)} ${"p50".padStart(8)} ${"p90".padStart(8)}`);
const p50 = {};
for (const [name, values] of Object.entries(samples)) {
  p50[name] = percentile(values, 0.5);
  console.log(`${name.padEnd(42)} ${p50[name].toFixed(2).padStart(8)} ${percentile(values, 0.9).toFixed(2).padStart(8)}`);
}
const guardP50 = p50["Guard.check (wasm, keys read once)"];
console.log("");
console.log(`Guard.check vs plain JS:       ${(guardP50 / p50["plain JS + node:crypto"]).toFixed(2)}x the time (goal: <= 1.00x)`);
console.log(`cedar-wasm vs Guard.check:     ${(p50["cedar-wasm statefulIsAuthorized"] / guardP50).toFixed(1)}x the time (goal: >= 10x)`);
console.log(`checkConfirmation vs Guard:    ${(p50["checkConfirmation (wasm, per-call keys)"] / guardP50).toFixed(2)}x the time`);
