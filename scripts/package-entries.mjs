// Writes the entry points of one built module (after wasm-bindgen), so each host loads it its own way and
// sees only the supported API:
//   index.js      any bundler, browser or worker: the wasm inlined (base64), instantiated synchronously on
//                 import (no top-level await, no asset to copy)
//   node.js       Node, Bun, Deno (ESM): the .wasm read from the package's files;  node.cjs: the same for require
//   workerd.js    Cloudflare Workers: the bundler hands over the compiled WebAssembly.Module
//   init.js       explicit `await init({ module_or_path })`: the .wasm from a URL, Response, bytes or Module
//   init-node.js  the same in Node, where the default is read from the package's files
// plus their declarations (.d.ts, and .d.cts for require). wasm-bindgen's loader (`initSync`, the default
// `init`, `InitInput`, `InitOutput`, `SyncInitInput`) stays internal.
// Usage: node scripts/package-entries.mjs MODULE_DIR NAME SHARED_RELATIVE... (e.g. dist full ./approver/index.js)
//        node scripts/package-entries.mjs --require-declarations DIR   (a .d.cts beside every .d.ts under DIR)
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function writeCommonJsDeclarations(directory) {
  for (const entry of readdirSync(directory)) {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) {
      writeCommonJsDeclarations(path);
    } else if (entry.endsWith(".d.ts")) {
      const text = readFileSync(path, "utf8").replace(/(from |import\()"(\.{1,2}\/[^"]+)\.js"/g, '$1"$2.cjs"');
      writeFileSync(path.replace(/\.d\.ts$/, ".d.cts"), text);
    }
  }
}

if (process.argv[2] === "--require-declarations") {
  writeCommonJsDeclarations(process.argv[3]);
  process.exit(0);
}

