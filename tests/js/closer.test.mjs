// The Closer and the built-in client from the built package in Node, against a scripted endpoint.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  Closer,
  CloserCompletionHandler,
  closerOutputSchema,
  decideCompletion,
  formatIterationSummary,
  openAICompatible,
  parseCloserOutput,
  renderPrompt,
  resolvePrompt,
} from "agent-governor";
import { startFakeLlm } from "../support/fake-llm-server.mjs";

let fake;
let base;
before(async () => {
  fake = await startFakeLlm(0);
  base = `http://127.0.0.1:${fake.address().port}`;
});
after(() => fake?.close());

const input = { structuredOutput: { status: "implemented" }, stepId: "complete.issue", c3l: { c2: "complete", c3: "issue" } };
const answer = (allComplete, confidence, items) => ({
  checklist: items.map(([id, completed]) => ({ id, description: id, completed, evidence: null })),
  allComplete,
  summary: allComplete ? "done" : "not yet",
  pendingActions: allComplete ? [] : ["finish"],
  confidence,
});

test("a QueryFn receives the prompt and the strict schema; the answer decides", async () => {
  const calls = [];
  const query = async (prompt, options) => {
    calls.push({ prompt, options });
    return { structuredOutput: answer(true, 0.9, [["impl", true]]) };
  };
  const result = await new Closer({ workingDir: "/w", agentId: "iterator" }).check(input, query);
  assert.equal(result.complete, true);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].options.outputSchema, closerOutputSchema().schema);
  assert.equal(calls[0].options.schemaName, "closer_output");
  assert.match(calls[0].prompt, /"status": "implemented"/);
  assert.equal(result.promptStatus, "Found");
});

test("the allComplete/0.99 trick is not complete, and the next iteration is told why", async () => {
  const query = () => ({ structuredOutput: answer(true, 0.99, [["impl", true], ["tests", false]]) });
  const result = await new Closer({ workingDir: "", agentId: "a" }).check(input, query);
  assert.equal(result.complete, false);
  assert.match(result.reasons.join("\n"), /not completed: tests/);
  assert.match(result.nextIterationInput, /\[tests\]/);
  assert.equal(formatIterationSummary(result), result.nextIterationInput);
});

test("the built-in client is a QueryFn: request plumbing and typed errors", async () => {
  const ok = openAICompatible({ baseUrl: `${base}/ok/v1`, model: "m1", apiKey: "k1" });
  const reply = await ok("prompt", { outputSchema: closerOutputSchema().schema, schemaName: "closer_output" });
  assert.equal(reply.structuredOutput.summary, "model=m1;strict=true;schema=true;auth=Bearer k1;extra=");
  const failing = openAICompatible({ baseUrl: `${base}/http500/v1`, model: "m1" });
  const error = await failing("prompt", { outputSchema: {}, schemaName: "x" });
  assert.equal(error.errorKind, "http");
  assert.match(error.error, /HTTP 500: the model crashed/);
  const result = await new Closer({ workingDir: "", agentId: "a" }).check(input, ok);
  assert.equal(result.complete, true);
});

test("the built-in client passes finish_reason and the reasoning field: a cut answer is never complete, and is asked again", async () => {
  const cut = openAICompatible({ baseUrl: `${base}/cut/v1`, model: "m1" });
  const reply = await cut("prompt", { outputSchema: closerOutputSchema().schema, schemaName: "closer_output" });
  assert.equal(reply.finishReason, "length");
  const prompts = [];
  const recording = (prompt, options) => {
    prompts.push(prompt);
    return cut(prompt, options);
  };
  const result = await new Closer({ workingDir: "", agentId: "a", maxReasks: 1 }).check(input, recording);
  assert.equal(result.complete, false);
  assert.equal(result.queries, 2);
  assert.match(result.error, /token limit/);
  assert.match(prompts[1], /Truncated: .*token limit.*It was cut off: keep it shorter\./s);
  const thinking = openAICompatible({ baseUrl: `${base}/thinking/v1`, model: "m1" });
  const only = await thinking("prompt", { outputSchema: closerOutputSchema().schema, schemaName: "closer_output" });
  assert.deepEqual([only.text, only.finishReason, typeof only.reasoning], ["", "length", "string"]);
  const never = await new Closer({ workingDir: "", agentId: "a", maxReasks: 0 }).check(input, thinking);
  assert.equal(never.complete, false);
  assert.match(never.error, /only reasoning/);
});

