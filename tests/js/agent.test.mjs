// The governed agent (examples/agent/agent.mjs) with its judgement held to the board's moves, against the edge guard
// under `wrangler dev` and the demo board. The model is scripted and answers with the first alternative of the
// schema it was sent, so the test asserts what the agent sends (the moves the skill's Preview offers) and that
// the chosen move reaches the guard as a proposal with the Closer's and the Watcher's evidence.
import assert from "node:assert/strict";
import { PASSING_VERDICT, completeChecklist, firstChoice, startScriptedModel } from "./support/scripted-model.mjs";
import { after, before, test } from "node:test";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { startGovernedAgent } from "../../examples/agent/agent.mjs";
import { AGENT, startGuardService } from "./edge-service-support.mjs";

const judgementSchemas = [];
const reviewSchemas = {};

function scriptedModel() {
  return startScriptedModel((name, schema) => {
    if (name === "control_judgement") {
      judgementSchemas.push(schema);
      // The first judgement picks the first move; later ones wait (the last alternative).
      return firstChoice(judgementSchemas.length === 1 ? schema : { oneOf: [schema.oneOf.at(-1)] });
    }
    reviewSchemas[name] = schema;
    return name === "watcher_verdict" ? { ...PASSING_VERDICT, pass: false, issues: ["CRITICAL: scripted"] } : completeChecklist();
  });
}

let model;
let board;
let guard;
let agent;

before(async () => {
  model = await scriptedModel();
  board = await startTaskBoard({ nodes: { "task-1": "todo", "task-2": "in_review", "task-3": "done" } });
  guard = await startGuardService(board);
});

after(async () => {
  agent?.stop();
  await guard?.dispose();
  await board?.close();
  model?.close();
});

test("the judge is sent the moves the skill allows now; the chosen move is proposed to the guard with both reviews as evidence", async () => {
  agent = await startGovernedAgent({
    guardUrl: guard.url,
    agentToken: AGENT,
    boardUrl: board.url,
    llm: { url: `http://127.0.0.1:${model.address().port}/v1`, model: "scripted" },
    narrowJudgement: true,
    pollMs: 200,
  });
  let proposal;
  for (let tries = 0; tries < 150 && !proposal; tries += 1) {
    proposal = (await guard.client.get("/v1/approvals?state=pending", AGENT)).body.approvals?.[0];
    if (!proposal) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.ok(proposal, "a proposal reached the guard");
  const offered = judgementSchemas[0].oneOf.map((choice) => ({
    decision: choice.properties.decision.const,
    node_id: choice.properties.node_id.const ?? null,
    from: choice.properties.from.const ?? null,
    to: choice.properties.to.const ?? null,
  }));
  // task-3 is done: the skill offers no move for it.
  assert.deepEqual(offered, [
    { decision: "act", node_id: "task-1", from: "todo", to: "in_progress" },
    { decision: "act", node_id: "task-2", from: "in_review", to: "done" },
    { decision: "act", node_id: "task-2", from: "in_review", to: "in_progress" },
    { decision: "wait", node_id: null, from: null, to: null },
  ]);
  assert.equal(proposal.node_id, "task-1");
  assert.deepEqual(proposal.request, { what: "Execute: status_change on task-1: todo -> in_progress", impact: "Impact: task-1" }, "the two lines are the machine's, rendered from the move");
  assert.equal(proposal.intent, "Move task-1 from todo to in_progress / task-1 on the board only", "the model's words are its note");
  assert.deepEqual(proposal.proposed_change, { type: "status_change", from: "todo", to: "in_progress" });
  assert.equal(proposal.evidence.closer.complete, true);
  assert.equal(proposal.evidence.closer.checklist[0].description, "the move is one the board allows");
  assert.equal(proposal.evidence.watcher.pass, false);
  assert.deepEqual(proposal.evidence.watcher.issues, ["CRITICAL: scripted"]);
  assert.equal(proposal.evidence.watcher.persona, "Kent Beck");
  assert.equal(board.board.get("task-1"), "todo", "nothing is applied before a person decides");
  // The reviews are narrowed too: short lists, and every free string short.
  assert.equal(reviewSchemas.closer_output.properties.checklist.maxItems, 3);
  assert.equal(reviewSchemas.watcher_verdict.properties.issues.maxItems, 3);
  const strings = [];
  const visit = (node) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes("string") && node.const === undefined && node.enum === undefined) strings.push(node.maxLength);
    Object.values(node).forEach(visit);
  };
  visit([reviewSchemas.closer_output, reviewSchemas.watcher_verdict]);
  assert.ok(strings.length > 5 && strings.every((limit) => typeof limit === "number" && limit <= 400), JSON.stringify(strings));
});
