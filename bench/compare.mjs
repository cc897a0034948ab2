// Before and after, in one interleaved run on this machine: the package built at a baseline revision
// (bench/baseline.sh, default bench/baseline-rev) against this checkout's dist/, each figure measured for
// both in alternating rounds so a busy machine slows both alike. Prints each figure and its ratio
// (after / before). Figures, never assertions: `node bench/compare.mjs` after `npm run build`.
//   - sizes of both modules (gzip -9);
//   - Guard.check with an HMAC key (µs per check);
//   - a first check of an Ed25519 approval and of an ES256 passkey approval (µs), with WebCrypto's verify
//     alone as the peer; through `checkAsync` in a build that has it;
//   - a fresh WebAssembly.compile of each module (ms, p50);
//   - the first verdict in a new process (ms, p50), the guard module.
import { execFileSync } from "node:child_process";
import { createHash, webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { derSignature } from "../tests/js/edge-service-support.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const baseline = process.env.BASELINE_DIST ?? execFileSync("bash", [`${root}bench/baseline.sh`], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
const builds = { before: baseline, after: `${root}dist` };
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const COUNT = Number(process.env.COUNT ?? 300);
const subtle = webcrypto.subtle;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows = [];
const row = (name, unit, before, after, note = "") => rows.push({ name, unit, before, after, note });

// Sizes.
const wasmOf = (dist) => ({ guard: `${dist}/guard/wasm/agent_governor_guard_bg.wasm`, full: `${dist}/wasm/agent_governor_full_bg.wasm` });
for (const module of ["guard", "full"]) {
  const [before, after] = ["before", "after"].map((build) => gzipSync(readFileSync(wasmOf(builds[build])[module]), { level: 9 }).length);
  row(`${module} module, gzip -9`, "B", before, after);
}

// The guard modules, side by side in this process.
const api = {
  before: await import(pathToFileURL(`${builds.before}/guard/node.js`).href),
  after: await import(pathToFileURL(`${builds.after}/guard/node.js`).href),
};
const hmac = { keyId: "server", secret: "0123456789abcdef0123456789abcdef-bench" };
const draft = (index) => ({ node_id: `node-${index}`, proposed_change: { type: "status_change", from: "todo", to: "done" }, intent: "close the finished task", reason: "every checklist item is done", ui_action: "approve_button" });
const options = { currentStatus: "todo" };

async function perCall(count, call) {
  const started = performance.now();
  for (let index = 0; index < count; index += 1) {
    const verdict = await call(index);
    if (verdict.verdict !== "pass") throw new Error(JSON.stringify(verdict));
  }
  return ((performance.now() - started) / count) * 1000;
}

// Signed approvals, made once with the after build (the wire format is the same).
const base = Array.from({ length: COUNT * ROUNDS }, (_, index) => api.after.issueConfirmation(draft(index), hmac));
const approver = await api.after.generateApproverKey({ keyId: "alice-1" });
const ed25519 = await Promise.all(base.map((confirmation) => api.after.signConfirmation(confirmation, approver)));
const pair = await subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
const passkeyKeys = { "alice-passkey": { type: "webauthn", algorithm: -7, public_key: api.after.base64url(await subtle.exportKey("spki", pair.publicKey)), rp_id: "localhost", origins: ["http://localhost:8080"] } };
const passkey = await Promise.all(
  base.map(async (confirmation, index) => {
    const unsigned = { ...confirmation, key_id: "alice-passkey", signature: null };
    const clientData = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: api.after.base64url(api.after.confirmationChallenge(unsigned, "alice-passkey")), origin: "http://localhost:8080" }));
    const authenticatorData = Buffer.alloc(37);
    createHash("sha256").update("localhost").digest().copy(authenticatorData);
    authenticatorData[32] = 0x05;
    authenticatorData.writeUInt32BE(index + 1, 33);
    const signed = Buffer.concat([authenticatorData, createHash("sha256").update(clientData).digest()]);
    const signature = new Uint8Array(await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, signed));
    return { ...unsigned, assertion: { authenticator_data: api.after.base64url(authenticatorData), client_data_json: api.after.base64url(clientData), signature: api.after.base64url(derSignature(signature)) } };
  }),
);
const message = new Uint8Array(360);
const edPair = await subtle.generateKey({ name: "Ed25519" }, false, ["sign", "verify"]);
const edSignature = await subtle.sign({ name: "Ed25519" }, edPair.privateKey, message);
const ecSignature = await subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, message);

