// The playbook's acceptance gate through the package: decisions, persistence, revert, typed errors that
// leave the playbook unchanged, and the deterministic demonstration (bench/playbook-gate.mjs) in which the
// gated playbook never falls below its starting held-out score while the ungated one does.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GatedPlaybook, MemoryStore, Playbook } from "agent-governor";
import { SPLITS, runLearning, summarise } from "../../bench/playbook-gate/environment.mjs";

const add = (opId, content) => ({ op_id: opId, op: "ADD", section: "lessons", content });

/** Where a scripted evaluation keeps the playbooks it was given (a symbol: not one of its options). */
const CALLS = Symbol("calls");

/** Scores case i 1 when a bullet says `good-{i}`, 0 when one says `bad-{i}`, 0.5 otherwise. */
function scripted() {
  const calls = [];
  return {
    [CALLS]: calls,
    cases: [0, 1, 2, 3],
    evaluate(playbook, cases) {
      calls.push(playbook);
      const has = (text) => playbook.bullets.some((bullet) => bullet.content === text);
      return cases.map((i) => (has(`bad-${i}`) ? 0 : has(`good-${i}`) ? 1 : 0.5));
    },
  };
}

test("a helpful batch is accepted, a regressing one rejected and recorded, and the same batch refused again unevaluated", async () => {
  const gated = new GatedPlaybook();
  const evaluation = scripted();
  const accepted = await gated.propose([add("r1/0", "good-0")], evaluation);
  assert.equal(accepted.decision, "accepted");
  assert.deepEqual([accepted.baseline, accepted.candidate], [0.5, 0.625]);
  assert.match(gated.prompt(), /good-0/);
  assert.equal(evaluation[CALLS].length, 2);
  assert.ok(Array.isArray(evaluation[CALLS][0].bullets), "the evaluator is given the playbook as plain data");

  const before = gated.playbook();
  const rejected = await gated.propose([add("r2/0", "bad-1")], evaluation);
  assert.equal(rejected.decision, "rejected");
  assert.deepEqual([rejected.baseline, rejected.candidate], [0.625, 0.5]);
  assert.deepEqual(gated.playbook(), before);
  const record = gated.toJSON().log.at(-1);
  assert.equal(record.decision, "rejected");
  assert.deepEqual(record.ops, [add("r2/0", "bad-1")]);
  assert.match(record.reason, /fell from 0\.625 to 0\.5/);

  const calls = evaluation[CALLS].length;
  const again = await gated.propose([add("r7/0", "bad-1")], evaluation);
  assert.equal(again.decision, "refused_again");
  assert.equal(again.fingerprint, rejected.fingerprint);
  assert.equal(evaluation[CALLS].length, calls);
});

test("revert restores the exact previous playbook; with none left it throws nothing_to_revert", async () => {
  const gated = new GatedPlaybook();
  const evaluation = scripted();
  await gated.propose([add("r1/0", "good-0")], evaluation);
  const first = gated.playbook();
  await gated.propose([add("r2/0", "good-1")], evaluation);
  assert.notDeepEqual(gated.playbook(), first);
  const record = gated.revert();
  assert.equal(record.decision, "reverted");
  assert.deepEqual(gated.playbook(), first);
  gated.revert();
  assert.deepEqual(gated.playbook(), new Playbook().toJSON());
  assert.throws(() => gated.revert(), { code: "nothing_to_revert" });
});

test("the token budget retires the lowest-scored bullets through the gate", async () => {
  const playbook = {
    version: 1,
    next_id: 2,
    applied_ops: [],
    audit: [],
    bullets: [
      { id: "b-0001", section: "lessons", content: "good-0", helpful: 3, harmful: 0, neutral: 0 },
      { id: "b-0002", section: "lessons", content: "an unhelpful old note", helpful: 0, harmful: 2, neutral: 0 },
    ],
  };
  const maxTokens = Math.ceil(Buffer.byteLength(Playbook.fromJSON(playbook).render()) / 4);
  const gated = new GatedPlaybook({ playbook, policy: { maxTokens } });
  const outcome = await gated.propose([add("r1/0", "good-1")], scripted());
  assert.equal(outcome.decision, "accepted");
  assert.deepEqual(outcome.retired, ["b-0002"]);
  assert.deepEqual(gated.playbook().bullets.map((bullet) => bullet.id), ["b-0001", "b-0003"]);
  assert.ok(Buffer.byteLength(gated.prompt()) / 4 <= maxTokens);
});