const [moduleDir, name, ...shared] = process.argv.slice(2);
if (!moduleDir || !["full", "guard"].includes(name)) {
  console.error("usage: node scripts/package-entries.mjs MODULE_DIR full|guard [SHARED_MODULE...]");
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const glue = `./wasm/agent_governor_${name}.js`;
const wasmFile = `./wasm/agent_governor_${name}_bg.wasm`;
const inlineFile = `./wasm/agent_governor_${name}_bg.base64.js`;
const at = (relative) => join(moduleDir, relative);

/** wasm-bindgen's loader declarations: everything from `InitInput` on is internal (and names DOM types). */
function stripLoaderDeclarations() {
  const path = at(glue.replace(/\.js$/, ".d.ts"));
  const text = readFileSync(path, "utf8");
  const start = text.indexOf("export type InitInput");
  if (start < 0) throw new Error(`${path}: wasm-bindgen's loader declarations were not found`);
  writeFileSync(path, text.slice(0, start).trimEnd() + "\n");
  rmSync(at(wasmFile + ".d.ts"), { force: true });
}

/**
 * The loader has no default URL (each entry says where the module comes from), and an export used before the
 * module is loaded throws a typed `not_initialized` instead of a TypeError from inside the bindings.
 */
function patchLoader() {
  const path = at(glue);
  let text = readFileSync(path, "utf8");
  const replace = (pattern, replacement, times) => {
    const found = text.split(pattern).length - 1;
    if (found !== times) throw new Error(`${path}: expected ${times} of ${pattern}, found ${found}`);
    text = text.split(pattern).join(replacement);
  };
  const url = /module_or_path = new URL\('[^']+', import\.meta\.url\);/;
  if (!url.test(text)) throw new Error(`${path}: the loader's default wasm URL was not found`);
  text = text.replace(url, 'throw new Error("module_or_path is required");');
  replace("let wasmModule, wasmInstance, wasm;", "let wasmModule, wasmInstance, wasm = NOT_LOADED;", 1);
  replace("if (wasm !== undefined) return wasm;", "if (wasm !== NOT_LOADED) return wasm;", 2);
  text = [
    'import { notLoaded } from "../load.js";',
    "/** Until the module is loaded, any use of it is a typed error. */",
    "const NOT_LOADED = new Proxy({}, { get() { throw notLoaded(); } });",
    text,
  ].join("\n");
  writeFileSync(path, text);
}

/** The values the module exports (from its declarations), without the loader. */
function exportedValues() {
  const declarations = readFileSync(at(glue.replace(/\.js$/, ".d.ts")), "utf8");
  const names = [...declarations.matchAll(/^export (?:declare )?(?:function|class|const|enum) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
  const code = readFileSync(at(glue), "utf8");
  for (const value of names) {
    if (!new RegExp(`^export (?:function|class|const) ${value}\\b`, "m").test(code)) {
      throw new Error(`${glue} does not export ${value}, which its declarations name`);
    }
  }
  return [...new Set(names)].sort();
}

function writeInlinedModule() {
  const bytes = readFileSync(at(wasmFile));
  writeFileSync(
    at(inlineFile),
    [
      "// The WebAssembly module, base64: lets the default entry instantiate it with no file to fetch or copy.",
      `export const wasmBase64 = "${bytes.toString("base64")}";`,
      "",
    ].join("\n"),
  );
}

stripLoaderDeclarations();
patchLoader();
writeInlinedModule();
const values = exportedValues();
const reexports = (specifier) => `export {\n${values.map((value) => `  ${value},`).join("\n")}\n} from "${specifier}";`;
const sharedJs = shared.map((specifier) => `export * from "${specifier}";`).join("\n");
// The package's one reading of options (beside the approver helpers): init's options are read with it.
const optionsModule = shared[0].replace(/index\.js$/, "options.js");
const sharedTypes = shared.map((specifier) => `export * from "${specifier}";`).join("\n");

const entries = {
  "index.js": `// Entry for any bundler, browser or worker: the WebAssembly module is inlined and instantiated
// synchronously on import, so there is no top-level await and no file to serve. \`agent-governor/init\` loads
// the .wasm file instead (a smaller download) from a URL you choose.
import { initSync } from "${glue}";
import { wasmBase64 } from "${inlineFile}";
import { decodeBase64 } from "./load.js";

initSync({ module: decodeBase64(wasmBase64) });

${reexports(glue)}
${sharedJs}
`,
  "node.js": `// Node entry (also Bun and Deno): loads the WebAssembly module synchronously from the package's files.
import { readFileSync } from "node:fs";
import { initSync } from "${glue}";

initSync({ module: readFileSync(new URL("${wasmFile}", import.meta.url)) });

${reexports(glue)}
${sharedJs}
`,
  "workerd.js": `// Edge (workerd) entry: the bundler hands over the compiled WebAssembly.Module (workerd compiles no bytes).
import wasmModule from "${wasmFile}";
import { initSync } from "${glue}";

initSync({ module: wasmModule });

${reexports(glue)}
${sharedJs}
`,
  "init.js": `// Explicit-loading entry: nothing runs on import; \`await init()\` loads the .wasm file next to this one
// (bundlers that understand \`new URL(…, import.meta.url)\` emit it), or from \`module_or_path\`.
import { initModule } from "./load.js";
import { readOptions } from "${optionsModule}";
import loadBindings from "${glue}";

/** Loads the WebAssembly module once; every export works after it resolves. */
export function init(options) {
  try {
    readOptions("init", "options", options, { module_or_path: "any" });
  } catch (error) {
    return Promise.reject(error);
  }
  return initModule(loadBindings, options, () => new URL("${wasmFile}", import.meta.url));
}

${reexports(glue)}
${sharedJs}
`,
  "init-node.js": `// Explicit-loading entry in Node: \`await init()\` reads the .wasm file from the package's files; a file
// URL or a path given as \`module_or_path\` is read from disk, an http(s) URL fetched.
import { readFile } from "node:fs/promises";
import { initModule } from "./load.js";
import { readOptions } from "${optionsModule}";
import loadBindings from "${glue}";

function fromDisk(source) {
  if (source instanceof URL) return source.protocol === "file:" ? readFile(source) : source;
  if (typeof source !== "string") return source;
  if (/^file:/i.test(source)) return readFile(new URL(source));
  return /^[a-z][a-z0-9+.-]*:\\/\\//i.test(source) ? source : readFile(source);
}

/** Loads the WebAssembly module once; every export works after it resolves. */
export function init(options) {
  try {
    readOptions("init", "options", options, { module_or_path: "any" });
  } catch (error) {
    return Promise.reject(error);
  }
  return initModule(loadBindings, options, () => readFile(new URL("${wasmFile}", import.meta.url)), fromDisk);
}

${reexports(glue)}
${sharedJs}
`,
  "index.d.ts": `// Types of every entry point: generated from the Rust types by wasm-bindgen and tsify.
// The classes declare \`[Symbol.dispose]\` (explicit resource management); this makes the declarations
// type-check under a plain \`target: "es2022"\` tsconfig, with no extra \`lib\` in the consumer's config.
/// <reference lib="esnext.disposable" />
export * from "${glue}";
${sharedTypes}
`,
  "init.d.ts": `// Types of the explicit-loading entry: the whole API, and \`init\`.
export * from "./index.js";
export type { InitOptions, WasmSource } from "./load.js";
import type { InitOptions } from "./load.js";

/**
 * Loads the WebAssembly module (once: later calls return the same promise). Without \`module_or_path\` the
 * .wasm file next to this entry is loaded (in Node, read from the package; a file URL or a path is read from
 * disk). Rejects with an \`AgentGovernorError\`: \`invalid_input\` for a wrong option (the source goes in
 * \`module_or_path\`), \`wasm_unavailable\` when the module cannot be fetched or compiled. Until it resolves,
 * every export throws \`not_initialized\`.
 */
export declare function init(options?: InitOptions): Promise<void>;
`,
};

for (const [file, text] of Object.entries(entries)) writeFileSync(at(file), text);
writeFileSync(at("init-node.d.ts"), 'export * from "./init.js";\n');

// require(): one CommonJS file with the loader, the API and the shared modules (esbuild), reading the .wasm
// next to it (its declarations: `--require-declarations`, once every module is built).
const esbuild = join(root, "node_modules", ".bin", "esbuild");
execFileSync(esbuild, [
  at("node.js"),
  "--bundle",
  "--format=cjs",
  "--platform=node",
  "--target=node20",
  "--log-level=warning",
  `--outfile=${at("node.cjs")}`,
  "--define:import.meta.url=__moduleUrl",
  `--banner:js=// CommonJS entry (require): the ES module entry bundled, reading the .wasm next to this file.\nconst __moduleUrl = require("node:url").pathToFileURL(__filename).href;`,
]);

