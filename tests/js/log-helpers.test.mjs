// The execution log's helpers at the seed's size (seed 002: 10 MB kept by whole lines, the oldest dropped
// first; the judge reads the last 200-500 lines), through the built package in Node: `retainLog` and
// `logTail` on an 11 MiB log of Japanese text and emoji, limits that fall inside a character, and the
// typed errors at the boundary.
import assert from "node:assert/strict";
import { test } from "node:test";
import { executionLogLine, logTail, retainLog } from "agent-governor";

const TEN_MB = 10 * 1024 * 1024;
const utf8 = (text) => Buffer.byteLength(text, "utf8");

/** Machine-written lines whose summaries mix Japanese (3 bytes a character) and emoji (4 bytes). */
const line = (n) =>
  executionLogLine("2026-11-23T10:00:00.000Z", {
    event_summary: `チケット T-${n} をレビューから完了へ移動 🚀✅`,
    cause: "HTTP 200 — 成功",
    impact_scope: `ボード上のチケット T-${n}`,
  });

const lines = [];
let logBytes = 0;
while (logBytes <= TEN_MB + 1024 * 1024) {
  lines.push(line(lines.length));
  logBytes += utf8(lines.at(-1));
}
const log = lines.join("");

/** `kept` is a suffix of `text` that starts at a line start. */
function assertWholeLinesSuffix(text, kept) {
  assert.ok(text.endsWith(kept), "a suffix of the log");
  const start = text.length - kept.length;
  assert.ok(start === 0 || text[start - 1] === "\n", "starts at a line start");
}

test("retainLog keeps the newest whole lines of an 11 MiB log of Japanese and emoji under 10 MB", () => {
  assert.ok(utf8(log) > TEN_MB + 1024 * 1024 && log.length < utf8(log), "a log of multi-byte lines over 11 MiB");
  const kept = retainLog(log);
  assertWholeLinesSuffix(log, kept);
  const keptBytes = utf8(kept);
  assert.ok(keptBytes <= TEN_MB, `kept ${keptBytes} bytes`);
  // No older line would also fit: the one before the kept part would take it over the limit.
  const keptLines = kept.split("\n").length - 1;
  const previous = lines.at(-keptLines - 1);
  assert.ok(keptBytes + utf8(previous) > TEN_MB, "as many lines as fit");
  assert.equal(kept.slice(-lines.at(-1).length), lines.at(-1), "the newest line is kept");
  assert.equal(kept, lines.slice(-keptLines).join(""));
  for (const row of kept.slice(0, 2000).split("\n").slice(0, -1)) assert.ok(JSON.parse(row).event_summary.includes("🚀"));
});

test("retainLog with a limit inside a 4-byte emoji keeps every whole line that fits, not just one", () => {
  const small = Array.from({ length: 40 }, (_, n) => `${String(n).padStart(2, "0")} 行 🚀\n`).join("");
  const lineBytes = utf8("00 行 🚀\n"); // 12 bytes: the kanji is 3, the emoji 4
  assert.equal(lineBytes, 12);
  for (let inside = 1; inside < lineBytes; inside += 1) {
    const limit = 30 * lineBytes + inside;
    const kept = retainLog(small, limit);
    assertWholeLinesSuffix(small, kept);
    assert.equal(kept.split("\n").length - 1, 30, `limit ${limit}`);
    assert.ok(kept.startsWith("10 行 🚀\n") && kept.endsWith("39 行 🚀\n"));
  }
  // The same on the big log: a cut at every byte of one line keeps about every line that fits.
  const lineLength = utf8(lines.at(-1));
  for (let shift = 0; shift < lineLength; shift += 7) {
    const kept = retainLog(log, TEN_MB - shift);
    assertWholeLinesSuffix(log, kept);
    assert.ok(TEN_MB - shift - utf8(kept) < lineLength, `shift ${shift}`);
  }
});

