// Writes the answer-parser corpus: for each parser (closer, watcher, reflector), model answers shaped the
// way real models write them, each with its expected outcome, decided here from how the case is built
// (never from what the parser does): `{ "value": ... }` for the answer that must be read, or
// `{ "reject": kind }` for a refusal of that kind.
//
// Usage: node scripts/generate-answer-corpus.mjs   (writes tests/fixtures/corpus/generated.jsonl)
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const target = fileURLToPath(new URL("../tests/fixtures/corpus/generated.jsonl", import.meta.url));

// Answers in the canonical form each parser returns (every field present), in pairs that disagree.
const closer = (complete, summary = complete ? "All done" : "Tests still fail") => ({
  checklist: [
    { id: "impl", description: "Implementation merged", completed: true, evidence: "PR #12" },
    { id: "tests", description: "Tests pass", completed: complete, evidence: complete ? "CI green" : null },
  ],
  allComplete: complete,
  summary,
  pendingActions: complete ? [] : ["fix the failing tests"],
  confidence: complete ? 0.92 : 0.7,
});
const watcher = (pass, log = "## Inspection\n1. artifacts present: ok") => ({
  pass,
  issues: pass ? ["minor: naming to check later"] : ["CRITICAL: authentication is missing"],
  inspection_log: log,
  persona_applied: null,
  blindspots_covered: ["future change: checked"],
  misclassification_detected: false,
  reclassification_suggestion: null,
  approval_criteria: { no_critical_issues: pass, acknowledged_trade_offs: true },
});
const reflector = (helpful, lesson = "Read every page before summing.") => ({
  insights: [
    {
      reasoning: "The sum stopped at page one.",
      error_identification: "Only the first page was read.",
      root_cause_analysis: "The pagination bullet was ignored.",
      correct_approach: "Follow every next link.",
      key_insight: lesson,
    },
  ],
  bullet_evaluations: [{ bullet_id: "b-0001", tag: helpful ? "helpful" : "harmful", reason: "it decided the result" }],
});

const parsers = {
  closer: {
    answer: closer,
    japanese: () => closer(false, "テストがまだ失敗しています。修正が必要です。"),
    flagKey: "allComplete",
    alias: "all_complete",
    corrections: [
      "Correction: confidence should be 0.55",
      "Wait, `allComplete` must be `false`.",
      "allComplete = false",
      'Correction: "allComplete": false',
      "Note: all_complete should be false since the tests were not rerun.",
      '訂正: {"全完了": false}',
      { negative: "Actually, looking again, the work is not complete." },
    ],
    contradictions: ['"isComplete": false', '"approved": false', '"完了": false', '"done": false'],
    itemContradiction: (good) => ({ ...good, checklist: good.checklist.map((item, index) => (index === 0 ? { ...item, status: "blocked" } : item)) }),
    verdictWord: "status",
    arrayKey: "checklist",
    maxItems: 100,
    wrapperName: "closer_output",
    withText: (good, text) => ({ ...good, summary: text }),
  },
  watcher: {
    answer: watcher,
    japanese: () => watcher(false, "## 検査項目\n1. artifacts が空でないか: ✅\n## 結論\nクリティカルな問題あり。不合格。"),
    flagKey: "pass",
    alias: "inspectionLog",
    corrections: [
      "pass should be false",
      "Correction: `pass` must be `false` (authentication is missing).",
      "PASS = false",
      '訂正します: {"合格": false}',
      { negative: "On reflection the change fails the security review." },
    ],
    contradictions: ['"result": "FAIL"', '"approved": false', '"判定": "不合格"'],
    itemContradiction: (good) => ({ ...good, approval_criteria: { ...good.approval_criteria, passed: false } }),
    verdictWord: "verdict",
    arrayKey: "issues",
    maxItems: 100,
    wrapperName: "watcher_verdict",
    withText: (good, text) => ({ ...good, inspection_log: text }),
  },
  reflector: {
    answer: reflector,
    japanese: () => reflector(false, "全てのページを読んでから合計する。"),
    flagKey: null,
    alias: "bulletEvaluations",
    corrections: [
      '{"bullet_id": "b-0001", "tag": "harmful"}',
      "Correction: tag should be harmful for b-0001.",
      "Correction: the key_insight should read: stop at page one.",
    ],
    contradictions: ['"status": "helpful"', '"approved": true'],
    itemContradiction: (good) => ({ ...good, bullet_evaluations: good.bullet_evaluations.map((item) => ({ ...item, verdict: "harmful" })) }),
    verdictWord: null,
    arrayKey: "insights",
    maxItems: 20,
    wrapperName: "reflection",
    withText: (good, text) => ({ ...good, insights: good.insights.map((insight) => ({ ...insight, reasoning: text })) }),
  },
};

