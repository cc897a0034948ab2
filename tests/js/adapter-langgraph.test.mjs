// agent-governor/langgraph against the real LangGraph.js (1.7) with the in-memory and the SQLite checkpointer:
// a governed tool interrupts its node; the graph resumes only with a signed confirmation of exactly that call,
// which runs once. A resume replayed from a restored checkpoint, a foreign or altered approval and an expired
// one run nothing; another process resuming from SQLite runs the approved call once, and only once.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { test } from "node:test";
import { Annotation, Command, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { APPROVAL_INTERRUPT, governGraphTools } from "agent-governor/langgraph";
import { KEYS, emailGraph } from "./support/langgraph-run.mjs";
import { fileStore } from "./support/file-store.mjs";

const signer = { keyId: "approver", secret: KEYS.approver };
const email = { to: "bob@example.com", subject: "Q3" };
const directory = mkdtempSync(join(tmpdir(), "langgraph-adapter-"));
const sign = (draft, at) => issueConfirmation(draft, signer, at);

const checkpointers = {
  "in-memory": () => new MemorySaver(),
  SQLite: () => SqliteSaver.fromConnString(join(directory, `checkpoints-${Math.random().toString(36).slice(2)}.db`)),
};

/** A thread paused at the governed call: the interrupt a person's UI shows. */
async function paused(checkpointer, options = {}) {
  const setup = emailGraph({ checkpointer, store: new MemoryStore(), ...options });
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  const first = await setup.graph.invoke({ email }, config);
  const [pending] = first.__interrupt__;
  return { ...setup, config, pending };
}

async function pausedCheckpoint(graph, config) {
  for await (const snapshot of graph.getStateHistory(config)) {
    if (snapshot.tasks.some((task) => task.interrupts.length > 0)) return snapshot.config;
  }
  throw new Error("no paused checkpoint");
}

for (const [label, makeCheckpointer] of Object.entries(checkpointers)) {
  test(`${label}: the node pauses with the machine's lines; it resumes only with a signed confirmation, and runs once`, async () => {
    const { graph, sent, config, pending } = await paused(makeCheckpointer());
    assert.equal(pending.value.type, APPROVAL_INTERRUPT);
    assert.deepEqual(pending.value.lines, ['Execute: tool send_email with {"subject":"Q3","to":"bob@example.com"}', "Impact: send_email"]);
    assert.deepEqual(sent, []);
    // A resume that is not a confirmation (a button's `true`, a string) runs nothing: the node pauses again.
    for (const resume of [true, "approved", ["y"]]) {
      const again = await graph.invoke(new Command({ resume }), config);
      assert.equal(again.__interrupt__[0].value.refused.code, "invalid_input");
    }
    const confirmation = sign(pending.value.draft);
    const done = await graph.invoke(new Command({ resume: confirmation }), config);
    assert.equal(done.result, "sent to bob@example.com");
    assert.deepEqual(sent, [{ subject: "Q3", to: "bob@example.com" }]);
    // Replayed from the restored checkpoint where it paused: the call ran already, so it answers what it
    // returned then; nothing is sent twice.
    const replayed = await graph.invoke(new Command({ resume: confirmation }), await pausedCheckpoint(graph, config));
    assert.equal(replayed.result, "sent to bob@example.com");
    assert.equal(sent.length, 1);
    // Restored there and approved again by a person, with a new signature: the same call, run once.
    const resigned = await graph.invoke(new Command({ resume: sign(pending.value.draft) }), await pausedCheckpoint(graph, config));
    assert.equal(resigned.result, "sent to bob@example.com");
    assert.equal(sent.length, 1);
  });

  test(`${label}: a foreign, altered or expired approval runs nothing; the thread stays paused for a good one`, async () => {
    let clock = Date.now();
    const { graph, governed, sent, config, pending } = await paused(makeCheckpointer(), { now: () => clock });
    const refusal = async (resume) => (await graph.invoke(new Command({ resume }), config)).__interrupt__[0].value.refused;
    const foreign = sign(governed.draft("send_email", email, "email-2"));
    assert.match((await refusal(foreign)).message, /change_mismatch/);
    const altered = sign(governed.draft("send_email", { ...email, to: "eve@example.com" }, "email-1"));
    assert.match((await refusal(altered)).message, /change_mismatch/);
    const forged = { ...sign(pending.value.draft), signature: "AAAA" };
    assert.equal((await refusal(forged)).code, "not_approved");
    const old = sign(pending.value.draft, clock - 25 * 3600 * 1000);
    assert.match((await refusal(old)).message, /expired/);
    assert.deepEqual(sent, []);
    const state = await graph.getState(config);
    assert.equal(state.tasks[0].interrupts[0].value.callId, "email-1", "still paused at the same call");
    const good = sign(pending.value.draft, clock);
    assert.equal((await graph.invoke(new Command({ resume: good }), config)).result, "sent to bob@example.com");
    assert.equal(sent.length, 1);
  });
}

test("SQLite: another process resumes the thread and runs the approved call once; a second process runs nothing", async () => {
  const checkpoints = join(directory, "shared.db");
  const storePath = join(directory, "shared-store.json");
  const { pending } = await paused(SqliteSaver.fromConnString(checkpoints), { store: fileStore(storePath) }).then(async (setup) => {
    // Keep the thread id the other processes resume.
    process.env.THREAD = setup.config.configurable.thread_id;
    return setup;
  });
  const confirmationPath = join(directory, "confirmation.json");
  writeFileSync(confirmationPath, JSON.stringify(sign(pending.value.draft)));
  const resumeElsewhere = async () => {
    const script = new URL("./support/langgraph-run.mjs", import.meta.url).pathname;
    const { stdout } = await promisify(execFile)(process.execPath, [script, confirmationPath], {
      env: { ...process.env, CHECKPOINTS: checkpoints, STORE_PATH: storePath },
      timeout: 60_000,
    });
    return JSON.parse(stdout);
  };
  const first = await resumeElsewhere();
  assert.deepEqual(first.sent, [{ subject: "Q3", to: "bob@example.com" }]);
  assert.equal(first.result, "sent to bob@example.com");
  // The thread has moved on: resuming it again runs nothing (the node does not run again).
  const second = await resumeElsewhere();
  assert.deepEqual(second.sent, []);
});

test("whitelisted tools run with no interrupt; bad tools and options are typed errors", async () => {
  const { governed } = emailGraph({ checkpointer: new MemorySaver(), store: new MemoryStore() });
  assert.equal(await governed.call("lookup", { word: "quorum" }, "l-1"), "quorum: found");
  await assert.rejects(governed.call("rm_rf", {}, "x"), { code: "unknown_tool" });
  await assert.rejects(governed.call("send_email", { to: "x".repeat(1_100_000) }, "x"), { code: "invalid_input", path: "arguments" });
  await assert.rejects(governed.call("send_email", email, ""), { code: "invalid_input", path: "call.callId" });
  assert.throws(() => governGraphTools({ a: 1 }, { store: new MemoryStore(), keys: KEYS }), { code: "invalid_input", path: "tools.a" });
  assert.throws(() => governGraphTools({ a: async () => 1 }, null), { code: "invalid_input", path: "options" });
});

test("a node with two governed calls pauses for each, runs each once, and finishes", async () => {
  const sent = [];
  const governed = governGraphTools({ send_email: async (args) => (sent.push(args.to), `sent to ${args.to}`) }, { store: new MemoryStore(), keys: KEYS });
  const State = Annotation.Root({ results: Annotation() });
  const graph = new StateGraph(State)
    .addNode("send", async (_state, config) => {
      const thread = config.configurable.thread_id;
      const first = await governed.call("send_email", { to: "alice@example.com", subject: "a" }, `${thread}/call_a`);
      const second = await governed.call("send_email", { to: "bob@example.com", subject: "b" }, `${thread}/call_b`);
      return { results: [first, second] };
    })
    .addEdge(START, "send")
    .addEdge("send", END)
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "two-calls" } };
  let step = await graph.invoke({}, config);
  const asked = [];
  while (step.__interrupt__) {
    const { callId, draft } = step.__interrupt__[0].value;
    asked.push(callId);
    step = await graph.invoke(new Command({ resume: sign(draft) }), config);
  }
  assert.deepEqual(asked, ["two-calls/call_a", "two-calls/call_b"]);
  assert.deepEqual(step.results, ["sent to alice@example.com", "sent to bob@example.com"]);
  assert.deepEqual(sent, ["alice@example.com", "bob@example.com"]);
});

test("two threads whose calls share an id, with other arguments, never take each other's approval", async () => {
  const store = new MemoryStore();
  const one = await paused(new MemorySaver(), { store });
  const other = emailGraph({ checkpointer: new MemorySaver(), store });
  const otherConfig = { configurable: { thread_id: "other-thread" } };
  const otherPaused = await other.graph.invoke({ email: { to: "carol@example.com", subject: "Q4" } }, otherConfig);
  const otherDraft = otherPaused.__interrupt__[0].value.draft;
  assert.equal(otherDraft.intent, one.pending.value.draft.intent, "the same call id");
  // Approved in the other order; each thread runs its own call.
  assert.equal((await other.graph.invoke(new Command({ resume: sign(otherDraft) }), otherConfig)).result, "sent to carol@example.com");
  assert.equal((await one.graph.invoke(new Command({ resume: sign(one.pending.value.draft) }), one.config)).result, "sent to bob@example.com");
  assert.deepEqual(one.sent, [{ subject: "Q3", to: "bob@example.com" }]);
  assert.deepEqual(other.sent, [{ subject: "Q4", to: "carol@example.com" }]);
});
