// A host of the control loop that persists to files and can be killed (SIGKILL, by the test) at one point
// of an execution. Usage: node crash-host.mjs DIR KILL_POINT|restart
//   DIR/state.json    the loop's state, written on every persist_state (write + fsync, then rename)
//   DIR/board.jsonl   one line per skill event: {"started": id} when an Apply starts, {"applied": id} when done
// At KILL_POINT the host prints "KILLPOINT <name>" and hangs until it is killed:
//   before-persist  in save(), before the state marking the action executing is written
//   after-persist   in save(), after that state is written (the execute has not started)
//   during-skill    in the skill's apply, after it started and before it changed anything
//   after-skill     in the save that follows a finished Apply, before it is written
// With "restart" the host starts from DIR/state.json, answers y to a pending request, and prints its status
// and chat as one JSON line once the loop has settled.
import { appendFileSync, closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { MemoryStore, createGovernor } from "agent-governor";

const [dir, point] = process.argv.slice(2);
const statePath = join(dir, "state.json");
const boardPath = join(dir, "board.jsonl");
const hang = (name) => {
  process.stdout.write(`KILLPOINT ${name}\n`);
  return new Promise(() => {});
};

function durableWrite(path, text) {
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, "w");
  writeSync(fd, text);
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temporary, path);
}

const board = { current: "review" };
const skill = {
  preview: () => ({ current_status: board.current, valid_transitions: [{ status: "done", label: "Done" }] }),
  async apply(request) {
    appendFileSync(boardPath, `${JSON.stringify({ started: request.confirmation.node_id })}\n`);
    if (point === "during-skill") await hang(point);
    board.current = request.confirm_status;
    appendFileSync(boardPath, `${JSON.stringify({ applied: request.confirmation.node_id })}\n`);
    return { status: 200, body: { applied: true } };
  },
};

let applied = false;
const storage = {
  async save(state) {
    const executing = state.mode === "executing";
    if (point === "before-persist" && executing) await hang(point);
    if (point === "after-skill" && applied) await hang(point);
    durableWrite(statePath, JSON.stringify(state));
    if (point === "after-persist" && executing) await hang(point);
  },
};
const trackedApply = skill.apply;
skill.apply = async (request) => {
  const result = await trackedApply(request);
  applied = true;
  return result;
};

const move = {
  decision: "act", reply: null, action_type: "status_change", summary: "close T-1", impact_scope: "ticket T-1",
  node_id: "T-1", from: "review", to: "done", setting_key: null, setting_value: null, whitelist_add: null,
  whitelist_remove: null, reason: null,
};
const wait = { ...move, decision: "wait", action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null };
let judged = 0;
const judge = () => ({ structuredOutput: judged++ === 0 && point !== "restart" ? move : wait });
const governor = createGovernor({ llm: judge, store: new MemoryStore() });
const chat = [];
const requests = [];

if (point === "restart") {
  const state = JSON.parse(readFileSync(statePath, "utf8"));
  const loop = governor.loop({
    goal: "ignored on a restart",
    state,
    judge,
    storage: { save: (saved) => durableWrite(statePath, JSON.stringify(saved)) },
    skills: { status_change: skill },
    chat: (text) => chat.push(text),
    approve: (request) => { requests.push(request); },
  });
  await loop.settled();
  const before = loop.status();
  if (before.pending) loop.answer("y", before.pending.requestId);
  await loop.settled();
  process.stdout.write(`${JSON.stringify({ before, after: loop.status(), chat, requests: requests.map((r) => ({ requestId: r.requestId, actionId: r.actionId, lines: r.lines })) })}\n`);
} else {
  const loop = governor.loop({
    goal: "close reviewed tickets",
    judge,
    storage,
    skills: { status_change: skill },
    chat: (text) => chat.push(text),
    approve: (request) => { requests.push(request); return "y"; },
  });
  loop.observe({ external: { tickets: [{ id: "T-1", status: "review" }] } });
  await loop.settled();
  process.stdout.write("FINISHED without reaching the kill point\n");
}