test("the parse functions take the reply's facts: finishReason and startsInReasoning", () => {
  const complete = JSON.stringify(answer(true, 0.9, [["a", true]]));
  const cut = parseCloserOutput(complete, { finishReason: "length" });
  assert.deepEqual([cut.ok, cut.error.kind, cut.error.truncated], [false, "truncated", true]);
  const r1 = parseCloserOutput(`Okay, maybe ${complete}`, { startsInReasoning: true });
  assert.deepEqual([r1.ok, r1.error.kind], [false, "truncated"]);
  const prose = parseCloserOutput(`${complete}\n<answer>Not done yet.</answer>`);
  assert.deepEqual([prose.ok, prose.error.kind], [false, "final_unreadable"]);
  assert.throws(() => parseCloserOutput(complete, { finishReason: 3 }), (error) => error.code === "invalid_input");
});

test("the completion handler: not checked, then checked, then stopped at its limit", async () => {
  const closer = new Closer({ workingDir: "", agentId: "a" });
  const handler = closer.completionHandler({ stepId: "complete.issue", c3l: { c2: "complete", c3: "issue" }, maxIterations: 1 });
  assert.equal(handler.getCompletionDescription(), "Not checked");
  const query = () => ({ structuredOutput: answer(false, 0.5, [["impl", false]]) });
  const beforeCheck = handler.isComplete();
  assert.ok(beforeCheck instanceof Promise, "the seed's CompletionHandler.isComplete is async");
  assert.equal(await beforeCheck, false);
  await handler.checkCompletion({ structuredOutput: { status: "wip" } }, query);
  assert.equal(await handler.isComplete(), false);
  assert.equal(handler.complete, false);
  assert.equal(handler.getCompletionDescription(), "not yet");
  const stopped = await handler.checkCompletion({ structuredOutput: { status: "wip" } }, query);
  assert.match(stopped.error, /iteration limit/);
  assert.equal(handler.isExhausted(), true);
});

test("prompts: host loader first, embedded fallback, every path tried when nothing exists", async () => {
  const files = { "/w/.agent/a/prompts/steps/complete/issue/f_default.md": "---\nparams: [step_id]\n---\nCheck {{ step_id }}: {{ input }}" };
  const loadPrompt = (path) => files[path] ?? null;
  const retry = await resolvePrompt({ workingDir: "/w", agentId: "a", c2: "complete", c3: "issue", adaptation: "retry", loadPrompt });
  assert.deepEqual([retry.status, retry.source, retry.path], ["Fallback", "host", "/w/.agent/a/prompts/steps/complete/issue/f_default.md"]);
  assert.equal(renderPrompt(retry.text, { step_id: "s1", input: "{}" }), "Check s1: {}");
  assert.throws(() => renderPrompt(retry.text, { input: "{}" }), { code: "prompt_missing_param" });
  await assert.rejects(resolvePrompt({ workingDir: "/w", agentId: "a", c2: "complete", c3: "nothing" }), (error) => {
    assert.equal(error.code, "prompt_not_found");
    assert.match(error.message, /prompts\/steps\/complete\/nothing\/f_default\.md/);
    return true;
  });
});

test("pure helpers: decideCompletion and parseCloserOutput", () => {
  assert.equal(decideCompletion(answer(true, 0.8, [["a", true]])).complete, true);
  assert.equal(decideCompletion(answer(true, 0.85, [["a", true]]), { confidenceThreshold: 0.9 }).complete, false);
  const parsed = parseCloserOutput("Sure!\n```json\n" + JSON.stringify(answer(true, 0.9, [["a", true]])) + "\n```");
  assert.equal(parsed.ok, true);
  const wrong = parseCloserOutput('{"checklist": [{"id": "a", "description": "d", "completed": "yes"}], "allComplete": true, "summary": "", "confidence": 1}');
  assert.deepEqual([wrong.ok, wrong.error.kind, wrong.error.path], [false, "schema", "checklist[0].completed"]);
});

