// esbuild as the consumer's bundler with its defaults: `--bundle` to the default iife format (a classic script),
// and `--format=esm` (a module script), each page loaded in Chromium.
import { test } from "node:test";
import { classicPage, modulePage, servedPageVerdict } from "./support/browser.mjs";
import { createProject, fixture } from "./support/project.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { mustRunTool, toolVersion } from "./support/tools.mjs";
import { consumerSuite } from "./support/suite.mjs";
import { assertVerdict } from "./support/verdict.mjs";

const suite = consumerSuite();

const variants = [
  ["iife (default format), classic script", [], classicPage("out.js")],
  ["--format=esm, module script", ["--format=esm"], modulePage("out.js")],
];

for (const [label, flags, page] of variants) {
  test(`esbuild ${toolVersion("esbuild")}: --bundle ${label} in Chromium`, { timeout: 180_000 }, async (t) => {
    const name = `esbuild-${flags.length ? "esm" : "iife"}`;
    const project = createProject(suite.packed, name, {
      files: { "main.js": fixture("guard.js"), "verdict.js": fixture("verdict.js"), "dist/index.html": page },
    });
    await mustRunTool("esbuild", ["main.js", "--bundle", ...flags, "--outfile=dist/out.js"], { cwd: project.dir });
    recordSizes(t, name, measure(project.path("dist")));
    assertVerdict(await servedPageVerdict(suite.browser, project.path("dist")));
  });
}
