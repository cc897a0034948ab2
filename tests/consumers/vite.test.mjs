// Vite as the consumer's bundler, with no configuration: the production build (`vite build`) and the dev server
// (`vite`, which pre-bundles dependencies), each page loaded in Chromium.
import { test } from "node:test";
import { freePort, waitForHttp } from "../js/helpers.mjs";
import { modulePage, pageVerdict, servedPageVerdict } from "./support/browser.mjs";
import { createProject, fixture } from "./support/project.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { mustRunTool, startTool, toolVersion } from "./support/tools.mjs";
import { consumerSuite } from "./support/suite.mjs";
import { assertVerdict } from "./support/verdict.mjs";

const suite = consumerSuite();

const pageFiles = (entry = "guard.js") => ({ "index.html": modulePage("/main.js"), "main.js": fixture(entry), "verdict.js": fixture("verdict.js") });

for (const tool of ["vite7", "vite8"]) {
  const name = `Vite ${toolVersion(tool)}`;

  test(`${name}: production build (vite build) in Chromium`, { timeout: 180_000 }, async (t) => {
    const project = createProject(suite.packed, `${tool}-build`, { files: pageFiles() });
    await mustRunTool(tool, ["build"], { cwd: project.dir });
    recordSizes(t, `${tool} build`, measure(project.path("dist")));
    assertVerdict(await servedPageVerdict(suite.browser, project.path("dist")));
  });

  test(`${name}: production build of the explicit init entry (the .wasm emitted as an asset) in Chromium`, { timeout: 180_000 }, async (t) => {
    const project = createProject(suite.packed, `${tool}-init-build`, { files: pageFiles("guard-init.js") });
    await mustRunTool(tool, ["build"], { cwd: project.dir });
    recordSizes(t, `${tool} build, init`, measure(project.path("dist")));
    assertVerdict(await servedPageVerdict(suite.browser, project.path("dist")));
  });

  test(`${name}: dev server (vite, default config, pre-bundled dependencies) in Chromium`, { timeout: 180_000 }, async () => {
    await devServerVerdict(tool, createProject(suite.packed, `${tool}-dev`, { files: pageFiles() }));
  });

  test(`${name}: dev server, the explicit init entry given the .wasm's ?url, in Chromium`, { timeout: 180_000 }, async () => {
    await devServerVerdict(tool, createProject(suite.packed, `${tool}-dev-init`, { files: pageFiles("guard-init-url.js") }));
  });
}

/** Serves `project` with the tool's dev server and asserts the page's verdict. */
async function devServerVerdict(tool, project) {
  const port = await freePort();
  const dev = startTool(tool, ["--host", "127.0.0.1", "--port", String(port), "--strictPort"], { cwd: project.dir });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/`, 60_000, dev.alive);
    assertVerdict(await pageVerdict(suite.browser, `http://127.0.0.1:${port}/`));
  } catch (error) {
    error.message += `\n--- vite output ---\n${dev.output()}`;
    throw error;
  } finally {
    await dev.stop();
  }
}
