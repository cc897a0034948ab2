// The playbook's acceptance gate against the ungated ACE curator, in the deterministic environment of
// bench/playbook-gate/environment.mjs: held-out (the gate's split) and test accuracy (a split nobody learns
// from) over 48 reflections, and an ablation of the gate's settings. Figures, never assertions:
// `node bench/playbook-gate.mjs` after `npm run build` (STEPS=96 for a longer run).
import { SPLITS, accuracy, runLearning, summarise } from "./playbook-gate/environment.mjs";

const STEPS = Number(process.env.STEPS ?? 48);
const percent = (value) => `${(value * 100).toFixed(1)}%`.padStart(6);

const variants = [
  ["ungated ACE curator (every lesson added)", {}],
  ["gated, tolerance 0 (default)", { gate: {} }],
  ["gated, strict improvement", { gate: { strict: true } }],
  ["gated, tolerance 0.05", { gate: { tolerance: 0.05 } }],
  ["ungated, budget 150 tokens", { maxTokens: 150 }],
  ["gated, budget 150 tokens", { gate: {}, maxTokens: 150 }],
];

console.log(`${STEPS} reflections; ${SPLITS.training.length} training, ${SPLITS.heldOut.length} held-out and ${SPLITS.test.length} test tasks`);
console.log(`no playbook: held-out ${percent(accuracy("", SPLITS.heldOut))}, test ${percent(accuracy("", SPLITS.test))}`);
console.log(`${"variant".padEnd(42)} held-out: start    min  final   test: start    min  final   bullets  prompt chars  evaluations  decisions`);
for (const [name, options] of variants) {
  const run = await runLearning({ steps: STEPS, ...options });
  const { heldOut, test, chars } = summarise(run.curve);
  const decisions = Object.entries(run.decisions).map(([decision, count]) => `${decision} ${count}`).join(", ") || "-";
  console.log(
    `${name.padEnd(42)} ${percent(heldOut.start)} ${percent(heldOut.min)} ${percent(heldOut.final)}   ${percent(test.start)} ${percent(test.min)} ${percent(test.final)}   ${String(run.bullets).padStart(7)}  ${String(chars).padStart(12)}  ${String(run.evaluations).padStart(11)}  ${decisions}`,
  );
}
