// The adapters' declarations type-check a typical use against the frameworks' own declarations, strict and
// without skipLibCheck. Errors inside a framework's own declarations (they assume Node's types) are theirs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import { ADAPTER_SUBPATHS } from "../consumers/support/project.mjs";
import { repoRoot } from "./helpers.mjs";

const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
const adapters = ADAPTER_SUBPATHS.filter((subpath) => subpath in manifest.exports).map((subpath) => subpath.slice(2));

// One compiler run over every adapter's file (a run costs seconds to start), read per adapter below.
const flags = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "false"];
const fileOf = (adapter) => join("tests", "js", "adapter-types", `${adapter}.mts`);
const compiled = spawnSync(join(repoRoot, "node_modules", ".bin", "tsc"), [...flags, ...adapters.map((adapter) => join(repoRoot, fileOf(adapter)))], { cwd: repoRoot, encoding: "utf8" });
const errors = compiled.stdout.split("\n").filter((line) => /error TS/.test(line) && !line.startsWith("node_modules/"));

test("the compiler ran over every adapter's file and said nothing unreadable", () => {
  assert.equal(compiled.error, undefined);
  assert.ok(adapters.length >= 4, `adapters found: ${adapters.join(", ")}`);
  assert.ok(compiled.stdout.length < 100_000);
  // Every error is in a file of ours (then its adapter's test names it) or in a framework's declarations.
  for (const line of errors) assert.ok(adapters.some((adapter) => line.startsWith(fileOf(adapter))), line);
});

for (const adapter of adapters) {
  test(`agent-governor/${adapter}: a typical use type-checks`, () => {
    assert.deepEqual(
      errors.filter((line) => line.startsWith(fileOf(adapter))),
      [],
    );
  });
}
