// Node itself as the consumer: the packed package imported (ESM) and required (CommonJS), both modules.
import { after, before, test } from "node:test";
import { createProject, fixture, packPackage } from "./support/project.mjs";
import { mustRun } from "./support/run.mjs";
import { assertVerdict, lastJsonLine } from "./support/verdict.mjs";

const bothModules = ["agent-governor", "agent-governor/guard"];
let packed;

before(() => {
  packed = packPackage();
}, { timeout: 600_000 });
after(() => packed?.cleanup());

test(`Node ${process.version}: ESM import of agent-governor and agent-governor/guard`, { timeout: 180_000 }, async () => {
  const project = createProject(packed, "node-esm", { files: { "main.js": fixture("both.js"), "verdict.js": fixture("verdict.js") } });
  assertVerdict(lastJsonLine(await mustRun(process.execPath, ["main.js"], { cwd: project.dir })), bothModules);
});

test(`Node ${process.version}: CommonJS require of agent-governor and agent-governor/guard`, { timeout: 180_000 }, async () => {
  const project = createProject(packed, "node-cjs", { packageJson: { type: "commonjs" }, files: { "main.js": fixture("both.cjs") } });
  assertVerdict(lastJsonLine(await mustRun(process.execPath, ["main.js"], { cwd: project.dir })), bothModules);
});
