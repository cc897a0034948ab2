// What the packed package carries and declares: its LICENSE, the metadata the npm page shows, `./package.json`
// in the exports map, the entries that have side effects (they instantiate the wasm), and that a CommonJS
// consumer can `require` it on the Node versions `engines` allows.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { repoRoot } from "./helpers.mjs";

let dir;
let files;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "agent-governor-packed-"));
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: repoRoot, encoding: "utf8" }));
  files = packed[0].files.map((file) => file.path);
  const installed = join(dir, "node_modules", "agent-governor");
  mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", join(dir, packed[0].filename), "-C", installed, "--strip-components=1"]);
});

after(() => rmSync(dir, { recursive: true, force: true }));

test("the tarball carries the MIT LICENSE the manifest declares, and the metadata of the npm page", () => {
  assert.ok(files.includes("LICENSE"), files.join(", "));
  const manifest = JSON.parse(readFileSync(join(dir, "node_modules", "agent-governor", "package.json"), "utf8"));
  assert.equal(manifest.license, "MIT");
  assert.match(readFileSync(join(dir, "node_modules", "agent-governor", "LICENSE"), "utf8"), /^MIT License/);
  assert.match(manifest.repository.url, /^git\+https:\/\/github\.com\/agent-governor\/agent-governor\.git$/);
  assert.match(manifest.homepage, /^https:\/\//);
  assert.match(manifest.bugs.url, /^https:\/\//);
  assert.ok(manifest.keywords.length >= 5);
  // Each entry that instantiates the wasm on import is named as having side effects, and exists in the tarball;
  // the explicit-init and approver entries have none.
  for (const entry of manifest.sideEffects) assert.ok(files.includes(entry.replace(/^\.\//, "")), entry);
  const targets = (conditions) => (typeof conditions === "string" ? [conditions] : Object.values(conditions).flatMap(targets));
  for (const [name, conditions] of Object.entries(manifest.exports)) {
    for (const target of new Set(targets(conditions))) {
      if (!/\.c?js$/.test(target)) continue;
      const instantiates = /^\.\/dist\/(guard\/)?(index|node|workerd)\.c?js$/.test(target);
      assert.equal(manifest.sideEffects.includes(target), instantiates, `${name} -> ${target}: side effects ${instantiates}`);
    }
  }
  // One copy of each file: the approver helpers are shared by both modules.
  assert.equal(files.filter((file) => file.endsWith("approver/index.js")).length, 1, "one approver module");
});

test("`agent-governor/package.json` resolves, and a CommonJS consumer requires the package on this Node", () => {
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  writeFileSync(
    join(dir, "consumer.cjs"),
    [
      'const manifest = require("agent-governor/package.json");',
      'const { Guard, changeLines } = require("agent-governor/guard");',
      'const lines = changeLines("task-1", { type: "status_change", from: "todo", to: "done" });',
      'console.log(JSON.stringify({ version: manifest.version, guard: typeof Guard, lines }));',
    ].join("\n"),
  );
  const output = JSON.parse(execFileSync(process.execPath, [join(dir, "consumer.cjs")], { cwd: dir, encoding: "utf8" }));
  assert.equal(output.version, JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).version);
  assert.equal(output.guard, "function");
  assert.deepEqual(output.lines, ["Execute: status_change on task-1: todo -> done", "Impact: task-1"]);
  const [major, minor] = process.versions.node.split(".").map(Number);
  const floor = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).engines.node.match(/>=(\d+)\.(\d+)/).slice(1).map(Number);
  assert.ok(major > floor[0] || (major === floor[0] && minor >= floor[1]), `this Node ${process.versions.node} is within engines`);
});
