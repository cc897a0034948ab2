// A small deterministic task environment for the playbook's acceptance gate: a scripted "model" whose answers
// depend on the playbook bullets it is given, a scripted reflector whose lessons are sometimes right,
// sometimes misleading and sometimes filler, and three splits (training tasks the reflector learns from, the
// gate's held-out set, and a test set neither sees). Everything is a pure function of the step number: two
// runs print the same figures.
import { GatedPlaybook, Playbook } from "agent-governor";

export const TOPICS = ["refund", "shipping", "billing", "access", "privacy", "outage", "pricing", "account"];
const RIGHT = ["ledger", "carrier", "invoice", "role", "retention", "status-page", "catalogue", "profile"];
const WRONG = ["apology", "discount", "estimate", "reset", "export", "restart", "guess", "delete"];

export const ruleFor = (topic, right) =>
  `For ${TOPICS[topic]} tickets, answer with the ${(right ? RIGHT : WRONG)[topic]} method.`;

/** A 32-bit integer hash (xorshift-multiply) of `n`, as a number in [0, 1). */
function unit(n) {
  let x = (n + 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
}

/** 96 tasks: a topic each, and a difficulty that decides the answer when the playbook says nothing. */
export const TASKS = Array.from({ length: 96 }, (_, id) => ({ id, topic: id % TOPICS.length, difficulty: unit(id) }));
/** Every split has every topic: task `id` is in block `floor(id / 8) % 4` (two blocks of training). */
const block = (task) => Math.floor(task.id / TOPICS.length) % 4;
export const SPLITS = {
  training: TASKS.filter((task) => block(task) < 2),
  heldOut: TASKS.filter((task) => block(task) === 2),
  test: TASKS.filter((task) => block(task) === 3),
};

/** The scripted model: a misleading rule for the task's topic makes it answer wrong, the right rule right;
 * with neither, it gets the easier half right. */
export function answersRight(prompt, task) {
  if (prompt.includes(ruleFor(task.topic, false))) return false;
  if (prompt.includes(ruleFor(task.topic, true))) return true;
  return task.difficulty < 0.5;
}

export const scores = (prompt, tasks) => tasks.map((task) => (answersRight(prompt, task) ? 1 : 0));
export const accuracy = (prompt, tasks) => scores(prompt, tasks).reduce((a, b) => a + b, 0) / tasks.length;

/** The scripted reflector's lesson after training step `step`: 40% misleading, 45% right, 15% filler. */
export function lessonAt(step) {
  const task = SPLITS.training[step % SPLITS.training.length];
  const draw = unit(1000 + step);
  const key_insight =
    draw < 0.4 ? ruleFor(task.topic, false) : draw < 0.85 ? ruleFor(task.topic, true) : `General note ${step}: keep the answer short and polite.`;
  return { reasoning: "scripted", error_identification: "scripted", root_cause_analysis: "scripted", correct_approach: "scripted", key_insight };
}

/** The rendered prompt the judge would get from a plain playbook within `maxChars`. */
function ungatedPrompt(playbook, maxChars) {
  playbook.enforceBudget({ maxChars });
  return playbook.render();
}

/**
 * Runs `steps` reflections. `gate`: undefined for the ungated ACE curator (every lesson added), or a
 * GatePolicy. Returns the held-out and test accuracy after each step and what the gate did.
 */
export async function runLearning({ steps = 48, gate, maxTokens = 4000 } = {}) {
  const curve = [];
  const decisions = {};
  let evaluations = 0;
  const evaluation = {
    cases: SPLITS.heldOut.map((task) => task.id),
    evaluate(playbook, cases) {
      evaluations += 1;
      const prompt = new GatedPlaybook({ playbook, policy: { maxTokens } }).prompt();
      return cases.map((id) => (answersRight(prompt, TASKS[id]) ? 1 : 0));
    },
  };
  const gated = gate ? new GatedPlaybook({ policy: { ...gate, maxTokens } }) : undefined;
  const plain = gate ? undefined : new Playbook();
  const prompt = () => (gated ? gated.prompt() : ungatedPrompt(plain, maxTokens * 4));
  const measure = (step) => {
    const text = prompt();
    curve.push({ step, heldOut: accuracy(text, SPLITS.heldOut), test: accuracy(text, SPLITS.test), chars: text.length });
  };
  measure(0);
  for (let step = 0; step < steps; step += 1) {
    const insights = [lessonAt(step)];
    if (gated) {
      const ops = Playbook.fromJSON(gated.playbook()).curate(`step-${step}`, insights);
      const outcome = await gated.propose(ops, evaluation);
      decisions[outcome.decision] = (decisions[outcome.decision] ?? 0) + 1;
    } else {
      plain.applyDeltas(plain.curate(`step-${step}`, insights));
    }
    measure(step + 1);
  }
  const bullets = gated ? gated.playbook().bullets.length : plain.toJSON().bullets.length;
  return { curve, decisions, evaluations, bullets };
}

/** Start, lowest and final figures of a learning curve. */
export function summarise(curve) {
  const pick = (key) => ({
    start: curve[0][key],
    min: Math.min(...curve.map((point) => point[key])),
    final: curve.at(-1)[key],
  });
  return { heldOut: pick("heldOut"), test: pick("test"), chars: curve.at(-1).chars };
}
