// Rollup as the consumer's bundler with @rollup/plugin-node-resolve (its `browser: true` option and its default),
// ESM output loaded as a module script in Chromium.
import { test } from "node:test";
import { modulePage, servedPageVerdict } from "./support/browser.mjs";
import { createProject, fixture } from "./support/project.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { mustRunTool, toolVersion } from "./support/tools.mjs";
import { consumerSuite } from "./support/suite.mjs";
import { assertVerdict } from "./support/verdict.mjs";

const suite = consumerSuite();

const config = (options) => `import { nodeResolve } from "@rollup/plugin-node-resolve";

export default {
  input: "main.js",
  output: { dir: "dist", format: "esm" },
  plugins: [nodeResolve(${options})],
};
`;
const version = `Rollup ${toolVersion("rollup")} + @rollup/plugin-node-resolve ${toolVersion("@rollup/plugin-node-resolve")}`;

for (const [label, options] of [["browser: true", "{ browser: true }"], ["default options", ""]]) {
  test(`${version} (${label}): ESM output in Chromium`, { timeout: 180_000 }, async (t) => {
    const name = `rollup-${options ? "browser" : "default"}`;
    const project = createProject(suite.packed, name, {
      files: {
        "main.js": fixture("guard.js"),
        "verdict.js": fixture("verdict.js"),
        "rollup.config.mjs": config(options),
        "dist/index.html": modulePage("main.js"),
      },
    });
    project.linkTool("@rollup/plugin-node-resolve");
    await mustRunTool("rollup", ["--config", "rollup.config.mjs"], { cwd: project.dir });
    recordSizes(t, name, measure(project.path("dist")));
    assertVerdict(await servedPageVerdict(suite.browser, project.path("dist")));
  });
}
