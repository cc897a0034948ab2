// agent-governor/openai-agents against the real OpenAI Agents SDK (0.20) and a scripted OpenAI-compatible
// model over HTTP: a governed call interrupts the run; `state.approve()` happens only after the core checked a
// signed confirmation of that call; a RunState approved without one, restored in another process, replayed,
// edited or expired runs nothing; an approved call runs once.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { RunState, run, tool } from "@openai/agents";
import { z } from "zod";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { governAgentTools } from "agent-governor/openai-agents";
import { KEYS, governedAgent } from "./support/agents-run.mjs";
import { fileStore } from "./support/file-store.mjs";
import { startToolCallingModel } from "./support/tool-calling-model.mjs";

const signer = { keyId: "approver", secret: KEYS.approver };
const script = { arguments: '{"to":"bob@example.com","subject":"Q3"}', tool: "send_email" };
let model;
before(async () => {
  model = await startToolCallingModel((body) => {
    if (body.messages.at(-1).role === "tool") return { text: "done" };
    return { toolCalls: [{ id: `call_${body.messages.length}`, name: script.tool, arguments: script.arguments }] };
  });
});
after(() => model?.close());

const directory = mkdtempSync(join(tmpdir(), "agents-adapter-"));
const runElsewhere = async (statePath, storePath, mode = "") => {
  const { stdout } = await promisify(execFile)(process.execPath, [new URL("./support/agents-run.mjs", import.meta.url).pathname, statePath, mode], {
    env: { ...process.env, MODEL_URL: model.url, STORE_PATH: storePath },
    timeout: 60_000,
  });
  return JSON.parse(stdout);
};

async function interrupted(options) {
  const setup = governedAgent({ modelUrl: model.url, store: new MemoryStore(), ...options });
  const result = await run(setup.agent, "Email Bob the Q3 numbers");
  assert.equal(result.interruptions.length, 1);
  return { ...setup, result, interruption: result.interruptions[0] };
}

test("a governed call interrupts the run; a person reads the machine's lines; nothing runs before approval", async () => {
  const { governed, sent, interruption } = await interrupted();
  assert.deepEqual(governed.lines(interruption), ['Execute: tool send_email with {"subject":"Q3","to":"bob@example.com"}', "Impact: send_email"]);
  assert.deepEqual(governed.draft(interruption).intent, `tool call ${interruption.rawItem.callId}`);
  assert.deepEqual(sent, []);
});

test("a RunState approved without a confirmation, restored in another process, runs nothing", async () => {
  const { result } = await interrupted();
  const statePath = join(directory, "unapproved.json");
  writeFileSync(statePath, result.state.toString());
  const elsewhere = await runElsewhere(statePath, join(directory, "store-unapproved.json"), "approve-without-confirmation");
  assert.deepEqual(elsewhere.sent, []);
  assert.match(elsewhere.outputs[0], /has no approval/);
});

test("an approved call runs once, in another process; the same approved state restored again runs nothing", async () => {
  const storePath = join(directory, "store-approved.json");
  const { governed, result, interruption } = await interrupted({ store: fileStore(storePath) });
  await governed.approve(result.state, interruption, issueConfirmation(governed.draft(interruption), signer));
  const statePath = join(directory, "approved.json");
  writeFileSync(statePath, result.state.toString());
  const first = await runElsewhere(statePath, storePath);
  assert.deepEqual(first.sent, [{ to: "bob@example.com", subject: "Q3" }]);
  const second = await runElsewhere(statePath, storePath);
  assert.deepEqual(second.sent, []);
  assert.deepEqual(second.outputs, first.outputs, "the first run's output, not a second run");
});

test("a state saved at the interruption, approved and run, then restored in another process and approved again with a new signature, runs nothing more", async () => {
  const storePath = join(directory, "store-restored.json");
  const { result } = await interrupted({ store: fileStore(storePath) });
  const statePath = join(directory, "at-interruption.json");
  writeFileSync(statePath, result.state.toString());
  const first = await runElsewhere(statePath, storePath, "approve-with-a-new-signature");
  assert.deepEqual(first.sent, [{ to: "bob@example.com", subject: "Q3" }]);
  assert.deepEqual(first.outputs, ["sent to bob@example.com"]);
  // A crash, a second tab, a double click: the same saved state, approved again by a person.
  const second = await runElsewhere(statePath, storePath, "approve-with-a-new-signature");
  assert.deepEqual(second.sent, [], "the tool ran once");
  assert.deepEqual(second.outputs, first.outputs, "the second answer carries the first run's output");
});

test("a confirmation of other arguments or another call is refused before state.approve(); edited state and expiry run nothing", async () => {
  const { governed, sent, result, interruption, agent } = await interrupted();
  const before = result.state.toString();
  const other = { ...interruption.rawItem, arguments: '{"to":"eve@example.com","subject":"Q3"}' };
  await assert.rejects(governed.approve(result.state, interruption, issueConfirmation(governed.draft(other), signer)), { code: "not_approved" });
  await assert.rejects(governed.approve(result.state, interruption, issueConfirmation(governed.draft({ ...interruption.rawItem, callId: "call_other" }), signer)), { code: "not_approved" });
  assert.equal(result.state.toString(), before, "the state is not approved");

  // Approved, then the saved state's arguments are edited before it resumes.
  await governed.approve(result.state, interruption, issueConfirmation(governed.draft(interruption), signer));
  const edited = result.state.toString().replaceAll("bob@example.com", "eve@example.com");
  const resumed = await run(agent, await RunState.fromString(agent, edited));
  assert.deepEqual(sent, []);
  // The edited arguments are not the approved ones: no confirmation is kept for them.
  assert.match(resumed.newItems.find((item) => item.type === "tool_call_output_item").output, /has no approval/);

  let clock = Date.now();
  const late = await interrupted({ now: () => clock });
  await late.governed.approve(late.result.state, late.interruption, issueConfirmation(late.governed.draft(late.interruption), signer));
  clock += 25 * 3600 * 1000;
  const expired = await run(late.agent, late.result.state);
  assert.deepEqual(late.sent, []);
  assert.match(expired.newItems.find((item) => item.type === "tool_call_output_item").output, /did not run \(expired_time\)/);
});