test("retainLog keeps a lone newest line over the limit, a log that fits unchanged, CRLF lines whole", () => {
  assert.equal(retainLog(`old\n${"🚀".repeat(20)}\n`, 10), `${"🚀".repeat(20)}\n`);
  assert.equal(retainLog("a\nb\nccc", 5), "b\nccc", "a last line without a newline");
  assert.equal(retainLog("", 1), "");
  assert.equal(retainLog("a\nb\n", 1), "b\n");
  assert.equal(retainLog("one\r\ntwo\r\nthree\r\n", 12), "two\r\nthree\r\n");
  const fits = retainLog(log, utf8(log));
  assert.equal(fits, log);
});

test("logTail reads the last 200-500 whole lines of an 11 MiB log, the newest last", () => {
  for (const [asked, expected] of [[undefined, 300], [300, 300], [10, 200], [500, 500], [5000, 500]]) {
    const tail = logTail(log, asked);
    assertWholeLinesSuffix(log, tail);
    assert.equal(tail, lines.slice(-expected).join(""), `lines ${asked}`);
  }
  const unterminated = log.slice(0, -1);
  const tail = logTail(unterminated, 200);
  assert.equal(tail, lines.slice(-200).join("").slice(0, -1));
  // A tail longer than one copied piece (64 Ki code units): 500 lines of 300 emoji each.
  const wide = Array.from({ length: 600 }, (_, n) => `${n} ${"🚀".repeat(300)}\n`).join("");
  const wideTail = logTail(wide, 500);
  assert.equal(wideTail.split("\n").length - 1, 500);
  assert.ok(wideTail.startsWith(`100 🚀`) && wideTail.endsWith(`599 ${"🚀".repeat(300)}\n`));
  assert.equal(logTail("only\n"), "only\n");
  assert.equal(logTail(""), "");
});

test("a log over 64 MiB, a non-string and a lone surrogate are typed errors at path log", () => {
  const over = "x".repeat(64 * 1024 * 1024 + 1);
  // Under 64 Mi code units but over 64 MiB of UTF-8: retainLog copies the whole log, so it refuses it.
  const overInBytes = `${"行".repeat(1023)}\n`.repeat(23 * 1024);
  const refused = { name: "AgentGovernorError", code: "invalid_input", path: "log" };
  for (const value of [over, 42, null, { log: "a\n" }, "ab\uD800cd\n"]) {
    assert.throws(() => retainLog(value), refused);
    assert.throws(() => logTail(value), refused);
  }
  assert.throws(() => retainLog(overInBytes), refused);
  assert.ok(overInBytes.length < 64 * 1024 * 1024 && utf8(overInBytes) > 64 * 1024 * 1024);
  // logTail copies only about the lines it returns, so it reads the tail of such a log.
  assert.equal(logTail(overInBytes, 200), `${"行".repeat(1023)}\n`.repeat(200));
  // Exactly 64 MiB is accepted.
  const atLimit = `${"x".repeat(64 * 1024 * 1024 - 2)}\ny`;
  assert.equal(retainLog(atLimit, 1), "y");
  assert.equal(logTail(atLimit), atLimit);
  // Other arguments are checked as before.
  assert.throws(() => retainLog("a\n", 0), { code: "invalid_input", path: "limitBytes" });
  assert.throws(() => logTail("a\n", 1.5), { code: "invalid_input", path: "lines" });
});

test("executionLogLine writes the machine's text for an empty or blank summary, cause or scope", () => {
  const written = JSON.parse(executionLogLine("2026-11-23T10:00:00.000Z", { event_summary: "", cause: "  \n", impact_scope: "\u3000" }));
  assert.deepEqual(written, {
    time: "2026-11-23T10:00:00.000Z",
    event_summary: "(no summary given)",
    cause: "(no cause given)",
    impact_scope: "(no scope given)",
  });
  const given = JSON.parse(executionLogLine("2026-11-23T10:00:00.000Z", { event_summary: "移動", cause: "HTTP 200", impact_scope: "T-1" }));
  assert.deepEqual([given.event_summary, given.cause, given.impact_scope], ["移動", "HTTP 200", "T-1"]);
});
