// Answer-parser figures through the built package (as a host calls it): the median and p95 time to parse
// each corpus case with its parser, an answer near the 1 MiB limit, and a 5 MB answer (refused at the
// boundary before it is copied into wasm memory). Figures, not assertions: run with
// `node bench/answer-parse.bench.mjs` after `npm run build`.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCloserOutput, parseReflection, parseWatcherVerdict } from "agent-governor";

const corpus = fileURLToPath(new URL("../tests/fixtures/corpus/", import.meta.url));
const parsers = { closer: parseCloserOutput, watcher: parseWatcherVerdict, reflector: parseReflection };
const cases = readFileSync(join(corpus, "generated.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));
for (const file of readdirSync(join(corpus, "local-model")).filter((name) => name.endsWith(".txt"))) {
  cases.push({ parser: file.split("-")[0], input: readFileSync(join(corpus, "local-model", file), "utf8") });
}

function time(body) {
  const start = process.hrtime.bigint();
  body();
  return Number(process.hrtime.bigint() - start) / 1e3; // µs
}
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

for (let round = 0; round < 3; round += 1) for (const c of cases) parsers[c.parser](c.input, c.options); // warm up
const samples = [];
for (let round = 0; round < 5; round += 1) for (const c of cases) samples.push(time(() => parsers[c.parser](c.input, c.options)));
samples.sort((a, b) => a - b);
console.log(`corpus: ${cases.length} answers x 5 rounds`);
console.log(`  median ${percentile(samples, 0.5).toFixed(1)} µs   p95 ${percentile(samples, 0.95).toFixed(1)} µs   max ${samples.at(-1).toFixed(1)} µs`);

const answer = JSON.stringify({ checklist: [], allComplete: false, summary: "s", pendingActions: null, confidence: 0.5 });
const nearLimit = `${"Some prose about the work. ".repeat(38_000)}\n${answer}`;
const nearTimes = Array.from({ length: 5 }, () => time(() => parseCloserOutput(nearLimit))).sort((a, b) => a - b);
const nearOk = parseCloserOutput(nearLimit).ok;
console.log(`${(nearLimit.length / 1e6).toFixed(2)} MB answer (under the 1 MiB limit): median ${(nearTimes[2] / 1e3).toFixed(2)} ms, parsed: ${nearOk}`);

const fiveMb = `${"x".repeat(5 * 1024 * 1024)}${answer}`;
let refusal = "";
const fiveTimes = Array.from({ length: 5 }, () =>
  time(() => {
    try {
      parseCloserOutput(fiveMb);
    } catch (error) {
      refusal = `${error.code} at ${error.path}`;
    }
  }),
).sort((a, b) => a - b);
console.log(`5 MB answer: median ${(fiveTimes[2] / 1e3).toFixed(3)} ms, refused: ${refusal}`);

// The text after an answer is read for corrections: 1 MB built to make that reading slow (field words that
// are never set, negative words that are parts of other words, a long invented turn).
const passing = JSON.stringify({ checklist: [], allComplete: true, summary: "s", pendingActions: [], confidence: 0.9 });
const trailing = {
  "field words never set": `${passing}\n${"confidence id tag pass summary checklist ".repeat(25_000)}`,
  "negative words inside other words": `${passing}\n${"failsafe unfailing blockedness ".repeat(33_000)}`,
  "one long invented turn": `${passing}<|im_end|>\n<|im_start|>user\n${"Looks good. ".repeat(85_000)}<|im_end|>`,
};
for (const [name, text] of Object.entries(trailing)) {
  const times = Array.from({ length: 5 }, () => time(() => parseCloserOutput(text))).sort((a, b) => a - b);
  const parsed = parseCloserOutput(text);
  console.log(`${(text.length / 1e6).toFixed(2)} MB, ${name}: median ${(times[2] / 1e3).toFixed(2)} ms, ${parsed.ok ? "read" : `refused (${parsed.error.kind})`}`);
}
