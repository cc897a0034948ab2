// The adapters' declarations type-check a typical use against the frameworks' own declarations, strict and
// without skipLibCheck. Errors inside a framework's own declarations (they assume Node's types) are theirs.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

for (const adapter of ["ai", "openai-agents"]) {
  test(`agent-governor/${adapter}: a typical use type-checks`, () => {
    const file = join(repoRoot, "tests", "js", "adapter-types", `${adapter}.mts`);
    const flags = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "false"];
    const result = spawnSync(join(repoRoot, "node_modules", ".bin", "tsc"), [...flags, file], { cwd: repoRoot, encoding: "utf8" });
    const ours = result.stdout.split("\n").filter((line) => /error TS/.test(line) && !line.startsWith("node_modules/"));
    assert.deepEqual(ours, []);
    assert.ok(result.stdout.length < 100_000);
  });
}
