// The tree is the architecture: each layer imports only what its README allows. The Rust core never uses the
// binding nor reads the package's JavaScript; the package's JavaScript reaches nothing outside dist/'s
// layout; the product (core, binding, package, edge service, pages) never imports the demo.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

function files(directory, suffixes) {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name === "node_modules" || name.startsWith(".") ? [] : files(path, suffixes);
    return suffixes.some((suffix) => name.endsWith(suffix)) ? [path] : [];
  });
}
const at = (path) => relative(repoRoot, path);
const specifiers = (text) => [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^;]*?from\s+"([^"]+)"|import\("([^"]+)"\)/g)].map((match) => match[1] ?? match[2]);

test("the Rust core never uses the binding, and no Rust source reads the package's JavaScript", () => {
  for (const file of files(join(repoRoot, "src"), [".rs"])) {
    const text = readFileSync(file, "utf8");
    assert.doesNotMatch(text, /include_(?:str|bytes)!\([^)]*\bjs\//, `${at(file)} reads js/`);
    if (at(file).startsWith("src/wasm/") || at(file) === "src/lib.rs") continue;
    assert.doesNotMatch(text, /\b(?:crate|super)::wasm\b/, `${at(file)} uses the binding`);
  }
});

test("the package's JavaScript imports only within dist/'s layout, the package, node: and its frameworks", () => {
  const allowed = [/^\.\/[\w.-]+\.js$/, /^\.\.\/(approver|driver)\/[\w.-]+\.js$/, /^\.\.\/(guard\/)?wasm\/agent_governor_(full|guard)\.js$/, /^agent-governor(\/[\w/-]+)?$/, /^node:/, /^(ai|@openai\/agents|@langchain\/langgraph|@modelcontextprotocol\/sdk\/[\w/.-]+)$/];
  const found = files(join(repoRoot, "js"), [".js", ".mjs", ".d.ts"]);
  assert.ok(found.length > 10);
  for (const file of found) {
    for (const specifier of specifiers(readFileSync(file, "utf8"))) {
      assert.ok(allowed.some((pattern) => pattern.test(specifier)), `${at(file)} imports ${specifier}`);
    }
  }
});

test("the product never imports the demo (the agent, the task board, the local server and model)", () => {
  const demo = /(?:^|\/)examples\//;
  const product = [
    ...files(join(repoRoot, "js"), [".js", ".mjs"]),
    ...files(join(repoRoot, "edge", "service"), [".js", ".mjs"]).filter((file) => !file.includes(".wrangler")),
    ...files(join(repoRoot, "www"), [".js", ".mjs"]),
  ];
  for (const file of product) {
    for (const specifier of specifiers(readFileSync(file, "utf8"))) assert.doesNotMatch(specifier, demo, `${at(file)} imports ${specifier}`);
  }
});
