// One bundle that imports both modules, `agent-governor` and `agent-governor/guard`: each must find its own wasm
// (they must not overwrite or shadow each other in the output), built by esbuild (esm) and by Vite, in Chromium.
import { after, before, test } from "node:test";
import { launchChromium, modulePage, pageVerdict } from "./support/browser.mjs";
import { createProject, fixture, packPackage } from "./support/project.mjs";
import { serveStatic } from "./support/serve.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { ensureTools, mustRunTool, toolVersion } from "./support/tools.mjs";
import { assertVerdict } from "./support/verdict.mjs";

const bothModules = ["agent-governor", "agent-governor/guard"];
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

async function assertPageVerdict(t, name, distDir) {
  recordSizes(t, name, measure(distDir));
  const server = await serveStatic(distDir);
  try {
    assertVerdict(await pageVerdict(browser, `${server.url}/`, { server }), bothModules);
  } finally {
    await server.close();
  }
}

test(`esbuild ${toolVersion("esbuild")}: --bundle --format=esm of both modules in Chromium`, { timeout: 180_000 }, async (t) => {
  const project = createProject(packed, "both-esbuild", {
    files: { "main.js": fixture("both.js"), "verdict.js": fixture("verdict.js"), "dist/index.html": modulePage("out.js") },
  });
  await mustRunTool("esbuild", ["main.js", "--bundle", "--format=esm", "--outfile=dist/out.js"], { cwd: project.dir });
  await assertPageVerdict(t, "both-esbuild-esm", project.path("dist"));
});

for (const tool of ["vite7", "vite8"]) {
  test(`Vite ${toolVersion(tool)}: production build of both modules in Chromium`, { timeout: 180_000 }, async (t) => {
    const project = createProject(packed, `both-${tool}`, {
      files: { "index.html": modulePage("/main.js"), "main.js": fixture("both.js"), "verdict.js": fixture("verdict.js") },
    });
    await mustRunTool(tool, ["build"], { cwd: project.dir });
    await assertPageVerdict(t, `both-${tool}-build`, project.path("dist"));
  });
}