test("bad input gets a typed error and leaves the playbook unchanged", async () => {
  const gated = new GatedPlaybook();
  await gated.propose([add("r1/0", "good-0")], scripted());
  const before = gated.toJSON();
  const answering = (answer) => ({ cases: [0, 1, 2, 3], evaluate: () => answer });
  const cases = [
    [[add("r2/0", "x")], answering([0.5, NaN, 0.5, 0.5]), "invalid_scores"],
    [[add("r2/0", "x")], answering([0.5, 0.5]), "invalid_scores"],
    [[add("r2/0", "x")], answering([2, 0, 0, 0]), "invalid_scores"],
    [[add("r2/0", "x")], answering("0.5"), "invalid_scores"],
    [[add("r2/0", "x")], answering(Promise.reject(new Error("evaluator down"))), "evaluation_failed"],
    [[add("r2/0", "x")], { cases: [1], evaluate: () => { throw new Error("boom"); } }, "evaluation_failed"],
    [[add("r2/0", "x")], { cases: "all", evaluate: () => [] }, "invalid_input"],
    [[add("r2/0", "x")], { cases: [], evaluate: () => [] }, "invalid_input"],
    [[add("r2/0", "x")], { cases: [1] }, "invalid_port"],
    [Array.from({ length: 65 }, (_, i) => add(`r/${i}`, `lesson ${i}`)), scripted(), "invalid_input"],
    [[{ op_id: "r/0", op: "EXPLODE" }], scripted(), "invalid_input"],
    ["not a list", scripted(), "invalid_input"],
  ];
  for (const [ops, evaluation, code] of cases) {
    let error;
    try {
      await gated.propose(ops, evaluation);
    } catch (thrown) {
      error = thrown;
    }
    assert.equal(error?.code, code, `${JSON.stringify(ops).slice(0, 60)}: ${error?.message}`);
    assert.deepEqual(gated.toJSON(), before);
  }
  const forged = { ...new GatedPlaybook().toJSON(), policy: { tolerance: 5, strict: false, maxTokens: 4000, maxBatch: 64 } };
  assert.throws(() => GatedPlaybook.fromJSON(forged), { code: "invalid_input", path: "gate.policy.tolerance" });
  const store = new MemoryStore();
  await store.put("gated-playbook/forged", JSON.stringify({ format: "agent-governor/gated-playbook", format_version: 1, gate: forged }));
  await assert.rejects(GatedPlaybook.load(store, "forged"), { code: "store_failed" });
  const never = { cases: [0], evaluate: () => new Promise(() => {}), timeoutMs: 50 };
  await assert.rejects(gated.propose([add("r3/0", "y")], never), { code: "evaluation_failed", message: /within 50 ms/ });
  assert.deepEqual(gated.toJSON(), before);
  assert.throws(() => gated.propose([add("r3/0", "y")], { ...never, timeoutMs: 0 }), { code: "invalid_input", path: "evaluation.timeoutMs" });
  assert.throws(() => new GatedPlaybook({ policy: { tolerance: -1 } }), { code: "invalid_input", path: "setup.policy.tolerance" });
  assert.throws(() => new GatedPlaybook({ policy: { maxTokens: 0 } }), { code: "invalid_input" });
  assert.throws(() => new GatedPlaybook({ policy: { tolerance: "0.1" } }), { code: "invalid_input" });
});

test("two overlapping proposals: the second to finish gets conflict and changes nothing", async () => {
  const gated = new GatedPlaybook();
  let release;
  const slow = { cases: [0], evaluate: (playbook) => new Promise((resolve) => { release = () => resolve([playbook.bullets.length ? 1 : 0]); }) };
  const first = gated.propose([add("r1/0", "slow lesson")], slow);
  await new Promise((resolve) => setTimeout(resolve, 10));
  const second = await gated.propose([add("r2/0", "fast lesson")], { cases: [0], evaluate: (playbook) => [playbook.bullets.length ? 1 : 0] });
  assert.equal(second.decision, "accepted");
  release();
  await new Promise((resolve) => setTimeout(resolve, 10));
  release();
  await assert.rejects(first, { code: "conflict" });
  assert.deepEqual(gated.playbook().bullets.map((bullet) => bullet.content), ["fast lesson"]);
});

test("load and save through a store by compare-and-swap; a plain playbook of the same name is the start", async () => {
  const store = new MemoryStore();
  const plain = new Playbook();
  plain.applyDeltas([add("p/0", "an earlier lesson")]);
  await plain.save(store, "support");
  const gated = await GatedPlaybook.load(store, "support", { tolerance: 0.1 });
  assert.deepEqual(gated.playbook(), plain.toJSON());
  assert.equal(gated.toJSON().policy.tolerance, 0.1);
  await gated.propose([add("r1/0", "good-0")], scripted());
  await gated.save(store, "support");
  const again = await GatedPlaybook.load(store, "support");
  assert.deepEqual(again.toJSON(), gated.toJSON());
  const other = await GatedPlaybook.load(store, "support");
  await again.propose([add("r2/0", "good-1")], scripted());
  await again.save(store, "support");
  await assert.rejects(other.save(store, "support"), { code: "conflict" });
  await store.put("gated-playbook/broken", "{not json");
  await assert.rejects(GatedPlaybook.load(store, "broken"), { code: "store_failed" });
});

test("the demonstration: gated never below its starting held-out score, ungated falls below it", async () => {
  const ungated = summarise((await runLearning({ steps: 48 })).curve);
  const gatedRun = await runLearning({ steps: 48, gate: {} });
  const gated = summarise(gatedRun.curve);
  assert.ok(gated.heldOut.min >= gated.heldOut.start, JSON.stringify(gated));
  assert.ok(ungated.heldOut.min < ungated.heldOut.start, JSON.stringify(ungated));
  assert.ok(gatedRun.decisions.rejected > 0 && gatedRun.decisions.accepted > 0, JSON.stringify(gatedRun.decisions));
  assert.equal(SPLITS.heldOut.length, 24);
});
