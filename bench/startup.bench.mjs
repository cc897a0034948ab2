// Start-up of the two modules against cedar-wasm, in the same run: a fresh `WebAssembly.compile` of each
// module (p50; a unique custom section is appended to the bytes each time, so V8's module cache never
// answers), and the first verdict in a new Node process (import of the package entry: read, compile and
// instantiate; then construct and check once: what a cold edge isolate or CLI pays). Figures and ratios, never assertions:
// `node bench/startup.bench.mjs` after `npm run build`.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const modules = {
  "agent-governor/guard": `${root}dist/guard/wasm/agent_governor_guard_bg.wasm`,
  "agent-governor (full)": `${root}dist/wasm/agent_governor_full_bg.wasm`,
  "cedar-wasm": `${root}node_modules/@cedar-policy/cedar-wasm/nodejs/cedar_wasm_bg.wasm`,
};

/** The bytes with a custom section named `bench-<n>` appended: same code, different wire bytes. */
function uniqueBytes(bytes, n) {
  const name = Buffer.from(`bench-${n}`);
  return Buffer.concat([bytes, Buffer.from([0, name.length + 1, name.length]), name]);
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];

console.log(`start-up benchmark: Node ${process.version}\n`);
console.log(`${"module".padEnd(24)} ${"bytes".padStart(9)} ${"compile p50".padStart(12)} ${"p90".padStart(8)}  (ms)`);
const compileP50 = {};
const samples = 21;
for (const [name, path] of Object.entries(modules)) {
  const bytes = readFileSync(path);
  const times = [];
  for (let i = 0; i < samples; i++) {
    const fresh = uniqueBytes(bytes, i);
    const start = performance.now();
    await WebAssembly.compile(fresh);
    times.push(performance.now() - start);
  }
  compileP50[name] = percentile(times, 0.5);
  console.log(`${name.padEnd(24)} ${String(bytes.length).padStart(9)} ${compileP50[name].toFixed(2).padStart(12)} ${percentile(times, 0.9).toFixed(2).padStart(8)}`);
}

// The first verdict in a new process, measured inside it from just before the package's entry is imported
// (Node's own start-up excluded) to the answer: load the bytes, compile, instantiate, construct, check.
const guardFirstCall = (entry) => `
    const { issueConfirmation: issue, requestFor: requestOf } = await import("agent-governor/guard");
    const signer = { keyId: "k", secret: "0123456789abcdef0123456789abcdef-startup" };
    const c = issue({ node_id: "n", proposed_change: { type: "t", from: "a", to: "b" }, intent: "i", reason: "r", ui_action: "approve_button" }, signer);
    const request = requestOf(c);
    const start = performance.now();
    const { Guard } = await import("${entry}");
    const verdict = new Guard({ keys: { k: signer.secret } }).check(c, request, { currentStatus: "a" }).verdict;
    const elapsed = performance.now() - start;
    if (verdict !== "pass") throw new Error(verdict);
    console.log(elapsed);`;
const firstCall = {
  // The data is made with the guard module first, so the entry measured is a second, fresh module load.
  "agent-governor/guard": guardFirstCall("./dist/guard/node.js?fresh"),
  "agent-governor (full)": guardFirstCall("agent-governor"),
  "cedar-wasm": `
    const { createRequire } = await import("node:module");
    const load = createRequire(process.cwd() + "/");
    const start = performance.now();
    const cedar = load("@cedar-policy/cedar-wasm/nodejs");
    const answer = cedar.isAuthorized({
      principal: { type: "Agent", id: "a" }, action: { type: "Action", id: "apply" }, resource: { type: "Node", id: "n" },
      context: {}, policies: { staticPolicies: 'permit(principal, action, resource);' }, entities: [],
    });
    const elapsed = performance.now() - start;
    if (answer.type !== "success" || answer.response.decision !== "allow") throw new Error(JSON.stringify(answer));
    console.log(elapsed);`,
};
console.log(`\n${"module".padEnd(24)} ${"first verdict p50".padStart(18)} (ms, new process each, 9 runs)`);
const firstP50 = {};
for (const [name, script] of Object.entries(firstCall)) {
  const times = [];
  for (let i = 0; i < 9; i++) {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    times.push(Number(out.trim()));
  }
  firstP50[name] = percentile(times, 0.5);
  console.log(`${name.padEnd(24)} ${firstP50[name].toFixed(2).padStart(18)}`);
}

const guard = "agent-governor/guard";
const full = "agent-governor (full)";
console.log("");
console.log(`guard compile: ${compileP50[guard].toFixed(2)} ms (goal <= 2 ms); full compile: ${compileP50[full].toFixed(2)} ms (goal <= 5 ms)`);
console.log(`cedar-wasm compile vs guard: ${(compileP50["cedar-wasm"] / compileP50[guard]).toFixed(1)}x the time; vs full: ${(compileP50["cedar-wasm"] / compileP50[full]).toFixed(1)}x`);
console.log(`first verdict, cedar-wasm vs guard: ${(firstP50["cedar-wasm"] / firstP50[guard]).toFixed(1)}x the time`);