test("a whitelisted tool runs with no interruption", async () => {
  script.tool = "lookup";
  script.arguments = '{"word":"quorum"}';
  try {
    const { agent } = governedAgent({ modelUrl: model.url, store: new MemoryStore() });
    const result = await run(agent, "Look up quorum");
    assert.equal(result.interruptions.length, 0);
    assert.equal(result.newItems.find((item) => item.type === "tool_call_output_item").output, "quorum: found");
  } finally {
    script.tool = "send_email";
    script.arguments = '{"to":"bob@example.com","subject":"Q3"}';
  }
});

test("bad input: malformed arguments, unknown tools, bad tools and interruptions are typed errors; nothing runs", async () => {
  const { governed, sent, result, interruption } = await interrupted();
  const rawItem = interruption.rawItem;
  assert.throws(() => governed.draft({ rawItem: { ...rawItem, arguments: "{not json" } }), { code: "invalid_input", path: "arguments" });
  assert.throws(() => governed.draft({ rawItem: { ...rawItem, name: "rm_rf" } }), { code: "unknown_tool" });
  assert.throws(() => governed.draft({ rawItem: { ...rawItem, arguments: JSON.stringify({ to: "x".repeat(1_100_000), subject: "" }) } }), { code: "invalid_input", path: "arguments" });
  assert.throws(() => governed.draft("send_email"), { code: "invalid_input", path: "interruption" });
  await assert.rejects(governed.approve({}, interruption, issueConfirmation(governed.draft(interruption), signer)), { code: "invalid_input", path: "state" });
  await assert.rejects(governed.approve(result.state, interruption, { confirmation_id: 7 }), { code: "invalid_input" });
  assert.throws(() => governAgentTools({}, { store: new MemoryStore(), keys: KEYS }), { code: "invalid_input", path: "tools" });
  assert.throws(() => governAgentTools([{ name: "x" }], { store: new MemoryStore(), keys: KEYS }), { code: "invalid_input", path: "tools.0" });
  const definition = { name: "t", description: "t", parameters: z.object({}), execute: async () => "" };
  assert.throws(() => governAgentTools([definition, definition], { store: new MemoryStore(), keys: KEYS }), { code: "invalid_input", path: "tools.1" });
  // A tool built by tool() answers its own errors with text: refused, with why.
  assert.throws(() => governAgentTools([tool(definition)], { store: new MemoryStore(), keys: KEYS }), (error) => error.code === "invalid_input" && /built tool/.test(error.message));

  // The model sends arguments that are not JSON: the governed tool refuses them and runs nothing.
  script.arguments = "{not json";
  try {
    const malformed = governedAgent({ modelUrl: model.url, store: new MemoryStore() });
    const first = await run(malformed.agent, "Email Bob");
    for (const item of first.interruptions) first.state.approve(item);
    const resumed = first.interruptions.length > 0 ? await run(malformed.agent, first.state) : first;
    assert.deepEqual(malformed.sent, []);
    assert.ok(resumed.newItems.some((item) => item.type === "tool_call_output_item"));
  } finally {
    script.arguments = '{"to":"bob@example.com","subject":"Q3"}';
  }
  assert.deepEqual(sent, []);
});

test("a tool that throws half-way leaves its call in flight: the model is told the outcome is unknown, never to try again", async () => {
  script.arguments = '{"to":"bob@example.com","subject":"fails half-way"}';
  try {
    const { governed, agent, result, interruption } = await interrupted();
    await governed.approve(result.state, interruption, issueConfirmation(governed.draft(interruption), signer));
    const saved = result.state.toString();
    const resumed = await run(agent, result.state);
    const output = resumed.newItems.find((item) => item.type === "tool_call_output_item").output;
    assert.match(output, /may have run: its outcome is unknown/);
    // Resumed again from the approved state: the call is in flight, never run by itself again.
    const again = await run(agent, await RunState.fromString(agent, saved));
    assert.match(again.newItems.find((item) => item.type === "tool_call_output_item").output, /may have run: its outcome is unknown/);
  } finally {
    script.arguments = '{"to":"bob@example.com","subject":"Q3"}';
  }
});

test("a tool with errorFunction: null fails the run with the typed refusal instead of telling the model", async () => {
  const { agent, sent, result } = await interrupted({ errorFunction: null });
  for (const interruption of result.interruptions) result.state.approve(interruption);
  await assert.rejects(run(agent, result.state), (error) => /has no approval/.test(error.message) || /has no approval/.test(String(error?.cause?.message ?? "")));
  assert.deepEqual(sent, []);
});
