// The control loop (seed 002) through the built package in Node: a scripted judge drives whole scenarios
// through `governor.loop(...)`, with the Executor applying state changes and the Closer, the Watcher and the
// Reflector in the loop. Each test names the seed rule it shows.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  MemoryStore,
  controlStep,
  createControlLoop,
  createGovernor,
  executionLogLine,
  judgeNextAction,
  logTail,
  memoryLogStore,
  newControlState,
  otelLogRecord,
  retainLog,
} from "agent-governor";

const NULLS = {
  reply: null, action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null,
  setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null,
};
const reply = (text) => ({ ...NULLS, decision: "reply", reply: text });
const wait = () => ({ ...NULLS, decision: "wait" });
const moveToDone = (node = "T-1") => ({
  ...NULLS, decision: "act", action_type: "status_change", summary: `move ${node} from review to done`,
  impact_scope: `ticket ${node} on the board`, node_id: node, from: "review", to: "done",
});

/** A judge that answers from a script, one answer per judgement, recording every prompt and option. */
function scriptedJudge(...answers) {
  const judge = (prompt, options) => {
    judge.calls.push({ prompt, options });
    const next = answers.shift() ?? wait();
    return typeof next === "function" ? next(options) : { structuredOutput: next };
  };
  judge.calls = [];
  return judge;
}

/** A board skill: counts Applies; answers `status` (200 applies). */
function boardSkill(status = 200) {
  const skill = {
    applies: [],
    current: "review",
    preview: () => ({ current_status: skill.current, valid_transitions: [{ status: "done", label: "Done" }] }),
    apply: (request) => {
      skill.applies.push(request);
      if (status === 200) skill.current = request.confirm_status;
      return status === 200 ? { status, body: { applied: true } } : { status, body: { error: "board down" } };
    },
  };
  return skill;
}

function harness(config = {}) {
  const chat = [];
  const approvals = [];
  const saved = [];
  const logs = memoryLogStore();
  const skill = config.skill ?? boardSkill();
  const loop = createControlLoop({
    goal: "keep the task board tidy",
    skills: { status_change: skill },
    chat: (text) => chat.push(text),
    approve: (request) => { approvals.push(request); },
    logs,
    storage: { save: (state) => saved.push(state) },
    ...config.loop,
  });
  return { loop, chat, approvals, saved, logs, skill };
}

const executionLines = (logs) => logs.read("execution").split("\n").filter(Boolean).map((line) => JSON.parse(line));

test("a conversation reply is the one action approved automatically (会話応答のみ自動承認)", async () => {
  const judge = scriptedJudge(reply("The board is tidy."));
  const { loop, chat, approvals } = harness({ loop: { judge } });
  loop.observe({ external: { tickets: 3 } });
  await loop.settled();
  assert.deepEqual(approvals, []);
  assert.ok(chat.includes("The board is tidy."));
  assert.equal(loop.state().mode, "idle");
  // The judge got the strict schema, an AbortSignal and the goal in its prompt.
  assert.equal(judge.calls[0].options.schemaName, "control_judgement");
  assert.ok(judge.calls[0].options.signal instanceof AbortSignal);
  assert.match(judge.calls[0].prompt, /keep the task board tidy/);
});

test("an approved change is applied once through the Executor; the request is two lines; y again does nothing", async () => {
  const judge = scriptedJudge(moveToDone());
  const { loop, chat, approvals, logs, skill } = harness({ loop: { judge } });
  loop.observe({ external: { tickets: [{ id: "T-1", status: "review" }] } });
  await loop.settled();
  assert.equal(approvals.length, 1);
  // The machine states what will run, from the action itself; the model's words are a labelled note.
  assert.deepEqual(approvals[0].lines, ["Execute: status_change on T-1: review -> done", "Impact: T-1"]);
  assert.equal(approvals[0].note, "move T-1 from review to done / ticket T-1 on the board");
  assert.equal(loop.state().mode, "awaiting_approval");
  assert.equal(skill.applies.length, 0, "nothing runs before the answer");
  loop.answer("  Y ", approvals[0].requestId);
  await loop.settled();
  assert.equal(skill.applies.length, 1);
  assert.equal(skill.applies[0].confirmation.ui_action, "chat_y", "the human's y is the signed confirmation");
  assert.equal(skill.applies[0].confirmation.proposed_change.to, "done");
  assert.throws(() => loop.answer("y", approvals[0].requestId), { name: "AgentGovernorError", code: "answer_refused" });
  await loop.settled();
  assert.equal(skill.applies.length, 1, "exactly once");
  assert.ok(chat.some((line) => /status_change on T-1: review -> done: done/.test(line)), chat.join("\n"));
  const [line] = executionLines(logs);
  assert.deepEqual(Object.keys(line), ["time", "event_summary", "cause", "impact_scope"]);
  assert.equal(line.impact_scope, "T-1");
});

