// The governed agent observes the board again before it proposes: when the node moved on while the model was
// judging, the request is withdrawn (nothing is proposed from a state the board has left) and the loop judges
// the board as it is now. The model is scripted: it answers with the first move it is offered, and moves the
// node itself (as another person would) during the first judgement.
import assert from "node:assert/strict";
import { PASSING_VERDICT, completeChecklist, firstChoice, startScriptedModel } from "./support/scripted-model.mjs";
import { after, before, test } from "node:test";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { startGovernedAgent } from "../../examples/agent/agent.mjs";
import { AGENT, startGuardService } from "./edge-service-support.mjs";

let judgements = 0;
let model;
let board;
let guard;
let agent;

before(async () => {
  board = await startTaskBoard({ nodes: { "task-1": "todo" } });
  model = await startScriptedModel((name, schema) => {
    if (name !== "control_judgement") return name === "watcher_verdict" ? PASSING_VERDICT : completeChecklist();
    judgements += 1;
    // Someone else moves task-1 while the first judgement is under way.
    if (judgements === 1) board.board.set("task-1", "in_progress");
    return firstChoice(schema);
  });
  guard = await startGuardService(board);
});

after(async () => {
  agent?.stop();
  await guard?.dispose();
  await board?.close();
  model?.close();
});

test("a move from a state the board has left is withdrawn before it is proposed; the loop judges the board as it is", async () => {
  const lines = [];
  agent = await startGovernedAgent({
    guardUrl: guard.url,
    agentToken: AGENT,
    boardUrl: board.url,
    llm: { url: `http://127.0.0.1:${model.address().port}/v1`, model: "scripted" },
    narrowJudgement: true,
    pollMs: 200,
    log: (line) => lines.push(line),
  });
  let proposals = [];
  for (let tries = 0; tries < 150 && proposals.length === 0; tries += 1) {
    proposals = (await guard.client.get("/v1/approvals?limit=50", AGENT)).body.approvals;
    if (proposals.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.equal(proposals.length, 1, "one proposal, after the second judgement");
  assert.deepEqual(proposals[0].proposed_change, { type: "status_change", from: "in_progress", to: "in_review" }, "proposed from the state the board is in now");
  assert.ok(judgements >= 2, "the loop judged again");
  assert.ok(lines.some((line) => /withdrawn before proposing: Execute: status_change on task-1: todo -> in_progress/.test(line)), lines.join("\n"));
  const records = await agent.logTail();
  assert.ok(records.some((record) => record.event_summary === "approval withdrawn" && /task-1 is in_progress now, not todo/.test(record.cause)), JSON.stringify(records));
});
