// The verdict every consumer must report (fixtures/verdict.js): for each module it imported, the signed
// confirmation passes and the altered one is rejected with `signature_invalid`.
import assert from "node:assert/strict";

/** Asserts `reported` (the parsed report) holds the expected verdict for each of `modules`. */
export function assertVerdict(reported, modules = ["agent-governor/guard"]) {
  assert.equal(reported?.error, undefined, `the consumer threw: ${reported?.error}`);
  assert.deepEqual(Object.keys(reported).sort(), [...modules].sort(), `reported modules: ${JSON.stringify(reported)}`);
  for (const module of modules) {
    const { valid, tampered } = reported[module];
    assert.deepEqual(valid, { verdict: "pass" }, `${module}: the signed confirmation passes`);
    assert.deepEqual([tampered.verdict, tampered.phase], ["rejected", "signature_invalid"], `${module}: the altered one is rejected`);
  }
}

/** The last line of `output` that parses as a JSON object (a host may print warnings before it). */
export function lastJsonLine(output) {
  const lines = output.trim().split("\n").reverse();
  for (const line of lines) {
    try {
      const value = JSON.parse(line);
      if (value && typeof value === "object") return value;
    } catch {
      // Not the report.
    }
  }
  throw new Error(`no JSON report in the output:\n${output}`);
}
