// End to end against the embedded local model over HTTP (SmolLM2-135M on node-llama-cpp). A 135M model's
// verdicts are meaningless, so these tests assert the plumbing: the request is made, the answer is parsed
// and validated, the result is typed. Never the verdict.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";
import { Closer, GatedPlaybook, MemoryStore, Playbook, Watcher, createGovernor, issueConfirmation, openAICompatible, personaCatalog, pickWatcherPersona } from "agent-governor";
import { governTools } from "agent-governor/ai";
import { startModelServer } from "../../examples/local-llm/server.mjs";
import { startServer } from "../../examples/serve.mjs";
import { launchChromium } from "./helpers.mjs";

let model;
before(async () => {
  model = await startModelServer({ port: 0 });
});
after(async () => {
  await model?.close();
});

/** The built-in client against the local model, keeping every reply so a test can see the request was made. */
function recordingClient() {
  const client = openAICompatible({ baseUrl: model.url, model: model.model, timeoutMs: 200_000 });
  const replies = [];
  const query = async (prompt, options) => {
    const reply = await client(prompt, options);
    replies.push(reply);
    return reply;
  };
  return { query, replies };
}

function assertTypedResult(result) {
  assert.equal(typeof result.complete, "boolean");
  assert.ok(Array.isArray(result.output.checklist));
  for (const item of result.output.checklist) {
    assert.equal(typeof item.id, "string");
    assert.equal(typeof item.completed, "boolean");
  }
  assert.equal(typeof result.output.allComplete, "boolean");
  assert.equal(typeof result.output.confidence, "number");
  assert.ok(Array.isArray(result.reasons));
}

test("Node: the Closer asks the local model over HTTP and parses its checklist", { timeout: 240_000 }, async () => {
  const { query, replies } = recordingClient();
  const result = await new Closer({ workingDir: "", agentId: "e2e" }).check(
    { structuredOutput: { status: "implemented", tests: "4 passed" }, stepId: "complete.task", c3l: { c2: "complete", c3: "task" } },
    query,
  );
  assert.ok(replies.length >= 1, "the model was asked");
  assert.equal(replies[0].error, null, `the endpoint answered: ${replies[0].error}`);
  assert.equal(typeof replies[0].text, "string");
  assert.equal(result.error, null, `the answer parsed and validated: ${result.error}`);
  assertTypedResult(result);
});

test("Browser: the page's Closer demo is answered by the local model through the server", { timeout: 240_000 }, async () => {
  const server = await startServer(0, { llm: { url: model.url, model: model.model, label: "local" } });
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForSelector("body[data-closer-ready=true]", { timeout: 15_000 });
    assert.match(await page.textContent("#closer-model"), /smollm2/);
    await page.click("#check-completion");
    await page.waitForSelector("#closer-verdict[data-complete]", { timeout: 200_000 });
    const shown = JSON.parse(await page.textContent("#closer-result"));
    assert.equal(shown.error, null);
    assert.equal(typeof shown.complete, "boolean");
    assert.ok(Array.isArray(shown.output.checklist));
  } finally {
    await browser.close();
    server.close();
  }
});

