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
  blindspots_covered: ["future change: checked"],
  misclassification_detected: false,
  reclassification_suggestion: null,
  trade_offs_acknowledged: true,
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
    verdictWord: "status",
    arrayKey: "checklist",
    maxItems: 8,
    wrapperName: "closer_output",
  },
  watcher: {
    answer: watcher,
    japanese: () => watcher(false, "## 検査項目\n1. artifacts が空でないか: ✅\n## 結論\nクリティカルな問題あり。不合格。"),
    flagKey: "pass",
    alias: "inspectionLog",
    verdictWord: "verdict",
    arrayKey: "issues",
    maxItems: 8,
    wrapperName: "watcher_verdict",
  },
  reflector: {
    answer: reflector,
    japanese: () => reflector(false, "全てのページを読んでから合計する。"),
    flagKey: null,
    alias: "bulletEvaluations",
    verdictWord: null,
    arrayKey: "insights",
    maxItems: 5,
    wrapperName: "reflection",
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
const add = (parser, name, input, expect) => cases.push({ id: `${parser}/${name}`, parser, input, expect });

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
    add(parser, name("unclosed-think-at-end"), `${compact(good)}\n<think>should it be ${compact(other)}`, value);
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
    add(parser, name("openai-tool-call"), compact({ tool_calls: [{ id: "call_1", type: "function", function: { name: "answer", arguments: compact(good) } }] }), value);
    add(parser, name("anthropic-tool-use"), compact({ content: [{ type: "text", text: "Here." }, { type: "tool_use", id: "t1", name: "answer", input: good }] }), value);
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
  }
  add(parser, "prose-only", "The task looks complete to me; all the tests pass and the code is committed.", { reject: "no_json" });
  add(parser, "prose-only-ja", "タスクは完了していると思います。テストは全て成功しました。", { reject: "no_json" });
  add(parser, "empty", "", { reject: "no_json" });
  add(parser, "only-reasoning", `<think>${compact(parsers[parser].answer(true))}</think>`, { reject: "no_json" });
  add(parser, "broken-json", "{this is not: json at all}", { reject: "no_json" });
}

writeFileSync(target, `${cases.map((c) => JSON.stringify(c)).join("\n")}\n`);
console.log(`wrote ${cases.length} cases to ${target}`);