const compact = (value) => JSON.stringify(value);
const pretty = (value) => JSON.stringify(value, null, 2);
/** A JSON text with a raw key/value pair inserted after the opening brace. */
const withRaw = (value, raw) => `{${raw}, ${compact(value).slice(1)}`;
const singleQuoted = (value) =>
  compact(value).replace(/"((?:[^"\\]|\\.)*)"/g, (_, body) => `'${body.replace(/\\"/g, '"').replace(/'/g, "\\'")}'`);
const unquotedKeys = (value) => compact(value).replace(/"([A-Za-z_][A-Za-z0-9_]*)":/g, "$1:");
const pythonic = (value) => compact(value).replace(/\btrue\b/g, "True").replace(/\bfalse\b/g, "False").replace(/\bnull\b/g, "None");

const cases = [];
const add = (parser, name, input, expect, options) =>
  cases.push({ id: `${parser}/${name}`, parser, input, expect, ...(options ? { options } : {}) });
/** The answer with every string replaced by a placeholder naming its field: a format template. */
const template = (value, key = "value") => {
  if (typeof value === "string") return `<${key.replace(/_/g, "-")}>`;
  if (Array.isArray(value)) return value.map((item) => template(item, key));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, template(v, k)]));
  return value;
};
const QWEN_BUDGET_STOP = "Considering the limited time by the user, I have to give the solution based on the thinking directly now.";

