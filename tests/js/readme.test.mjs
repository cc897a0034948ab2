// The README's quick start, run exactly as written, so the docs cannot rot.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

function quickStart() {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const match = section.match(/```js\n([\s\S]*?)```/);
  assert.ok(match, "the README has a quick start code block");
  return match[1];
}

test("the README quick start runs as written and prints what it says", () => {
  // Written inside the repository so that `import "agent-governor"` resolves to this package.
  const directory = join(repoRoot, "target", "readme");
  mkdirSync(directory, { recursive: true });
  const file = join(directory, "quick-start.mjs");
  writeFileSync(file, quickStart());
  const run = spawnSync(process.execPath, [file], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, "applied done\nrejected already_consumed\n");
});

test("the README's control loop example runs as written and prints the approval request it shows", () => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## The control loop: one governed agent"));
  const code = section.match(/```js\n([\s\S]*?)```/);
  const printed = section.match(/prints\n\n```\n([\s\S]*?)```/);
  assert.ok(code && printed, "the section has its example and what it prints");
  const directory = join(repoRoot, "target", "readme");
  mkdirSync(directory, { recursive: true });
  const file = join(directory, "control-loop.mjs");
  writeFileSync(file, code[1]);
  const run = spawnSync(process.execPath, [file], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, printed[1]);
});
