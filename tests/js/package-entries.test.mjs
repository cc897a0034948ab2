// The entry points of the built package: every target of the exports map exists; each module's entries
// (inlined, Node ESM, Node CJS, explicit init) export the same API, the one its declarations name, and none
// of wasm-bindgen's loader; `agent-governor/approver` loads no WebAssembly; the explicit `init` loads from
// every kind of source it documents and refuses anything else with a typed error.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
const require = createRequire(join(repoRoot, "package.json"));
const LOADER = ["initSync", "default", "__wbg_init"];

function targets(conditions) {
  if (typeof conditions === "string") return [conditions];
  return Object.values(conditions).flatMap(targets);
}

/** The value names a declaration file exports (following `export *` of relative files). */
function declaredValues(file, seen = new Set()) {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, "utf8");
  const names = [...text.matchAll(/^export (?:declare )?(?:async )?(?:function|class|const|enum) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
  for (const [, specifier] of text.matchAll(/^export \* from "(\.[^"]+)";/gm)) {
    names.push(...declaredValues(join(file, "..", specifier.replace(/\.js$/, ".d.ts")), seen));
  }
  return names;
}

test("every target of the exports map exists in dist/", () => {
  for (const [subpath, conditions] of Object.entries(manifest.exports)) {
    for (const target of targets(conditions)) assert.ok(existsSync(join(repoRoot, target)), `${subpath} -> ${target}`);
  }
});

for (const [label, directory] of [["agent-governor", "dist"], ["agent-governor/guard", "dist/guard"]]) {
  test(`${label}: the inlined, Node ESM, CommonJS and init entries export one API, the declared one, without the loader`, async () => {
    const at = (file) => join(repoRoot, directory, file);
    const inlined = Object.keys(await import(at("index.js"))).sort();
    const node = Object.keys(await import(at("node.js"))).sort();
    const commonJs = Object.keys(require(at("node.cjs"))).sort();
    const init = Object.keys(await import(at("init.js"))).filter((name) => name !== "init").sort();
    const initNode = Object.keys(await import(at("init-node.js"))).filter((name) => name !== "init").sort();
    assert.deepEqual(node, inlined);
    assert.deepEqual(commonJs, inlined);
    assert.deepEqual(init, inlined);
    assert.deepEqual(initNode, inlined);
    assert.deepEqual([...new Set(declaredValues(at("index.d.ts")))].sort(), inlined);
    for (const name of LOADER) assert.ok(!inlined.includes(name), `${name} is not exported`);
    const declarations = readFileSync(at(`wasm/agent_governor_${directory === "dist" ? "full" : "guard"}.d.ts`), "utf8");
    for (const internal of ["InitInput", "InitOutput", "SyncInitInput", "initSync", "WebAssembly.", "RequestInfo", "BufferSource"]) {
      assert.ok(!declarations.includes(internal), `${internal} is not declared`);
    }
  });
}

test("the two modules' wasm files have distinct names", () => {
  const full = manifest.exports["./wasm"];
  const guard = manifest.exports["./guard/wasm"];
  assert.notEqual(full.split("/").at(-1), guard.split("/").at(-1));
});

test("agent-governor/approver imports no WebAssembly module, directly or through its imports", () => {
  const visit = (file, seen) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    assert.ok(!/wasm|agent_governor_/.test(text.replace(/^\/\/.*$/gm, "")), `${file} names no wasm module`);
    for (const [, specifier] of text.matchAll(/from "(\.[^"]+)"/g)) visit(join(file, "..", specifier), seen);
  };
  visit(join(repoRoot, "dist", "approver", "index.js"), new Set());
});

/** Runs `body` in a fresh Node process (a fresh module instance) with the guard's init entry as `entry`. */
function inFreshProcess(body) {
  const script = `const entry = await import(${JSON.stringify(join(repoRoot, "dist", "guard", "init.js"))});\n` +
    `const wasm = (await import("node:fs")).readFileSync(${JSON.stringify(join(repoRoot, manifest.exports["./guard/wasm"]))});\n${body}`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim();
}

test("init loads from bytes, a Module, a Response and a promise of one; a wrong source is a typed error", () => {
  const sources = {
    bytes: "new Uint8Array(wasm)",
    "an ArrayBuffer": "wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength)",
    "a WebAssembly.Module": "new WebAssembly.Module(wasm)",
    "a Response": 'new Response(wasm, { headers: { "content-type": "application/wasm" } })',
    "a promise of a Response": 'Promise.resolve(new Response(wasm, { headers: { "content-type": "application/wasm" } }))',
  };
  const refused = (call) => `await ${call}.then(() => "loaded", (error) => error.name + " " + error.code + " " + error.path)`;
  for (const [what, source] of Object.entries(sources)) {
    const output = inFreshProcess(
      [
        'try { entry.displaySafe("x"); console.log("used before init"); } catch (error) { console.log(error.name + " " + error.code); }',
        `console.log(${refused("entry.init(wasm)")});`,
        `console.log(${refused("entry.init({ module_or_path: 42 })")});`,
        `console.log(${refused("entry.init({ module_or_pth: wasm })")});`,
        `console.log(${refused("entry.init({ module_or_path: new Uint8Array([0, 97, 115]) })")});`,
        `await entry.init({ module_or_path: ${source} });`,
        "await entry.init();",
        'console.log(entry.displaySafe("a\\u202eb"));',
      ].join("\n"),
    );
    assert.deepEqual(
      output.split("\n"),
      [
        "AgentGovernorError not_initialized",
        "AgentGovernorError invalid_input options",
        "AgentGovernorError invalid_input options.module_or_path",
        "AgentGovernorError invalid_input options.module_or_pth",
        "AgentGovernorError wasm_unavailable options.module_or_path",
        "a<U+202E>b",
      ],
      what,
    );
  }
  // Without a source, Node's init reads the .wasm file from the package; a path or a file URL is read from disk.
  const inNode = execFileSync(
    process.execPath,
    ["--input-type=module", "-e", `const entry = await import(${JSON.stringify(join(repoRoot, "dist", "guard", "init-node.js"))}); const wasm = ${JSON.stringify(join(repoRoot, manifest.exports["./guard/wasm"]))}; console.log(await entry.init({ module_or_path: "/no/such.wasm" }).catch((error) => error.code)); await entry.init({ module_or_path: process.argv[1] === "url" ? new URL("file://" + wasm) : wasm }); await entry.init(); console.log(entry.changeLines("T-1", { type: "status_change", from: "a", to: "b" })[1]);`],
    { encoding: "utf8" },
  );
  assert.equal(inNode.trim(), "wasm_unavailable\nImpact: T-1");
});