for (const [parser, spec] of Object.entries(parsers)) {
  for (const [variant, good, other] of [
    ["a", spec.answer(false), spec.answer(true)],
    ["b", spec.answer(true), spec.answer(false)],
    ["ja", spec.japanese(), spec.answer(true)],
  ]) {
    const value = { value: good };
    const name = (kind) => `${kind}-${variant}`;
    add(parser, name("bare"), compact(good), value);
    add(parser, name("pretty"), pretty(good), value);
    add(parser, name("fenced"), `Here is my assessment.\n\n\`\`\`json\n${pretty(good)}\n\`\`\`\n\nLet me know if you need more.`, value);
    add(parser, name("fence-no-tag"), `\`\`\`\n${compact(good)}\n\`\`\``, value);
    add(parser, name("amid-prose"), `I checked everything. The result is ${compact(good)} and that is final.`, value);
    add(parser, name("japanese-prose"), `確認しました。結果は次の通りです。\n${pretty(good)}\n以上です。`, value);
    add(parser, name("think-draft"), `<think>First idea: ${compact(other)}. Hmm, no.</think>\n${compact(good)}`, value);
    add(parser, name("thinking-draft"), `<thinking>\n${pretty(other)}\n</thinking>\n\n${pretty(good)}`, value);
    add(parser, name("reasoning-draft"), `<reasoning>maybe ${compact(other)}</reasoning>${compact(good)}`, value);
    add(parser, name("analysis-draft"), `<analysis>${compact(other)}</analysis>\n\`\`\`json\n${compact(good)}\n\`\`\``, value);
    add(parser, name("unclosed-think-at-end"), `${compact(good)}\n<think>should it be ${compact(other)}`, { reject: "truncated" });
    add(parser, name("orphan-close-think"), `so maybe ${compact(other)} or not</think>\n${compact(good)}`, value);
    add(parser, name("harmony"), `<|channel|>analysis<|message|>draft ${compact(other)}<|end|><|start|>assistant<|channel|>final<|message|>${compact(good)}`, value);
    add(parser, name("lone-brace-in-reasoning"), `<think>The output must begin with {</think>${compact(good)}`, value);
    add(parser, name("template-then-answer"), `Use the format {"key": <value>, ...}.\n${compact(good)}`, value);
    add(parser, name("example-then-answer"), `For example: ${compact(other)}\nMy answer: ${compact(good)}`, { reject: "ambiguous" });
    add(parser, name("draft-then-answer-in-prose"), `Draft ${compact(other)}\nFixed ${compact(good)}`, { reject: "ambiguous" });
    add(parser, name("example-then-answer-tag"), `For example: ${compact(other)}\n<answer>${compact(good)}</answer>`, value);
    add(parser, name("json-tag"), `<json>${compact(good)}</json>`, value);
    add(parser, name("output-tag-after-example"), `e.g. ${compact(other)}\n<output>\n${pretty(good)}\n</output>`, value);
    add(parser, name("final-answer-marker"), `Template: ${compact(other)}\n**Final answer:**\n${compact(good)}`, value);
    add(parser, name("agreeing-twice"), `\`\`\`json\n${compact(good)}\n\`\`\`\nOnce more: ${compact(good)}`, value);
    add(parser, name("single-quotes"), singleQuoted(good), value);
    add(parser, name("unquoted-keys"), unquotedKeys(good), value);
    add(parser, name("python-literals"), pythonic(good), value);
    add(parser, name("comments"), `{\n  // the answer\n  ${pretty(good).slice(1, -1).trim()} /* done */\n}`, value);
    add(parser, name("trailing-commas"), compact(good).replace(/]/g, ",]").replace(/}$/, ",}").replace(/\[,]/g, "[]"), value);
    add(parser, name("smart-quotes"), compact(good).replace(/"([A-Za-z_]+)":/g, "“$1”:"), value);
    add(parser, name("raw-newline-in-string"), compact(good).replace(/\\n/g, "\n"), value);
    add(parser, name("one-element-array"), compact([good]), value);
    add(parser, name("double-encoded"), JSON.stringify(compact(good)), value);
    add(parser, name("response-wrapper"), compact({ response: good }), value);
    add(parser, name("type-name-wrapper"), compact({ [spec.wrapperName]: good }), value);
    add(parser, name("openai-tool-call"), compact({ tool_calls: [{ id: "call_1", type: "function", function: { name: spec.wrapperName, arguments: compact(good) } }] }), value);
    add(parser, name("anthropic-tool-use"), compact({ content: [{ type: "text", text: "Here." }, { type: "tool_use", id: "t1", name: spec.wrapperName, input: good }] }), value);
    add(parser, name("openai-tool-call-other-tool"), compact({ tool_calls: [{ id: "call_1", type: "function", function: { name: "answer", arguments: compact(good) } }] }), { reject: "schema" });
    add(parser, name("anthropic-tool-use-other-tool"), compact({ content: [{ type: "tool_use", id: "t1", name: "search", input: good }] }), { reject: "schema" });

    // The final answer decides: a JSON draft is never read in place of a final answer that is not JSON.
    add(parser, name("draft-then-prose-answer-tag"), `${compact(other)}\n<answer>No: the work is not finished, see the failing checks.</answer>`, { reject: "final_unreadable" });
    add(parser, name("draft-then-yaml-answer-tag"), `${compact(other)}\n<answer>\nverdict: not finished\nreason: the checks fail\n</answer>`, { reject: "final_unreadable" });
    add(parser, name("draft-then-final-answer-prose"), `Draft: ${compact(other)}\n\nFinal answer: the work is not finished.`, { reject: "final_unreadable" });
    add(parser, name("draft-then-final-answer-heading-yaml"), `${pretty(other)}\n\n## Final answer\n\nverdict: no\n`, { reject: "final_unreadable" });
    add(parser, name("draft-then-final-answer-json"), `${compact(other)}\n\nFinal answer:\n${compact(good)}`, value);
    add(parser, name("result-tag-then-example"), `<result>${compact(good)}</result>\nFor example: ${compact(other)}`, { reject: "ambiguous" });
    add(parser, name("final-answer-in-a-sentence"), `${compact(good)}\nThat is my final answer.`, value);

    // Templates are never answers.
    add(parser, name("template-only"), `Answer in this format:\n${pretty(template(good))}`, { reject: "template" });
    add(parser, name("template-fenced"), `\`\`\`json\n${compact(template(good))}\n\`\`\``, { reject: "template" });
    add(parser, name("template-then-answer-json"), `Format: ${compact(template(other))}\nAnswer: ${compact(good)}`, value);
    add(parser, name("chat-template-echo"), `<|im_start|>system\nYou check work.<|im_end|>\n<|im_start|>user\nAnswer like ${compact(other)}<|im_end|>\n<|im_start|>assistant\n`, { reject: "no_json" });
    add(parser, name("chat-template-echo-then-answer"), `<|im_start|>user\nFor example ${compact(other)}<|im_end|>\n<|im_start|>assistant\n${compact(good)}<|im_end|>`, value);
    add(parser, name("llama3-echo-then-answer"), `<|start_header_id|>user<|end_header_id|>\n\nFor example ${compact(other)}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n${compact(good)}<|eot_id|>`, value);
    add(parser, name("gemma-echo-only"), `<start_of_turn>user\nReply like ${compact(other)}<end_of_turn>\n`, { reject: "no_json" });

    // Reasoning is recognised by what the servers emit.
    add(parser, name("harmony-stripped-no-final"), `analysisWe need to check the result. Draft: ${compact(other)}. Let's verify each item`, { reject: "truncated" });
    add(parser, name("harmony-stripped-final"), `analysisDraft ${compact(other)} looks wrong.assistantcommentaryChecking.assistantfinal${compact(good)}`, value);
    add(parser, name("harmony-cut-in-analysis"), `<|channel|>analysis<|message|>Draft ${compact(other)} so the answer`, { reject: "truncated" });
    add(parser, name("harmony-final-prose"), `<|channel|>analysis<|message|>${compact(other)}<|end|><|start|>assistant<|channel|>final<|message|>It is not finished yet.<|return|>`, { reject: "final_unreadable" });
    add(parser, name("harmony-commentary-draft"), `<|start|>assistant<|channel|>commentary<|message|>${compact(other)}<|end|><|start|>assistant<|channel|>final<|message|>${compact(good)}<|return|>`, value);
    add(parser, name("r1-lone-close-then-prose"), `Okay, maybe ${compact(other)}.\n</think>\n\nThe work is not finished.`, { reject: "final_unreadable" });
    add(parser, name("r1-open-in-prompt-cut"), `Okay, let me check each item. Maybe ${compact(other)} but`, { reject: "truncated" }, { startsInReasoning: true });
    add(parser, name("r1-open-in-prompt-answered"), `Okay, maybe ${compact(other)}.\n</think>\n\n${compact(good)}`, value, { startsInReasoning: true });
    add(parser, name("cut-at-token-limit-in-reasoning"), `Okay, let me check each item. Maybe ${compact(other)} but`, { reject: "truncated" }, { finishReason: "length" });
    add(parser, name("cut-at-token-limit-complete-looking"), compact(good), { reject: "truncated" }, { finishReason: "length" });
    add(parser, name("qwen3-budget-stop"), `<think>\nLet me see: ${compact(other)}\n${QWEN_BUDGET_STOP}\n</think>\n\n${compact(good)}`, value);
    add(parser, name("qwen3-budget-stop-tags-stripped"), `Let me see: ${compact(other)}\n${QWEN_BUDGET_STOP}\n\n${compact(good)}`, value);
    add(parser, name("think-never-closed"), `<think>Checking ${compact(other)}`, { reject: "truncated" });

    add(parser, name("magistral-think-then-prose"), `[THINK]${compact(other)}[/THINK]Not acceptable yet.`, { reject: "final_unreadable" });
    add(parser, name("magistral-think-then-answer"), `[THINK]${compact(other)}[/THINK]${compact(good)}`, value);
    add(parser, name("kimi-think-then-answer"), `\u25c1think\u25b7${compact(other)}\u25c1/think\u25b7\n${compact(good)}`, value);
    add(parser, name("open-thoughts-then-answer"), `<|begin_of_thought|>${compact(other)}<|end_of_thought|>\n<|begin_of_solution|>${compact(good)}<|end_of_solution|>`, value);
    add(parser, name("ollama-thinking-then-prose"), `Thinking...\n${compact(other)}\n...done thinking.\n\nNot acceptable yet.`, { reject: "final_unreadable" });
    add(parser, name("spaced-closing-tag-then-prose"), `${compact(other)}</think >Not acceptable yet.`, { reject: "final_unreadable" });
    // A turn the model goes on to write after its own ended is never read, nor ignored when it answers.
    add(parser, name("phi3-answer-then-echo"), `<|assistant|>${compact(good)}<|end|>\n<|user|>\nReply like ${compact(other)}<|end|>`, { reject: "ambiguous" });
    add(parser, name("mistral-inst-echo-then-answer"), `[INST] Reply like ${compact(other)} [/INST] ${compact(good)}</s>`, value);
    add(parser, name("nested-answer-tags-disagree"), `<result><answer>${compact(other)}</answer> On reflection: ${compact(good)}</result>`, { reject: "ambiguous" });
    add(parser, name("label-then-example-tag"), `Final answer: ${compact(good)}\n\nNext time wrap it like <answer>${compact(other)}</answer>`, { reject: "ambiguous" });
    add(parser, name("my-final-answer-prose"), `${compact(other)}\n\nMy final answer: not acceptable yet.`, { reject: "final_unreadable" });
    add(parser, name("draft-then-broken-final"), `Draft:\n${compact(other)}\n\nCorrected:\n${compact(good).replace(/,"/, ' "')}`, { reject: "no_json" });
    add(parser, name("draft-then-wrapped-final"), `Draft:\n${compact(other)}\n\nCorrected:\n${compact({ revised: good })}`, { reject: "schema" });
    add(parser, name("marker-quoted-in-a-string"), compact(good).replace(/"([^"]*)"\s*:\s*"/, '"$1":"quoted </think> '), { reject: "ambiguous" });

    // Display noise is not syntax.
    add(parser, name("terminal-bold"), `\u001b[1m${compact(good)}\u001b[0m`, value);
    add(parser, name("terminal-colours-pretty"), `\u001b[32m${pretty(good)}\u001b[39m\n`, value);
    add(parser, name("terminal-colours-inside-brackets"), compact(good).replace(/:(true|false)/, ":\u001b[33m$1\u001b[0m"), value);
    add(parser, name("osc-title-and-link"), `\u001b]0;agent\u0007\u001b]8;;https://example.com\u001b\\${compact(good)}\u001b]8;;\u001b\\`, value);
    add(parser, name("zero-width-around"), `\ufeff\u200b${compact(good)}\u200d`, value);

    // Tool-call wrappers name the answer tool, once, with one set of arguments.
    add(parser, name("hermes-tool-call"), `<tool_call>\n{"name": "${spec.wrapperName}", "arguments": ${compact(good)}}\n</tool_call>`, value);
    add(parser, name("hermes-other-tool"), `<tool_call>\n{"name": "search", "arguments": ${compact(good)}}\n</tool_call>`, { reject: "schema" });
    add(parser, name("hermes-two-answer-calls"), `<tool_call>{"name": "${spec.wrapperName}", "arguments": ${compact(good)}}</tool_call>\n<tool_call>{"name": "${spec.wrapperName}", "arguments": ${compact(good)}}</tool_call>`, { reject: "ambiguous" });
    add(parser, name("hermes-answer-and-other-tool"), `<tool_call>{"name": "lookup", "arguments": {"q": "x"}}</tool_call>\n<tool_call>{"name": "${spec.wrapperName}", "arguments": ${compact(good)}}</tool_call>`, value);
    add(parser, name("hermes-arguments-and-parameters"), `<tool_call>{"name": "${spec.wrapperName}", "arguments": ${compact(good)}, "parameters": ${compact(other)}}</tool_call>`, { reject: "ambiguous" });
    add(parser, name("hermes-draft-outside-call"), `${compact(other)}\n<tool_call>{"name": "${spec.wrapperName}", "arguments": ${compact(good)}}</tool_call>`, { reject: "ambiguous" });
    add(parser, name("mistral-tool-calls-array"), `[TOOL_CALLS][{"name": "${spec.wrapperName}", "arguments": ${compact(good)}}]`, value);
    add(parser, name("mistral-tool-calls-args"), `[TOOL_CALLS]${spec.wrapperName}[ARGS]${compact(good)}`, value);
    add(parser, name("mistral-other-tool"), `[TOOL_CALLS]delete_file[ARGS]{"path": "/"}`, { reject: "schema" });
    add(parser, name("mistral-two-calls-array"), `[TOOL_CALLS][{"name": "${spec.wrapperName}", "arguments": ${compact(good)}}, {"name": "${spec.wrapperName}", "arguments": ${compact(other)}}]`, { reject: "ambiguous" });
    add(parser, name("llama-python-tag"), `<|python_tag|>{"name": "${spec.wrapperName}", "parameters": ${compact(good)}}<|eom_id|>`, value);
    add(parser, name("openai-style-escaped-arguments"), compact({ name: spec.wrapperName, arguments: compact(good) }), value);
    add(parser, name("openai-style-other-name"), compact({ name: "run_shell", arguments: compact(good) }), { reject: "schema" });
    add(parser, name("hermes-call-cut"), `<tool_call>{"name": "${spec.wrapperName}", "arguments": ${compact(good).slice(0, 40)}`, { reject: "truncated" });
    add(parser, name("extra-field"), compact({ ...good, note: "extra" }), value);
    add(parser, name("duplicate-key"), withRaw(good, `${JSON.stringify(Object.keys(good)[0])}: ${compact(Object.values(other)[0])}`), { reject: "duplicate_key" });
    add(parser, name("alias-key"), withRaw(good, `"${spec.alias}": ${compact(Object.values(other)[0])}`), { reject: "schema" });
    if (spec.verdictWord) add(parser, name("verdict-word"), withRaw(good, `"${spec.verdictWord}": "complete"`), { reject: "schema" });
    if (parser === "closer") {
      for (const confidence of [94, 1.5, -0.2]) add(parser, name(`confidence-${confidence}`), compact({ ...good, confidence }), { reject: "schema" });
    }
    const many = Array.from({ length: spec.maxItems + 32 }, () => good[spec.arrayKey][0]);
    add(parser, name("over-max-items"), compact({ ...good, [spec.arrayKey]: many }), { reject: "schema" });
    add(parser, name("array-as-struct"), compact(Object.values(good)), { reject: "schema" });
    add(parser, name("wrong-type"), compact({ ...good, [spec.arrayKey]: "none" }), { reject: "schema" });
    add(parser, name("missing-field"), compact(Object.fromEntries(Object.entries(good).slice(1))), { reject: "schema" });
    const text = pretty(good);
    add(parser, name("truncated"), text.slice(0, Math.floor(text.length * 0.6)), { reject: "truncated" });
    add(parser, name("truncated-after-draft"), `${compact(other)}\nCorrection:\n${text.slice(0, Math.floor(text.length / 2))}`, { reject: "truncated" });

    // After the final answer, silence or refusal: a correction in prose is heard, never ignored.
    // A negative verdict in prose contradicts a passing answer only; beside a failing one it changes nothing.
    spec.corrections.forEach((given, index) => {
      const correction = typeof given === "string" ? given : given.negative;
      const expected = typeof given === "string" || good[spec.flagKey] === true ? { reject: "ambiguous" } : value;
      add(parser, name(`correction-after-${index}`), `${compact(good)}\n${correction}`, expected);
      add(parser, name(`correction-after-fence-${index}`), `\`\`\`json\n${pretty(good)}\n\`\`\`\n\n${correction}`, expected);
    });
    add(parser, name("sign-off-after"), `${compact(good)}\n\nHope this helps! Ask me if anything is unclear.`, value);
    add(parser, name("explanation-after"), `${pretty(good)}\n\nI read the logs and the diff before writing this.`, value);
    // A field the schema does not have is never dropped unread when it states a verdict.
    spec.contradictions.forEach((raw, index) => add(parser, name(`contradicting-field-${index}`), withRaw(good, raw), { reject: "schema" }));
    add(parser, name("contradicting-item-field"), compact(spec.itemContradiction(good)), { reject: "schema" });
    // One turn: what the model invents after its turn ended is never read.
    add(parser, name("invented-turn-after-end"), `${compact(good)}<|im_end|>\n<|im_start|>user\nLooks good, mark it done.<|im_end|>\n<|im_start|>assistant\n${compact(other)}<|im_end|>`, { reject: "ambiguous" });
    add(parser, name("invented-turn-no-answer"), `${compact(good)}<|im_end|>\n<|im_start|>user\nThanks!<|im_end|>`, value);
    // One answer per body: a text block beside the tool call that says otherwise.
    add(parser, name("anthropic-text-disagrees"), compact({ content: [{ type: "text", text: `${spec.corrections[0]}` }, { type: "tool_use", id: "t1", name: spec.wrapperName, input: good }] }), { reject: "ambiguous" });
    // Fences inside strings are part of the string.
    const documented = spec.withText(good, "Example:\n```json\n{\"a\": 1}\n```\nand a log:\n```bash\nnpm test\n```");
    add(parser, name("fenced-answer-quoting-fences"), `\`\`\`json\n${pretty(documented)}\n\`\`\``, { value: documented });
    add(parser, name("four-backtick-fence"), `\`\`\`\`json\n${pretty(documented)}\n\`\`\`\``, { value: documented });
    // Parallel tool calls of which exactly one names the answer tool.
    add(parser, name("openai-parallel-calls-one-answer"), compact({ tool_calls: [{ id: "call_0", type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } }, { id: "call_1", type: "function", function: { name: spec.wrapperName, arguments: compact(good) } }] }), value);
    add(parser, name("anthropic-parallel-uses-one-answer"), compact({ content: [{ type: "tool_use", id: "t0", name: "lookup", input: { q: "x" } }, { type: "tool_use", id: "t1", name: spec.wrapperName, input: good }] }), value);
  }
  add(parser, "prose-only", "The task looks complete to me; all the tests pass and the code is committed.", { reject: "no_json" });
  add(parser, "prose-only-ja", "タスクは完了していると思います。テストは全て成功しました。", { reject: "no_json" });
  add(parser, "empty", "", { reject: "no_json" });
  add(parser, "only-reasoning", `<think>${compact(parsers[parser].answer(true))}</think>`, { reject: "no_json" });
  add(parser, "broken-json", "{this is not: json at all}", { reject: "no_json" });
}

writeFileSync(target, `${cases.map((c) => JSON.stringify(c)).join("\n")}\n`);
console.log(`wrote ${cases.length} cases to ${target}`);
