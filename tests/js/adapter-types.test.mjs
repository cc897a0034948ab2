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

for (const adapter of adapters) {
  test(`agent-governor/${adapter}: a typical use type-checks`, () => {
    const file = join(repoRoot, "tests", "js", "adapter-types", `${adapter}.mts`);
    const flags = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--skipLibCheck", "false"];
    const result = spawnSync(join(repoRoot, "node_modules", ".bin", "tsc"), [...flags, file], { cwd: repoRoot, encoding: "utf8" });
    const ours = result.stdout.split("\n").filter((line) => /error TS/.test(line) && !line.startsWith("node_modules/"));
    assert.deepEqual(ours, []);
    assert.ok(result.stdout.length < 100_000);
  });
}