test("Node: the Watcher reviews through the local model; the verdict is typed and recorded", { timeout: 240_000 }, async () => {
  const { query, replies } = recordingClient();
  const executorPersona = personaCatalog().find((persona) => persona.name === "Kent Beck");
  const { persona } = pickWatcherPersona(executorPersona);
  const watcher = new Watcher({ agentId: "e2e", store: new MemoryStore() });
  const output = await watcher.inspect(
    {
      executor_result: { status: "done", artifacts: ["notes.md"], execution_log: "wrote notes.md", persona_applied: executorPersona.name },
      original_request: "Write release notes.",
      persona,
      executor_persona: executorPersona,
      task_classification: "implement",
    },
    query,
  );
  assert.ok(replies.length >= 1, "the model was asked");
  assert.equal(replies[0].error, null, `the endpoint answered: ${replies[0].error}`);
  assert.ok(!output.issues.some((issue) => issue.startsWith("UNDECIDABLE")), `the answer parsed: ${output.issues}`);
  assert.equal(typeof output.pass, "boolean");
  assert.equal(output.persona_applied, persona.name);
  assert.match(output.inspection_log, /^## Persona declaration/);
  assert.ok(Array.isArray(output.blindspots_covered));
  const ledger = await watcher.ledger();
  assert.equal(ledger.length, 1);
  assert.equal(ledger[0].verdict, output.pass);
});

test("Node: the Reflector analyses a trajectory through the local model; the result is typed", { timeout: 240_000 }, async () => {
  const { query: llm, replies } = recordingClient();
  const store = new MemoryStore();
  const playbook = new Playbook();
  playbook.applyDeltas([{ op_id: "seed/0", op: "ADD", section: "apis", content: "Read every page of a list." }]);
  await playbook.save(store, "default");
  const result = await createGovernor({ llm, store }).reflector().reflect(
    { query: "Total of May invoices?", generated_result: "1250", reasoning_steps: ["read page 1"], used_bullet_ids: ["b-0001"] },
    "2730.50",
    "total: FAILED",
    "appworld",
  );
  assert.ok(replies.length >= 1, "the model was asked");
  assert.equal(replies[0].error, null, `the endpoint answered: ${replies[0].error}`);
  assert.equal(result.error, null, `the analysis parsed and validated: ${result.error}`);
  assert.ok(Array.isArray(result.insights));
  for (const insight of result.insights) assert.equal(typeof insight.key_insight, "string");
  for (const evaluation of result.bullet_evaluations) {
    assert.equal(evaluation.bullet_id, "b-0001", "only the used bullet is tagged");
    assert.ok(["helpful", "harmful", "neutral"].includes(evaluation.tag));
  }
  // The model's reflection goes through the acceptance gate: the outcome is typed, whatever the model said.
  const gated = await GatedPlaybook.load(store, "default");
  const outcome = await gated.proposeReflection("local-1", result, { cases: ["held-out case"], evaluate: (playbook, cases) => cases.map(() => 0.5) });
  assert.ok(["accepted", "rejected", "unchanged"].includes(outcome.decision), outcome.decision);
  assert.match(outcome.fingerprint, /^[0-9a-f]{64}$/);
  assert.ok(Array.isArray(outcome.report.applied));
});

test("Node: the control loop's judge is the local model over HTTP; its answer is parsed and typed, and the loop never acts unasked", { timeout: 240_000 }, async () => {
  const { createControlLoop } = await import("agent-governor");
  const { query, replies } = recordingClient();
  const judgements = [];
  const approvals = [];
  const applies = [];
  const skill = { preview: () => ({ current_status: "review" }), apply: (request) => { applies.push(request); return { status: 200, body: { applied: true } }; } };
  const loop = createControlLoop({
    goal: "move ticket T-1 from review to done",
    judge: query,
    skills: { status_change: skill },
    actionTypes: { status_change: "change a ticket's status (node_id, from, to)" },
    approve: (request) => { approvals.push(request); },
    onJudgement: (outcome) => judgements.push(outcome),
  });
  loop.observe({ external: { tickets: [{ id: "T-1", status: "review" }] } });
  await loop.settled();
  assert.ok(replies.length >= 1, "the model was asked over HTTP");
  assert.equal(judgements.length, 1);
  const [outcome] = judgements;
  assert.equal(typeof outcome.ok, "boolean");
  if (outcome.ok) assert.ok(["reply", "act", "adjust_setting", "change_rules", "wait"].includes(outcome.judgement.decision));
  else assert.equal(typeof outcome.error, "string");
  assert.ok(["idle", "awaiting_approval", "stopped"].includes(loop.state().mode), loop.state().mode);
  // Whatever the model said, nothing was applied without a y.
  assert.equal(applies.length, 0);
  for (const request of approvals) assert.equal(request.lines.length, 2);
});

test("Node: the agent's judge, held to the moves the board allows, answers one of them or wait through the local model", { timeout: 240_000 }, async () => {
  const { createControlLoop } = await import("agent-governor");
  const { judgeWithinMoves } = await import("../../examples/agent/judge-within-moves.mjs");
  const { query, replies } = recordingClient();
  const moves = [
    { node_id: "task-1", from: "todo", to: "in_progress" },
    { node_id: "task-2", from: "in_review", to: "done" },
    { node_id: "task-2", from: "in_review", to: "in_progress" },
  ];
  const schemas = [];
  const recording = (prompt, options) => {
    schemas.push(options.outputSchema);
    return query(prompt, options);
  };
  const outcomes = [];
  let proposed = null;
  const loop = createControlLoop({
    goal: "Move the tasks on the board forward one step at a time.",
    judge: judgeWithinMoves(recording, () => moves, "status_change"),
    actionTypes: { status_change: "move one task to a next status (parameters node_id, from, to)" },
    skills: { status_change: () => ({ succeeded: false, detail: "not in this test" }) },
    approve: (request) => {
      proposed = request.action;
      return "n";
    },
    onJudgement: (outcome) => outcomes.push(outcome),
  });
  loop.observe({ external: { tasks: { "task-1": "todo", "task-2": "in_review" } } });
  const deadline = Date.now() + 200_000;
  while (outcomes.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  loop.stop();
  assert.ok(replies.length >= 1, "the model was asked");
  assert.equal(replies[0].error, null, `the endpoint answered: ${replies[0].error}`);
  assert.equal(schemas[0].oneOf.length, moves.length + 1, "the schema sent lists each move and wait");
  assert.equal(outcomes[0]?.ok, true, `the answer parsed: ${JSON.stringify(outcomes[0])}`);
  const judgement = outcomes[0].judgement;
  assert.ok(["act", "wait"].includes(judgement.decision), JSON.stringify(judgement));
  if (judgement.decision === "act") {
    const { node_id, from, to } = judgement.parameters;
    assert.ok(moves.some((move) => move.node_id === node_id && move.from === from && move.to === to), JSON.stringify(judgement));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(proposed?.parameters, judgement.parameters, "the move became the approval request");
  }
});

test("Node: the AI SDK's OpenAI-compatible provider gets a tool call from the local model; the governed tool runs only once approved", { timeout: 240_000 }, async () => {
  const requests = [];
  const recordingFetch = async (url, init) => {
    requests.push(JSON.parse(init.body));
    return fetch(url, init);
  };
  const provider = createOpenAICompatible({ name: "local", baseURL: model.url, fetch: recordingFetch });
  const sent = [];
  const sendEmail = tool({ description: "Sends an email", inputSchema: z.object({ to: z.string(), subject: z.string() }), execute: async (input) => sent.push(input) });
  const signer = { keyId: "local", secret: "0123456789abcdef0123456789abcdef-local-model" };
  const governed = governTools({ sendEmail }, { store: new MemoryStore(), keys: { local: signer.secret } });
  const messages = [{ role: "user", content: "Email bob@example.com the Q3 numbers" }];
  const first = await generateText({ model: provider(model.model), tools: governed.tools, messages, toolChoice: "required", stopWhen: stepCountIs(2) });
  // The request offered the tool; the server's grammar holds the answer to a call of it: the SDK parsed it
  // and asked for approval. What the model wrote in the arguments is not asserted.
  assert.equal(requests[0].tools[0].function.name, "sendEmail");
  const request = first.content.find((part) => part.type === "tool-approval-request");
  assert.equal(request?.toolCall.toolName, "sendEmail", JSON.stringify(first.content));
  assert.deepEqual(sent, []);
  const response = await governed.approve(request, issueConfirmation(governed.draft(request), signer));
  const second = await generateText({ model: provider(model.model), tools: governed.tools, messages: [...messages, ...first.response.messages, { role: "tool", content: [response] }], stopWhen: stepCountIs(2) });
  assert.equal(typeof second.text, "string");
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0], JSON.parse(governed.draft(request).proposed_change.to));
});