const samples = { hmac: { before: [], after: [] }, ed25519: { before: [], after: [] }, es256: { before: [], after: [] }, webcryptoEd25519: [], webcryptoP256: [] };
const guards = Object.fromEntries(Object.entries(api).map(([build, module]) => [build, new module.Guard({ keys: { [hmac.keyId]: hmac.secret } })]));
for (let round = 0; round < ROUNDS; round += 1) {
  // Each round takes approvals no round saw before: first sights, in both builds.
  const slice = (list) => list.slice(round * COUNT, (round + 1) * COUNT);
  for (const build of round % 2 === 0 ? ["before", "after"] : ["after", "before"]) {
    const { Guard, requestFor } = api[build];
    const hmacSet = slice(base);
    samples.hmac[build].push(await perCall(COUNT, (index) => guards[build].check(hmacSet[index], requestFor(hmacSet[index]), options)));
    const edGuard = new Guard({ keys: { [approver.keyId]: approver.publicKey } });
    const edSet = slice(ed25519);
    const edCheck = typeof edGuard.checkAsync === "function" ? (c) => edGuard.checkAsync(c, requestFor(c), options) : (c) => edGuard.check(c, requestFor(c), options);
    samples.ed25519[build].push(await perCall(COUNT, (index) => edCheck(edSet[index])));
    const passkeyGuard = new Guard({ keys: passkeyKeys });
    const passkeySet = slice(passkey).slice(0, Math.min(COUNT, 60));
    const check = typeof passkeyGuard.checkAsync === "function" ? (c) => passkeyGuard.checkAsync(c, requestFor(c), options) : (c) => passkeyGuard.check(c, requestFor(c), options);
    samples.es256[build].push(await perCall(passkeySet.length, (index) => check(passkeySet[index])));
  }
  const ok = { verdict: "pass" };
  samples.webcryptoEd25519.push(await perCall(COUNT, async () => ((await subtle.verify({ name: "Ed25519" }, edPair.publicKey, edSignature, message)) ? ok : {})));
  samples.webcryptoP256.push(await perCall(COUNT, async () => ((await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, pair.publicKey, ecSignature, message)) ? ok : {})));
}
row("Guard.check, HMAC key", "µs", median(samples.hmac.before), median(samples.hmac.after));
const ed = { before: median(samples.ed25519.before), after: median(samples.ed25519.after), peer: median(samples.webcryptoEd25519) };
row("first check, Ed25519", "µs", ed.before, ed.after, `WebCrypto verify alone ${ed.peer.toFixed(1)} µs: before ${(ed.before / ed.peer).toFixed(2)}x, after ${(ed.after / ed.peer).toFixed(2)}x (goal <= 1.2x)`);
const es = { before: median(samples.es256.before), after: median(samples.es256.after), peer: median(samples.webcryptoP256) };
row("first check, ES256 passkey", "µs", es.before, es.after, `WebCrypto verify alone ${es.peer.toFixed(1)} µs: before ${(es.before / es.peer).toFixed(2)}x, after ${(es.after / es.peer).toFixed(2)}x (goal <= 2x)`);

// A fresh compile of each module (a unique custom section each time, so V8's cache never answers).
const uniqueBytes = (bytes, n) => {
  const name = Buffer.from(`compare-${n}`);
  return Buffer.concat([bytes, Buffer.from([0, name.length + 1, name.length]), name]);
};
for (const module of ["guard", "full"]) {
  const bytes = { before: readFileSync(wasmOf(builds.before)[module]), after: readFileSync(wasmOf(builds.after)[module]) };
  const times = { before: [], after: [] };
  for (let sample = 0; sample < 21; sample += 1) {
    for (const build of sample % 2 === 0 ? ["before", "after"] : ["after", "before"]) {
      const started = performance.now();
      await WebAssembly.compile(uniqueBytes(bytes[build], sample));
      times[build].push(performance.now() - started);
    }
  }
  row(`${module} module, WebAssembly.compile p50`, "ms", median(times.before), median(times.after), module === "guard" ? "goal <= 2 ms" : "goal <= 4 ms");
}

// The first verdict in a new process: import the guard entry, construct, check once.
const firstVerdict = (dist) => `
  const signer = { keyId: "k", secret: "0123456789abcdef0123456789abcdef-startup" };
  const started = performance.now();
  const { Guard, issueConfirmation, requestFor } = await import(${JSON.stringify(pathToFileURL(`${dist}/guard/node.js`).href)});
  const confirmation = issueConfirmation({ node_id: "n", proposed_change: { type: "t", from: "a", to: "b" }, intent: "i", reason: "r", ui_action: "approve_button" }, signer);
  const verdict = new Guard({ keys: { k: signer.secret } }).check(confirmation, requestFor(confirmation), { currentStatus: "a" }).verdict;
  if (verdict !== "pass") throw new Error(verdict);
  console.log(performance.now() - started);`;
const first = { before: [], after: [] };
for (let sample = 0; sample < 9; sample += 1) {
  for (const build of sample % 2 === 0 ? ["before", "after"] : ["after", "before"]) {
    first[build].push(Number(execFileSync(process.execPath, ["--input-type=module", "-e", firstVerdict(builds[build])], { encoding: "utf8" }).trim()));
  }
}
row("guard, first verdict in a new process p50", "ms", median(first.before), median(first.after));

console.log(`before: ${baseline}\nafter:  ${builds.after}\nNode ${process.version}; ${ROUNDS} interleaved rounds\n`);
console.log(`${"figure".padEnd(44)} ${"before".padStart(10)} ${"after".padStart(10)}  after/before`);
for (const { name, unit, before, after, note } of rows) {
  const digits = unit === "B" ? 0 : unit === "µs" ? 1 : 2;
  console.log(`${name.padEnd(44)} ${before.toFixed(digits).padStart(10)} ${after.toFixed(digits).padStart(10)}  ${(after / before).toFixed(3)}x ${unit}${note ? `   ${note}` : ""}`);
}
