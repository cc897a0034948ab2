// esbuild as the consumer's bundler with its defaults: `--bundle` to the default iife format (a classic script),
// and `--format=esm` (a module script), each page loaded in Chromium.
import { after, before, test } from "node:test";
import { classicPage, launchChromium, modulePage, pageVerdict } from "./support/browser.mjs";
import { createProject, fixture, packPackage } from "./support/project.mjs";
import { serveStatic } from "./support/serve.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { ensureTools, mustRunTool, toolVersion } from "./support/tools.mjs";
import { assertVerdict } from "./support/verdict.mjs";

let packed;
let browser;

before(async () => {
  await ensureTools();
  packed = packPackage();
  browser = await launchChromium();
}, { timeout: 600_000 });
after(async () => {
  await browser?.close();
  packed?.cleanup();
});

const variants = [
  ["iife (default format), classic script", [], classicPage("out.js")],
  ["--format=esm, module script", ["--format=esm"], modulePage("out.js")],
];

for (const [label, flags, page] of variants) {
  test(`esbuild ${toolVersion("esbuild")}: --bundle ${label} in Chromium`, { timeout: 180_000 }, async (t) => {
    const name = `esbuild-${flags.length ? "esm" : "iife"}`;
    const project = createProject(packed, name, {
      files: { "main.js": fixture("guard.js"), "verdict.js": fixture("verdict.js"), "dist/index.html": page },
    });
    await mustRunTool("esbuild", ["main.js", "--bundle", ...flags, "--outfile=dist/out.js"], { cwd: project.dir });
    recordSizes(t, name, measure(project.path("dist")));
    const server = await serveStatic(project.path("dist"));
    try {
      assertVerdict(await pageVerdict(browser, `${server.url}/`, { server }));
    } finally {
      await server.close();
    }
  });
}
