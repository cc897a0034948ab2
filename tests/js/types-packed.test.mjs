// The packed package (`npm pack`) type-checks in a consumer with a common tsconfig: target es2022, module
// nodenext, strict, no skipLibCheck, no extra lib.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";

test("the packed declarations compile in a plain es2022 / nodenext / strict consumer", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-governor-consumer-"));
  try {
    const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: repoRoot, encoding: "utf8" }));
    const tarball = join(dir, packed[0].filename);
    const installed = join(dir, "node_modules", "agent-governor");
    mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { target: "es2022", module: "nodenext", strict: true, noEmit: true }, files: ["consumer.ts"] }),
    );
    copyFileSync(join(repoRoot, "tests", "types", "consumer.ts"), join(dir, "consumer.ts"));
    let output = "";
    try {
      execFileSync(join(repoRoot, "node_modules", ".bin", "tsc"), ["-p", dir], { encoding: "utf8" });
    } catch (error) {
      output = `${error.stdout}${error.stderr}`;
    }
    assert.equal(output, "", "tsc reported errors");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
