// Bun and Deno as the consumer's runtime, each resolving the package from the project's node_modules (no
// registry): the guard module and both modules run as ESM. Bun's browser build is loaded in Chromium. A host
// whose binary did not install or cannot start here is skipped with the reason.
import { writeFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { launchChromium, modulePage, servedPageVerdict } from "./support/browser.mjs";
import { createProject, fixture, packPackage } from "./support/project.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { ensureTools, mustRunTool, probeTool, toolVersion } from "./support/tools.mjs";
import { assertVerdict, lastJsonLine } from "./support/verdict.mjs";

const bothModules = ["agent-governor", "agent-governor/guard"];
let packed;
let browser;
const probes = {};

before(async () => {
  await ensureTools();
  packed = packPackage();
  for (const tool of ["bun", "deno"]) probes[tool] = await probeTool(tool);
}, { timeout: 600_000 });
after(async () => {
  await browser?.close();
  packed?.cleanup();
});

/** A project with both entries; skips the test when `tool` cannot run here. */
function hostProject(t, tool, name) {
  if (!probes[tool].ok) {
    t.skip(`${tool} ${toolVersion(tool)} from the npm registry does not run here: ${probes[tool].reason}`);
    return null;
  }
  return createProject(packed, name, {
    files: { "guard.js": fixture("guard.js"), "both.js": fixture("both.js"), "verdict.js": fixture("verdict.js") },
  });
}

// Deno 2 with a package.json and a node_modules directory resolves npm packages from node_modules ("manual"
// mode, made explicit here); --cached-only forbids any download, so nothing can come from the registry.
const denoEnv = (project) => ({ DENO_DIR: project.path(".deno"), DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" });
// Bun's --no-install turns off its auto-install: the package must come from node_modules.
const hosts = {
  bun: { run: (entry) => ["run", "--no-install", entry], env: () => ({}) },
  deno: { run: (entry) => ["run", "--node-modules-dir=manual", "--cached-only", "-A", entry], env: denoEnv },
};

for (const tool of ["bun", "deno"]) {
  for (const [entry, modules] of [["guard.js", ["agent-governor/guard"]], ["both.js", bothModules]]) {
    test(`${tool === "bun" ? "Bun" : "Deno"} ${toolVersion(tool)}: ${hosts[tool].run(entry).join(" ")} (${modules.join(" + ")})`, { timeout: 180_000 }, async (t) => {
      const project = hostProject(t, tool, `${tool}-${entry.replace(".js", "")}`);
      if (!project) return;
      const output = await mustRunTool(tool, hosts[tool].run(entry), { cwd: project.dir, env: hosts[tool].env(project) });
      assertVerdict(lastJsonLine(output), modules);
    });
  }
}

test(`Bun ${toolVersion("bun")}: bun build --target=browser, module script in Chromium`, { timeout: 180_000 }, async (t) => {
  const project = hostProject(t, "bun", "bun-build-browser");
  if (!project) return;
  await mustRunTool("bun", ["build", "guard.js", "--target=browser", "--outdir=dist"], { cwd: project.dir });
  writeFileSync(project.path("dist", "index.html"), modulePage("guard.js"));
  recordSizes(t, "bun-build-browser", measure(project.path("dist")));
  browser ??= await launchChromium();
  assertVerdict(await servedPageVerdict(browser, project.path("dist")));
});
