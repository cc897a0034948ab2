// One bundle that imports both modules, `agent-governor` and `agent-governor/guard`: each must find its own wasm
// (they must not overwrite or shadow each other in the output), built by esbuild (esm) and by Vite, in Chromium.
import { test } from "node:test";
import { modulePage, servedPageVerdict } from "./support/browser.mjs";
import { createProject, fixture } from "./support/project.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { mustRunTool, toolVersion } from "./support/tools.mjs";
import { consumerSuite } from "./support/suite.mjs";
import { assertVerdict } from "./support/verdict.mjs";

const bothModules = ["agent-governor", "agent-governor/guard"];
const suite = consumerSuite();

async function assertPageVerdict(t, name, distDir) {
  recordSizes(t, name, measure(distDir));
  assertVerdict(await servedPageVerdict(suite.browser, distDir), bothModules);
}

test(`esbuild ${toolVersion("esbuild")}: --bundle --format=esm of both modules in Chromium`, { timeout: 180_000 }, async (t) => {
  const project = createProject(suite.packed, "both-esbuild", {
    files: { "main.js": fixture("both.js"), "verdict.js": fixture("verdict.js"), "dist/index.html": modulePage("out.js") },
  });
  await mustRunTool("esbuild", ["main.js", "--bundle", "--format=esm", "--outfile=dist/out.js"], { cwd: project.dir });
  await assertPageVerdict(t, "both-esbuild-esm", project.path("dist"));
});

for (const tool of ["vite7", "vite8"]) {
  test(`Vite ${toolVersion(tool)}: production build of both modules in Chromium`, { timeout: 180_000 }, async (t) => {
    const project = createProject(suite.packed, `both-${tool}`, {
      files: { "index.html": modulePage("/main.js"), "main.js": fixture("both.js"), "verdict.js": fixture("verdict.js") },
    });
    await mustRunTool(tool, ["build"], { cwd: project.dir });
    await assertPageVerdict(t, `both-${tool}-build`, project.path("dist"));
  });
}