test("the logger hears the prompt, the re-ask and the verdict; a throwing logger changes nothing", async () => {
  const lines = [];
  const logger = { debug: (m) => lines.push(["debug", m]), info: (m) => lines.push(["info", m]), warn: (m) => lines.push(["warn", m]) };
  const answers = [{ text: "no json here" }, { structuredOutput: answer(true, 0.9, [["a", true]]) }];
  const result = await new Closer({ workingDir: "", agentId: "a", logger }).check(input, () => answers.shift());
  assert.equal(result.complete, true);
  assert.deepEqual(lines.map(([level]) => level), ["debug", "warn", "info"]);
  assert.match(lines[0][1], /prompts\/steps\/complete\/issue\/f_default\.md/);
  assert.match(lines[2][1], /complete \(2 queries\)/);
  const noisy = { info: () => { throw new Error("log sink down"); } };
  const again = await new Closer({ workingDir: "", agentId: "a", logger: noisy }).check(input, () => ({ structuredOutput: answer(true, 0.9, [["a", true]]) }));
  assert.equal(again.complete, true);
  assert.throws(() => new Closer({ workingDir: "", agentId: "a", logger: "console" }), { code: "invalid_port", path: "options.logger" });
});

test("list bounds are options: a 30-item checklist completes, the schema carries the bound, an answer past it names it", async () => {
  const items = Array.from({ length: 30 }, (_, n) => [`item-${n + 1}`, true]);
  const closer = new Closer({ workingDir: "", agentId: "a", maxReasks: 0 });
  let sent;
  const result = await closer.check(
    { structuredOutput: { status: "done" }, stepId: "complete.issue", c3l: { c2: "complete", c3: "issue" } },
    (prompt, options) => {
      sent = options.outputSchema;
      return { structuredOutput: answer(true, 0.9, items) };
    },
  );
  assert.equal(result.complete, true, result.reasons.join("; "));
  assert.equal(result.output.checklist.length, 30);
  assert.equal(sent.properties.checklist.maxItems, 100);
  const bounded = new Closer({ workingDir: "", agentId: "a", maxReasks: 0, maxChecklistItems: 20 });
  const refused = await bounded.check(
    { structuredOutput: { status: "done" }, stepId: "complete.issue", c3l: { c2: "complete", c3: "issue" } },
    () => ({ structuredOutput: answer(true, 0.9, items) }),
  );
  assert.equal(refused.complete, false);
  assert.match(refused.error, /30 items; the option `maxChecklistItems` allows at most 20/);
  assert.equal(closerOutputSchema({ maxChecklistItems: 30 }).schema.properties.checklist.maxItems, 30);
  assert.equal(closerOutputSchema().schema.properties.pendingActions.maxItems, 50);
  const text = JSON.stringify(answer(true, 0.9, items));
  assert.equal(parseCloserOutput(text).ok, true);
  const parsed = parseCloserOutput(text, { maxChecklistItems: 10 });
  assert.deepEqual([parsed.ok, parsed.error.kind, parsed.error.path], [false, "schema", "checklist"]);
  for (const bad of [{ maxChecklistItems: 0 }, { maxChecklistItems: 2.5 }, { maxChecklistItems: "9" }, { maxChecklists: 9 }, { maxChecklistItems: 10001 }]) {
    assert.throws(() => parseCloserOutput(text, bad), (error) => error.code === "invalid_input", JSON.stringify(bad));
  }
  assert.throws(() => new Closer({ workingDir: "", agentId: "a", maxPendingActions: 0 }), (error) => error.code === "invalid_input");
  assert.throws(() => closer.completionHandler({ stepId: "s", c3l: { c2: "complete", c3: "issue" }, maxIterations: 0 }), (error) => error.code === "invalid_input");
});
