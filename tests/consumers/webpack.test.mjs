// webpack 5 as the consumer's bundler with no configuration file (mode production): `target: "web"` loaded by a
// page, and `target: "webworker"` started as a web worker by a page, in Chromium.
import { test } from "node:test";
import { classicPage, servedPageVerdict, workerPage } from "./support/browser.mjs";
import { createProject, fixture } from "./support/project.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { mustRunTool, toolVersion } from "./support/tools.mjs";
import { consumerSuite } from "./support/suite.mjs";
import { assertVerdict } from "./support/verdict.mjs";

const suite = consumerSuite();

const version = `webpack ${toolVersion("webpack")} (webpack-cli ${toolVersion("webpack-cli")})`;

const CONSUMERS = [
  ["web", classicPage("main.js"), "guard.js"],
  ["webworker", workerPage("main.js"), "guard.js"],
  ["web", classicPage("main.js"), "guard-init.js"],
];
for (const [target, page, entry] of CONSUMERS) {
  const label = entry === "guard.js" ? target : `${target}, init`;
  test(`${version}: --target ${label}, no config, in Chromium`, { timeout: 180_000 }, async (t) => {
    const project = createProject(suite.packed, `webpack-${label.replace(", ", "-")}`, {
      // webpack's default entry (src/index.js) and output (dist/main.js).
      files: { "src/index.js": fixture(entry), "src/verdict.js": fixture("verdict.js"), "dist/index.html": page },
    });
    await mustRunTool("webpack", ["--mode", "production", "--target", target], { cwd: project.dir });
    recordSizes(t, `webpack-${label}`, measure(project.path("dist")));
    assertVerdict(await servedPageVerdict(suite.browser, project.path("dist")));
  });
}