test("anything but y or n asks again and never defaults; n stops and ends the task (拒否時は停止・終了)", async () => {
  const { loop, approvals, skill, chat } = harness({ loop: { judge: scriptedJudge(moveToDone()) } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  for (const answer of ["yes", "ok", "", "true"]) loop.answer(answer, approvals[0].requestId);
  await loop.settled();
  assert.equal(approvals.length, 3, "asked again, at most maxInvalidAnswers (3) times in all");
  assert.ok(chat.some((line) => /answers were neither y nor n; waiting for y or n/.test(line)), chat.join("\n"));
  assert.equal(loop.state().mode, "awaiting_approval");
  loop.answer("n", approvals[0].requestId);
  await loop.settled();
  assert.equal(loop.state().mode, "stopped");
  assert.equal(skill.applies.length, 0);
  assert.ok(chat.some((line) => line.startsWith("Declined")));
});

test("a decline's reason reaches the judge as the person's words; the same change is not asked for again until something changed", async () => {
  const judge = scriptedJudge(moveToDone(), moveToDone(), moveToDone());
  const { loop, approvals, skill, chat } = harness({ loop: { judge } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  assert.throws(() => loop.decline(approvals[0].requestId, 42), { code: "invalid_input", path: "reason" });
  assert.throws(() => loop.decline("another-request", "no"), { code: "answer_refused" });
  loop.decline(approvals[0].requestId, "not before Friday's release");
  await loop.settled();
  assert.equal(loop.state().mode, "stopped");
  assert.ok(chat.some((line) => line.includes("\u201cnot before Friday's release\u201d")), chat.join("\n"));
  assert.deepEqual(loop.state().declined.map((declined) => declined.reason), ["not before Friday's release"]);
  loop.say("/dev resume");
  await loop.settled();
  // The judge read the person's words, quoted, in its prompt.
  assert.match(judge.calls[1].prompt, /What people declined/);
  assert.match(judge.calls[1].prompt, /the person said: "not before Friday's release"/);
  // It proposed the same change anyway: nobody is asked, nothing runs, the loop waits for a change.
  assert.equal(approvals.length, 1);
  assert.equal(loop.state().mode, "idle");
  assert.ok(chat.some((line) => line.startsWith("Not asking again")), chat.join("\n"));
  // The board changed: the same change may be asked for again.
  loop.observe({ external: { tickets: 2 } });
  await loop.settled();
  assert.equal(approvals.length, 2);
  assert.equal(skill.applies.length, 0);
});

test("a person's reply interrupts nothing and is read, as their words, at the next judgement", async () => {
  const judge = scriptedJudge(moveToDone(), wait());
  const { loop, approvals, skill } = harness({ loop: { judge } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  assert.throws(() => loop.reply("  "), { code: "invalid_input", path: "text" });
  assert.throws(() => loop.reply(7), { code: "invalid_input", path: "text" });
  loop.reply("the release is on Friday");
  await loop.settled();
  assert.equal(loop.state().mode, "awaiting_approval", "the request still waits");
  assert.equal(judge.calls.length, 1);
  loop.answer("y", approvals[0].requestId);
  await loop.settled();
  assert.equal(skill.applies.length, 1);
  // Idle after the Apply with a reply unread: the judge is asked at once and reads it.
  assert.equal(judge.calls.length, 2);
  assert.match(judge.calls[1].prompt, /the release is on Friday/);
  assert.equal(loop.state().unread_replies.length, 0);
});

test("a change edited before approval runs as edited, once, and the loop says how", async () => {
  const judge = scriptedJudge(moveToDone("T-1"));
  const { loop, approvals, skill, chat } = harness({ loop: { judge } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  assert.throws(() => loop.approveEdited(approvals[0].requestId, "to done"), { code: "invalid_input", path: "parameters" });
  assert.throws(() => loop.approveEdited(approvals[0].requestId, { node_id: "T-1", deep: JSON.parse("[".repeat(40) + "]".repeat(40)) }), { code: "answer_refused" });
  assert.equal(loop.state().mode, "awaiting_approval");
  loop.approveEdited(approvals[0].requestId, { node_id: "T-1", from: "review", to: "done" });
  await loop.settled();
  // The edit equal to what was shown is a plain y; the skill ran once.
  assert.equal(skill.applies.length, 1);
  assert.equal(skill.applies[0].confirmation.ui_action, "chat_y");
  assert.equal(loop.state().last_result.action.parameters.to, "done");

  const edited = harness({ loop: { judge: scriptedJudge(moveToDone("T-2")), approve: () => ({ edited: { node_id: "T-3", from: "review", to: "done" } }) } });
  edited.loop.observe({ external: { tickets: 1 } });
  await edited.loop.settled();
  assert.equal(edited.skill.applies.length, 1);
  // The Executor applied the edited change, signed as the person's edited y.
  assert.equal(edited.skill.applies[0].confirmation.node_id, "T-3");
  assert.equal(edited.skill.applies[0].confirmation.ui_action, "edited_y");
  assert.equal(edited.loop.state().last_result.action.parameters.node_id, "T-3");
  assert.ok(edited.chat.some((line) => line.startsWith("Edited by a person") && line.includes("T-3")), edited.chat.join("\n"));

  // An edit from the port the core refuses (too deep to show a person) is said through onError; nothing runs.
  const errors = [];
  const refused = harness({
    loop: { judge: scriptedJudge(moveToDone("T-4")), approve: () => ({ edited: { node_id: "T-4", deep: JSON.parse("[".repeat(40) + "]".repeat(40)) } }), onError: (error) => errors.push(error) },
  });
  refused.loop.observe({ external: { tickets: 1 } });
  await refused.loop.settled();
  assert.equal(refused.skill.applies.length, 0);
  assert.equal(refused.loop.state().mode, "awaiting_approval");
  assert.equal(errors.length, 1);
  assert.match(errors[0].message, /approve: the answer was refused: the edited change cannot be shown/);
});

test("an approve port's answer is a string, { decline } or { withdraw }; anything else is said through onError and decides nothing", async () => {
  for (const returned of [{ decline: "too risky", extra: 1 }, { answer: "y" }, true, 1, ["y"], { decline: 7 }]) {
    const errors = [];
    const approvals = [];
    const { loop, skill } = harness({
      loop: {
        judge: scriptedJudge(moveToDone()),
        approve: (request) => {
          approvals.push(request);
          return returned;
        },
        onError: (error) => errors.push(error),
      },
    });
    loop.observe({ external: { tickets: 1 } });
    await loop.settled();
    assert.equal(loop.state().mode, "awaiting_approval", JSON.stringify(returned));
    assert.equal(skill.applies.length, 0);
    assert.equal(errors.length, 1, JSON.stringify(returned));
    assert.equal(errors[0].code, "port_failed");
    assert.match(errors[0].message, /approve port returned .*, which is not an answer/);
    // The request still waits for a person's answer.
    loop.answer("y", approvals[0].requestId);
    await loop.settled();
    assert.equal(skill.applies.length, 1);
  }
  // { decline } from the port is a decline with its words.
  const { loop, chat } = harness({ loop: { judge: scriptedJudge(moveToDone()), approve: () => ({ decline: "wrong ticket" }) } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  assert.equal(loop.state().mode, "stopped");
  assert.ok(chat.some((line) => line.includes("\u201cwrong ticket\u201d")), chat.join("\n"));
});

test("a failure stops at once and is reported; running it again needs an explicit approval (失敗時は即停止)", async () => {
  const skill = boardSkill(500);
  const judge = scriptedJudge(moveToDone());
  const { loop, approvals, chat, logs } = harness({ skill, loop: { judge } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  loop.answer("y", approvals[0].requestId);
  await loop.settled();
  assert.equal(loop.state().mode, "stopped");
  assert.equal(skill.applies.length, 1);
  assert.ok(chat.some((line) => /FAILED/.test(line)));
  assert.equal(approvals.length, 2, "the re-run is offered as an approval");
  assert.deepEqual(approvals[1].lines, approvals[0].lines, "the same action, shown the same way");
  assert.notEqual(approvals[1].requestId, approvals[0].requestId, "as a new request");
  assert.match(approvals[1].note, /re-run/);
  assert.equal(executionLines(logs).length, 1, "logged when the action completed");
  // The next judgement (after the human's go) reads the execution log's tail, once.
  loop.say("try something else");
  await loop.settled();
  assert.match(judge.calls.at(-1).prompt, /execution log's last lines/);
});

test("a change the board moved away from before its Apply is not applied and is no failure: the loop judges the board as it is", async () => {
  const skill = boardSkill();
  const judge = scriptedJudge(moveToDone(), wait());
  const { loop, approvals, chat, logs } = harness({ skill, loop: { judge } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  // Someone else moved the ticket while the person read the card.
  skill.current = "in_progress";
  loop.answer("y", approvals[0].requestId);
  await loop.settled();
  assert.equal(skill.applies.length, 0, "nothing applied");
  assert.equal(loop.state().mode, "idle");
  assert.equal(loop.status().halt ?? null, null);
  assert.equal(approvals.length, 1, "no re-run is offered");
  assert.ok(chat.some((line) => /not applied, the world had moved on/.test(line) && !/FAILED/.test(line)));
  assert.match(executionLines(logs).at(-1).cause, /^not applied/);
  assert.equal(judge.calls.length, 2, "the board as it is now was judged at once");
  const judged = judge.calls.length;
  loop.observe({ external: { tickets: 1, moved: true } });
  await loop.settled();
  assert.equal(judge.calls.length, judged + 1, "the board as it is now is judged");
});

test("a skill's notApplied must be a boolean: any other value is a failure that stops the loop", async () => {
  for (const [notApplied, mode] of [[true, "idle"], ["yes", "stopped"], [1, "stopped"]]) {
    const { loop, approvals } = harness({ skill: () => ({ succeeded: false, notApplied, detail: "moved" }), loop: { judge: scriptedJudge(moveToDone()) } });
    loop.observe({ external: { tickets: 1 } });
    await loop.settled();
    loop.answer("y", approvals[0].requestId);
    await loop.settled();
    assert.equal(loop.state().mode, mode, `notApplied ${JSON.stringify(notApplied)}`);
  }
});

test("an approved re-run after a failure runs again, once", async () => {
  const skill = boardSkill(500);
  const { loop, approvals } = harness({ skill, loop: { judge: scriptedJudge(moveToDone()) } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  loop.answer("y", approvals[0].requestId);
  await loop.settled();
  loop.answer("y", approvals[1].requestId);
  await loop.settled();
  assert.equal(skill.applies.length, 2);
});

test("a human message aborts the judge's call at once, summarises, and resume asks the judge again", async () => {
  let aborted = false;
  const hanging = (options) =>
    new Promise((resolve) => {
      options.signal.addEventListener("abort", () => { aborted = true; resolve({ error: "aborted" }); });
    });
  const judge = scriptedJudge(hanging, reply("back to work"));
  const { loop, chat } = harness({ loop: { judge } });
  loop.observe({ external: { tickets: 1 } });
  while (judge.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  loop.say("stop, look at T-9 first");
  await loop.settled();
  assert.ok(aborted, "the in-flight call was aborted through its AbortSignal");
  assert.equal(loop.state().mode, "interrupted");
  assert.ok(chat.some((line) => line.startsWith("Interrupted:")));
  assert.ok(chat.some((line) => /resume \/ discard/.test(line)));
  loop.answer("resume");
  await loop.settled();
  assert.equal(judge.calls.length, 2);
  assert.match(judge.calls[1].prompt, /look at T-9 first/, "the instruction is judged");
});

test("an interrupted approval can be discarded; it is never executed", async () => {
  const { loop, approvals, skill, chat } = harness({ loop: { judge: scriptedJudge(moveToDone(), wait()) } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  loop.say("hold on");
  loop.answer("discard");
  await loop.settled();
  assert.throws(() => loop.answer("y", approvals[0].requestId), { name: "AgentGovernorError", code: "answer_refused" });
  await loop.settled();
  assert.equal(skill.applies.length, 0);
  assert.ok(chat.includes("Discarded the interrupted task."));
});

test("an Apply already sent is awaited and recorded, never abandoned, before the human's message is taken", async () => {
  let release;
  const skill = boardSkill();
  const apply = skill.apply;
  skill.apply = (request) => new Promise((resolve) => { release = () => resolve(apply(request)); });
  const { loop, approvals, logs } = harness({ skill, loop: { judge: scriptedJudge(moveToDone()) } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  loop.answer("y", approvals[0].requestId);
  await new Promise((resolve) => setTimeout(resolve, 20));
  loop.say("wait!");
  assert.equal(loop.state().mode, "executing");
  release();
  await loop.settled();
  assert.equal(skill.applies.length, 1);
  assert.equal(executionLines(logs).length, 1, "recorded");
  assert.equal(loop.state().mode, "interrupted");
});

test("/dev as the first token overrides the goal and is logged as privileged; elsewhere it is a message", async () => {
  const { loop, logs } = harness({ loop: { judge: scriptedJudge(wait(), wait()) } });
  loop.say("/dev goal ship the release");
  await loop.settled();
  assert.equal(loop.state().situation.goal, "ship the release");
  assert.match(logs.read("cli"), /privileged: goal ship the release/);
  loop.say("please /dev goal nothing");
  await loop.settled();
  assert.equal(loop.state().situation.goal, "ship the release");
});

test("a whitelisted type runs without asking; every other type is denied by default", async () => {
  const judge = scriptedJudge(moveToDone());
  const { loop, approvals, skill } = harness({ loop: { judge, whitelist: ["status_change"] } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  assert.equal(approvals.length, 0);
  assert.equal(skill.applies.length, 1);
  assert.equal(skill.applies[0].confirmation.ui_action, "whitelist");
});

test("a judge answer for a type no skill executes, or claiming an approval, stops the loop; nothing is asked", async () => {
  const unknownType = { ...moveToDone(), action_type: "delete_repository" };
  const claims = { text: JSON.stringify({ ...moveToDone(), approved: true }) };
  for (const answer of [{ structuredOutput: unknownType }, claims, { text: "sure, I will move it" }]) {
    const { loop, approvals, skill } = harness({ loop: { judge: scriptedJudge(() => answer, () => answer) } });
    loop.observe({ external: { tickets: 1 } });
    await loop.settled();
    assert.equal(loop.state().mode, "stopped");
    assert.equal(approvals.length, 0);
    assert.equal(skill.applies.length, 0);
  }
});

test("a rule change with a host setting stops, shows the restart steps and offers a restart that needs approval", () => {
  let state = newControlState({ goal: "g" });
  const send = (event) => {
    const result = controlStep(state, event);
    state = result.state;
    return result.effects;
  };
  send({ event: "situation_changed", external: { n: 1 }, internal: null });
  const asked = send({
    event: "judgement_received",
    judgement_id: state.judgement_id,
    judgement: { decision: "change_rules", change: { host_settings: { model: "bigger" } }, reason: "better judgements" },
  });
  const request = asked.find((effect) => effect.effect === "request_approval");
  const approved = send({ event: "approval_answered", request_id: request.request_id, answer: "y" });
  assert.ok(approved.some((effect) => effect.effect === "persist_rules"));
  assert.ok(approved.some((effect) => effect.effect === "report_to_chat" && /Steps: 1\./.test(effect.text)));
  const restart = approved.find((effect) => effect.effect === "request_approval");
  assert.match(restart.lines[0], /restart the agent/);
  assert.ok(!approved.some((effect) => effect.effect === "execute"), "the restart itself needs approval");
  assert.equal(state.mode, "stopped");
});

test("a reload while awaiting approval: the approval still waits, is asked again, and y applies once", async () => {
  const first = harness({ loop: { judge: scriptedJudge(moveToDone()) } });
  first.loop.observe({ external: { tickets: 1 } });
  await first.loop.settled();
  const persisted = JSON.parse(JSON.stringify(first.saved.at(-1)));
  assert.equal(persisted.mode, "awaiting_approval");
  const skill = boardSkill();
  const second = harness({ skill, loop: { judge: scriptedJudge(), state: persisted } });
  await second.loop.settled();
  assert.equal(second.approvals.length, 1, "asked again after the reload");
  assert.deepEqual(second.approvals[0].lines, first.approvals[0].lines);
  second.loop.answer("y", second.approvals[0].requestId);
  await second.loop.settled();
  assert.equal(skill.applies.length, 1);
});

test("the Closer decides completion before success is reported; its pendingActions become the next situation", async () => {
  const store = new MemoryStore();
  const incomplete = {
    checklist: [{ id: "moved", description: "moved", completed: true, evidence: "applied" }, { id: "notified", description: "notify", completed: false, evidence: null }],
    allComplete: false, summary: "moved, not notified", pendingActions: ["notify the reviewer of T-1"], confidence: 0.9,
  };
  const judge = scriptedJudge(moveToDone(), wait());
  const llm = (prompt, options) => (options.schemaName === "closer_output" ? { structuredOutput: incomplete } : judge(prompt, options));
  const governor = createGovernor({ llm, store });
  const approvals = [];
  const chat = [];
  // `closer: true`: the Closer comes from the governor, with its ports injected.
  const viaGovernor = governor.loop({ goal: "keep the task board tidy", judge: llm, closer: true, skills: { status_change: boardSkill() }, approve: (request) => { approvals.push(request); }, chat: (text) => chat.push(text) });
  viaGovernor.observe({ external: { tickets: 1 } });
  await viaGovernor.settled();
  viaGovernor.answer("y", approvals.at(-1).requestId);
  await viaGovernor.settled();
  assert.ok(chat.some((line) => /step not complete/.test(line)), "not reported as complete");
  assert.deepEqual(viaGovernor.state().situation.internal.pending_actions, ["notify the reviewer of T-1"]);
  assert.match(judge.calls.at(-1).prompt, /notify the reviewer of T-1/, "the pending action is judged next");
});

test("a Watcher review that does not pass turns an applied change into a reported failure", async () => {
  const failing = { pass: false, issues: ["CRITICAL: wrong ticket"], inspection_log: "checked the board", blindspots_covered: [], misclassification_detected: false, reclassification_suggestion: null, trade_offs_acknowledged: true };
  const judge = scriptedJudge(moveToDone());
  const llm = (prompt, options) => (options.schemaName === "watcher_verdict" ? { structuredOutput: failing } : judge(prompt, options));
  const governor = createGovernor({ llm, store: new MemoryStore() });
  const approvals = [];
  const chat = [];
  const loop = governor.loop({ goal: "g", judge: llm, watcher: true, skills: { status_change: boardSkill() }, approve: (r) => { approvals.push(r); }, chat: (t) => chat.push(t) });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  loop.answer("y", approvals[0].requestId);
  await loop.settled();
  assert.equal(loop.state().mode, "stopped", chat.join("\n"));
  assert.ok(chat.some((line) => /review did not pass: CRITICAL: wrong ticket/.test(line)), chat.join("\n"));
});

test("after a task ends the Reflector's lessons go into the playbook, rendered into the judge's next prompt", async () => {
  const store = new MemoryStore();
  const lesson = { reasoning: "r", error_identification: "e", root_cause_analysis: "c", correct_approach: "a", key_insight: "Check the ticket's reviewer before closing it." };
  const judge = scriptedJudge(moveToDone(), wait(), reply("noted"));
  const llm = (prompt, options) => (options.schemaName === "reflection" ? { structuredOutput: { insights: [lesson], bullet_evaluations: [] } } : judge(prompt, options));
  const governor = createGovernor({ llm, store });
  const approvals = [];
  const loop = governor.loop({ goal: "g", judge: llm, reflection: { store }, skills: { status_change: boardSkill() }, approve: (r) => { approvals.push(r); } });
  loop.observe({ external: { tickets: 1 } });
  await loop.settled();
  loop.answer("y", approvals[0].requestId);
  await loop.settled();
  loop.observe({ external: { tickets: 0 } });
  await loop.settled();
  assert.match(loop.playbook(), /Check the ticket's reviewer before closing it\./);
  loop.say("anything else?");
  await loop.settled();
  assert.match(judge.calls.at(-1).prompt, /Lessons learned[\s\S]*Check the ticket's reviewer/);
});

test("with a gate, a reflection's deltas reach the judge only when the held-out score does not regress", async () => {
  const lesson = { reasoning: "r", error_identification: "e", root_cause_analysis: "c", correct_approach: "a", key_insight: "Check the ticket's reviewer before closing it." };
  for (const [score, decision] of [[(bullets) => (bullets.length ? 1 : 0.5), "accepted"], [(bullets) => (bullets.length ? 0 : 0.5), "rejected"]]) {
    const store = new MemoryStore();
    const judge = scriptedJudge(moveToDone(), wait(), reply("noted"));
    const llm = (prompt, options) => (options.schemaName === "reflection" ? { structuredOutput: { insights: [lesson], bullet_evaluations: [] } } : judge(prompt, options));
    const governor = createGovernor({ llm, store });
    const evaluated = [];
    const outcomes = [];
    const gate = { cases: ["held-out case"], evaluate: (playbook, cases) => { evaluated.push(playbook); return cases.map(() => score(playbook.bullets)); }, onOutcome: (outcome) => outcomes.push(outcome) };
    const approvals = [];
    const loop = governor.loop({ goal: "g", judge: llm, reflection: { store, gate }, skills: { status_change: boardSkill() }, approve: (r) => { approvals.push(r); } });
    loop.observe({ external: { tickets: 1 } });
    await loop.settled();
    loop.answer("y", approvals[0].requestId);
    await loop.settled();
    loop.observe({ external: { tickets: 0 } });
    await loop.settled();
    assert.equal(outcomes.length, 1);
    assert.equal(outcomes[0].decision, decision);
    assert.equal(evaluated.length, 2, "the accepted playbook and the candidate were scored");
    assert.ok(evaluated[1].bullets.some((bullet) => bullet.content === lesson.key_insight));
    loop.say("anything else?");
    await loop.settled();
    const lastPrompt = judge.calls.at(-1).prompt;
    if (decision === "accepted") assert.match(lastPrompt, /Check the ticket's reviewer/);
    else assert.doesNotMatch(lastPrompt, /Check the ticket's reviewer/);
    assert.ok(await store.get("gated-playbook/control"), "the gate's state is stored");
  }
  assert.throws(() => createControlLoop({ goal: "g", judge: () => ({}), reflection: { store: new MemoryStore(), reflector: { reflect() {} }, gate: { cases: [1] } } }), { code: "invalid_port", path: "reflection.gate.evaluate" });
});

test("two reflections that overlap go through the gate one after the other; neither is lost", async () => {
  const store = new MemoryStore();
  const lessons = ["Check the ticket's reviewer before closing it.", "Read the whole board before moving a ticket."];
  let reflections = 0;
  const judge = scriptedJudge(moveToDone("T-1"), wait(), moveToDone("T-2"), wait());
  const llm = (prompt, options) => {
    if (options.schemaName !== "reflection") return judge(prompt, options);
    const key_insight = lessons[reflections++];
    return { structuredOutput: { insights: [{ reasoning: "r", error_identification: "e", root_cause_analysis: "c", correct_approach: "a", key_insight }], bullet_evaluations: [] } };
  };
  const pending = [];
  // A slow evaluator: every evaluation waits until the test lets it answer.
  const gate = { cases: ["case"], evaluate: (playbook, cases) => new Promise((resolve) => pending.push(() => resolve(cases.map(() => playbook.bullets.length / 2)))) };
  const outcomes = [];
  gate.onOutcome = (outcome) => outcomes.push(outcome.decision);
  const approvals = [];
  const loop = createGovernor({ llm, store }).loop({ goal: "g", judge: llm, reflection: { store, gate }, skills: { status_change: boardSkill() }, approve: (r) => { approvals.push(r); } });
  for (const [index, tickets] of [[0, 1], [1, 2]]) {
    loop.observe({ external: { tickets } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    loop.answer("y", approvals[index].requestId);
    await new Promise((resolve) => setTimeout(resolve, 50));
    loop.observe({ external: { tickets: 0, round: index } });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  for (let round = 0; round < 100 && outcomes.length < 2; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    pending.splice(0).forEach((answer) => answer());
  }
  await loop.settled();
  assert.deepEqual(outcomes, ["accepted", "accepted"]);
  const stored = JSON.parse(await store.get("gated-playbook/control"));
  assert.deepEqual(stored.gate.playbook.bullets.map((bullet) => bullet.content), lessons);
});

test("the execution log keeps 10 MB by whole lines under many appends, the newest last; the judge reads 200-500 lines", () => {
  const logs = memoryLogStore();
  const record = (n) => ({ event_summary: `move ticket T-${n} to done`, cause: "HTTP 200", impact_scope: `ticket T-${n}` });
  let appended = 0;
  let written = 0;
  while (written < 12 * 1024 * 1024) {
    const line = executionLogLine("2026-11-23T10:00:00.000Z", record(appended));
    logs.append("execution", line);
    written += line.length;
    appended += 1;
  }
  const size = logs.size("execution");
  assert.ok(size <= 10 * 1024 * 1024 && size > 10 * 1024 * 1024 - 200, `kept ${size} bytes`);
  const kept = logs.read("execution");
  assert.equal(Buffer.byteLength(kept), size);
  assert.ok(kept.startsWith('{"time"'), "whole lines only");
  assert.ok(kept.endsWith(`"impact_scope":"ticket T-${appended - 1}"}\n`), "the newest is kept");
  assert.equal(logs.tail("execution", 300).split("\n").filter(Boolean).length, 300);
  assert.equal(logs.tail("execution", 5).split("\n").filter(Boolean).length, 200);
  assert.equal(logs.tail("execution", 5000).split("\n").filter(Boolean).length, 500);
  // The pure helpers agree: one text trimmed the same way.
  assert.equal(retainLog("a\nb\nc\n", 4), "b\nc\n");
  const thousand = Array.from({ length: 1000 }, (_, n) => `line ${n}\n`).join("");
  assert.equal(logTail(thousand, 250), thousand.split("\n").slice(750).join("\n"));
});

test("each log record is also an OpenTelemetry GenAI-style span or event", () => {
  const record = { event_summary: "move T-1 to done", cause: "applied", impact_scope: "ticket T-1" };
  const span = otelLogRecord("execution", record, "2026-11-23T10:00:00.000Z", { name: "status_change", callId: "a-1" });
  assert.equal(span.name, "execute_tool status_change");
  assert.equal(span.attributes["gen_ai.tool.call.id"], "a-1");
  assert.equal(otelLogRecord("cli", record, "t", { name: "status_change", callId: "a-1" }).name, "agent_governor.approval");
  assert.equal(otelLogRecord("chat", record, "t").attributes["gen_ai.operation.name"], "invoke_agent");
});

test("judgeNextAction fails closed: an unusable answer is { ok: false }, asked at most twice", async () => {
  const calls = [];
  const outcome = await judgeNextAction(
    { situation: { goal: "g", external: null, internal: null }, action_types: [{ type: "status_change" }] },
    (prompt, options) => { calls.push(options.schemaName); return { text: "I think we should probably move it." }; },
  );
  assert.equal(outcome.ok, false);
  assert.equal(outcome.judgement, null);
  assert.equal(calls.length, 2);
});

test("bad configuration and bad answers are typed errors; nothing starts", () => {
  assert.throws(() => createControlLoop({ goal: "g" }), { name: "AgentGovernorError", path: "judge" });
  assert.throws(() => createControlLoop({ goal: "g", judge: () => ({}), aprove: () => {} }), { name: "AgentGovernorError", path: "aprove" });
  assert.throws(() => createControlLoop({ goal: " ", judge: () => ({}) }), { name: "AgentGovernorError", path: "setup.goal" });
  assert.throws(() => createControlLoop({ goal: "g", judge: () => ({}), skills: { status_change: { apply() {} } } }), { path: "skills.status_change" });
  const loop = createControlLoop({ goal: "g", judge: () => ({ structuredOutput: wait() }) });
  assert.throws(() => loop.answer(true), { name: "AgentGovernorError", path: "text" });
  assert.throws(() => loop.say(1), { name: "AgentGovernorError", path: "text" });
  assert.throws(() => loop.observe({ goal: "mine now" }), { name: "AgentGovernorError", path: "situation.goal" });
  assert.throws(() => controlStep(newControlState({ goal: "g" }), { event: "approval_answered", request_id: "a-1", answer: true }), { name: "AgentGovernorError", path: "event" });
});
