// webpack 5 as the consumer's bundler with no configuration file (mode production): `target: "web"` loaded by a
// page, and `target: "webworker"` started as a web worker by a page, in Chromium.
import { after, before, test } from "node:test";
import { classicPage, launchChromium, pageVerdict, workerPage } from "./support/browser.mjs";
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

const version = `webpack ${toolVersion("webpack")} (webpack-cli ${toolVersion("webpack-cli")})`;

const CONSUMERS = [
  ["web", classicPage("main.js"), "guard.js"],
  ["webworker", workerPage("main.js"), "guard.js"],
  ["web", classicPage("main.js"), "guard-init.js"],
];
for (const [target, page, entry] of CONSUMERS) {
  const label = entry === "guard.js" ? target : `${target}, init`;
  test(`${version}: --target ${label}, no config, in Chromium`, { timeout: 180_000 }, async (t) => {
    const project = createProject(packed, `webpack-${label.replace(", ", "-")}`, {
      // webpack's default entry (src/index.js) and output (dist/main.js).
      files: { "src/index.js": fixture(entry), "src/verdict.js": fixture("verdict.js"), "dist/index.html": page },
    });
    await mustRunTool("webpack", ["--mode", "production", "--target", target], { cwd: project.dir });
    recordSizes(t, `webpack-${label}`, measure(project.path("dist")));
    const server = await serveStatic(project.path("dist"));
    try {
      assertVerdict(await pageVerdict(browser, `${server.url}/`, { server }));
    } finally {
      await server.close();
    }
  });
}
