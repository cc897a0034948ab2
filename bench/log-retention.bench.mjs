// The execution log at the seed's size (seed 002: 10 MB kept, the judge reads the last 200-500 lines):
// `retainLog` (trim an 11 MiB log to 10 MB by whole lines) and `logTail` (its last 300 lines) through the
// built package, in Node and in headless Chromium, against plain JavaScript doing the same on the string
// (the named peer: TextEncoder + indexOf + TextDecoder for retention, lastIndexOf + slice for the tail; a
// split on "\n" as a second tail reference). Two logs: lines of Japanese text and emoji (a two-byte string
// in V8) and ASCII lines (a one-byte string). Every result is checked against the peer's before timing.
// Figures and ratios, never assertions: `node bench/log-retention.bench.mjs` after `npm run build`.
import { startServer } from "../examples/serve.mjs";
import { launchChromium } from "../tests/js/helpers.mjs";

const ROUNDS = Number(process.env.ROUNDS ?? 11);

/** Runs in Node and in the page (serialised by Playwright): builds the logs, checks, then times. */
async function measure({ specifier, rounds }) {
  const { retainLog, logTail } = await import(specifier);
  const LIMIT = 10 * 1024 * 1024;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const kinds = {
    "Japanese + emoji": (n) =>
      `{"time":"2026-11-23T10:00:00.000Z","event_summary":"チケット T-${n} をレビューから完了へ移動 🚀✅","cause":"HTTP 200 — 成功","impact_scope":"ボード上のチケット T-${n}"}\n`,
    ASCII: (n) =>
      `{"time":"2026-11-23T10:00:00.000Z","event_summary":"move ticket T-${n} from review to done","cause":"HTTP 200","impact_scope":"ticket T-${n} on the board"}\n`,
  };
  const retainPeer = (log, limit) => {
    const bytes = encoder.encode(log);
    if (bytes.length <= limit) return log;
    let start = bytes.indexOf(10, bytes.length - limit - 1) + 1;
    if (start === 0 || start >= bytes.length) {
      const end = bytes.at(-1) === 10 ? bytes.length - 1 : bytes.length;
      start = bytes.lastIndexOf(10, end - 1) + 1;
    }
    return decoder.decode(bytes.subarray(start));
  };
  const tailPeer = (log, lines) => {
    let at = log.endsWith("\n") ? log.length - 1 : log.length;
    for (let n = 0; n < lines && at > 0; n += 1) at = log.lastIndexOf("\n", at - 1);
    return at <= 0 && !log.startsWith("\n") ? log : log.slice(at + 1);
  };
  const tailSplit = (log, lines) => {
    const all = log.split("\n");
    if (all.at(-1) === "") all.pop();
    return `${all.slice(-lines).join("\n")}\n`;
  };
  // Short operations are repeated until a sample takes about 20 ms (Chromium's clock is coarse).
  const time = (body, repeat) => {
    const start = performance.now();
    for (let n = 0; n < repeat; n += 1) body();
    return (performance.now() - start) / repeat;
  };
  const repeatFor = (body) => {
    const once = time(body, 1);
    return Math.max(1, Math.min(2000, Math.ceil(20 / Math.max(once, 0.005))));
  };
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

  const results = [];
  for (const [kind, line] of Object.entries(kinds)) {
    const parts = [];
    let bytes = 0;
    for (let n = 0; bytes < 11 * 1024 * 1024; n += 1) {
      const next = line(n);
      parts.push(next);
      bytes += encoder.encode(next).length;
    }
    const log = parts.join("");
    const kept = retainLog(log);
    if (kept !== retainPeer(log, LIMIT)) throw new Error(`${kind}: retainLog differs from the peer`);
    const tail = logTail(log, 300);
    if (tail !== tailPeer(log, 300) || tail !== tailSplit(log, 300)) throw new Error(`${kind}: logTail differs from the peers`);
    // The lone-surrogate check both exports make on the whole log (the host's String#isWellFormed).
    const checkRepeat = repeatFor(() => log.isWellFormed());
    const wellFormed = median(Array.from({ length: rounds }, () => time(() => log.isWellFormed(), checkRepeat)));
    const peers = {
      "retainLog (10 MB)": { ours: () => retainLog(log), peer: () => retainPeer(log, LIMIT) },
      "logTail (300 lines)": { ours: () => logTail(log, 300), peer: () => tailPeer(log, 300), split: () => tailSplit(log, 300) },
    };
    for (const [operation, runs] of Object.entries(peers)) {
      const samples = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
      const repeats = Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, repeatFor(run)]));
      for (let round = 0; round < rounds + 1; round += 1) {
        for (const [name, run] of Object.entries(runs)) {
          const ms = time(run, repeats[name]);
          if (round > 0) samples[name].push(ms); // round 0 warms up
        }
      }
      results.push({
        kind,
        operation,
        logUnits: log.length,
        logBytes: bytes,
        keptBytes: encoder.encode(operation.startsWith("retain") ? kept : tail).length,
        lines: parts.length,
        ...Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])),
        repeats,
        wellFormed,
      });
    }
  }
  return results;
}

function print(host, results) {
  console.log(`\n${host}: median ms per call, ${ROUNDS} interleaved rounds (calls under 20 ms repeated within a round)`);
  for (const row of results.filter((row) => row.operation.startsWith("retain"))) {
    console.log(`  ${row.kind}: the host's isWellFormed on the whole log (both exports make it) ${row.wellFormed.toFixed(3)} ms`);
  }
  console.log(`${"log".padEnd(18)} ${"operation".padEnd(20)} ${"agent-governor".padStart(14)} ${"plain JS".padStart(9)} ${"ratio".padStart(7)} ${"split".padStart(7)}`);
  for (const row of results) {
    const split = row.split === undefined ? "" : row.split.toFixed(3);
    console.log(
      `${row.kind.padEnd(18)} ${row.operation.padEnd(20)} ${row.ours.toFixed(3).padStart(14)} ${row.peer.toFixed(3).padStart(9)} ${`${(row.ours / row.peer).toFixed(2)}x`.padStart(7)} ${split.padStart(7)}`,
    );
  }
}

const nodeResults = await measure({ specifier: "agent-governor", rounds: ROUNDS });
console.log(`log retention and tail benchmark: Node ${process.version}`);
for (const row of nodeResults.filter((row) => row.operation.startsWith("retain"))) {
  console.log(`  ${row.kind}: ${row.lines} lines, ${row.logBytes} bytes of UTF-8 (${row.logUnits} UTF-16 units); kept ${row.keptBytes} bytes`);
}
print("Node", nodeResults);

const server = await startServer(0);
const baseUrl = `http://127.0.0.1:${server.address().port}/`;
const browser = await launchChromium();
try {
  const page = await browser.context.newPage();
  // A blank page on the server's origin, so the package loads from /pkg/ as a browser user imports it.
  await page.route(`${baseUrl}bench.html`, (route) =>
    route.fulfill({ contentType: "text/html; charset=utf-8", body: "<!doctype html><title>bench</title>" }),
  );
  await page.goto(`${baseUrl}bench.html`);
  const version = await browser.context.browser()?.version();
  const browserResults = await page.evaluate(measure, { specifier: "/pkg/index.js", rounds: ROUNDS });
  print(`Chromium ${version ?? "(Debian)"}`, browserResults);
} finally {
  await browser.close();
  server.close();
}
