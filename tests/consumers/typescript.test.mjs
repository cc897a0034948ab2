// The shipped declarations under `tsc --noEmit --strict` (no skipLibCheck) in the configurations consumers use:
// the default lib (DOM included), a Node-only lib with @types/node (20 and latest), a worker typed by `wrangler
// types`, moduleResolution node16 / nodenext / bundler, a CommonJS (.cts) consumer; each with TypeScript 5.9 and
// TypeScript 7 (the native compiler). The consumer imports every subpath of the exports map. A failure shows tsc's errors.
import assert from "node:assert/strict";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createProject, fixture, packPackage, subpaths } from "./support/project.mjs";
import { ensureTools, mustRunTool, repoRoot, runTool, toolVersion } from "./support/tools.mjs";

const wranglerVersion = JSON.parse(readFileSync(join(repoRoot, "node_modules", "wrangler", "package.json"), "utf8")).version;
const strict = { target: "es2022", strict: true, noEmit: true, skipLibCheck: false };
const nodenext = { module: "nodenext", moduleResolution: "nodenext" };
const bundler = { module: "esnext", moduleResolution: "bundler" };

/**
 * name -> compiler options, the files added to consumer.ts and subpaths.ts (or `roots`, the files checked instead),
 * and the @types/node of the tools workspace linked as node_modules/@types/node.
 */
const configs = {
  "default lib, moduleResolution node16": { options: { module: "node16", moduleResolution: "node16", types: [] } },
  "default lib, moduleResolution nodenext": { options: { ...nodenext, types: [] } },
  "default lib, moduleResolution bundler": { options: { ...bundler, types: [] } },
  "default lib, nodenext, CommonJS consumer (.cts)": { options: { ...nodenext, types: [] }, roots: ["consumer.cts"] },
  "lib es2022 + dom, nodenext, a page importing only agent-governor/approver": { options: { ...nodenext, lib: ["es2022", "dom"], types: [] }, roots: ["approver-only.ts"] },
  [`lib es2022 + @types/node ${toolVersion("types-node-20")} (Node only), nodenext`]: { options: { ...nodenext, lib: ["es2022"], types: ["node"] }, typesNode: "types-node-20" },
  [`lib es2022 + @types/node ${toolVersion("types-node-latest")} (Node only), nodenext`]: { options: { ...nodenext, lib: ["es2022"], types: ["node"] }, typesNode: "types-node-latest" },
  [`worker typed by wrangler ${wranglerVersion} types (lib es2022), bundler`]: {
    options: { ...bundler, lib: ["es2022"], types: [] },
    files: ["worker-configuration.d.ts"],
  },
};

let packed;
let workerTypes;

before(async () => {
  await ensureTools();
  packed = packPackage();
}, { timeout: 600_000 });
after(() => packed?.cleanup());

/** worker-configuration.d.ts from `wrangler types` (the Env and the workerd runtime types, offline), made once. */
function generateWorkerTypes() {
  workerTypes ??= (async () => {
    const project = createProject(packed, "wrangler-types", {
      files: { "wrangler.toml": 'name = "consumer"\nmain = "consumer.ts"\ncompatibility_date = "2026-04-01"\n', "consumer.ts": "" },
    });
    await mustRunTool("wrangler", ["types"], { cwd: project.dir, env: { WRANGLER_SEND_METRICS: "false", CI: "1" } });
    return project.path("worker-configuration.d.ts");
  })();
  return workerTypes;
}

/** subpaths.ts: a namespace import of each subpath the packed exports map names. */
function subpathsSource() {
  const names = subpaths(packed.manifest);
  return [
    "// Generated from the packed exports map: every subpath a consumer can import.",
    ...names.map((name, index) => `import * as subpath${index} from ${JSON.stringify(name)};`),
    `export const subpaths = [${names.map((_, index) => `subpath${index}`).join(", ")}];`,
    "",
  ].join("\n");
}

for (const compiler of ["typescript5", "typescript7"]) {
  for (const [label, config] of Object.entries(configs)) {
    test(`TypeScript ${toolVersion(compiler)}: ${label}`, { timeout: 180_000 }, async () => {
      const extra = config.files ?? [];
      const roots = config.roots ?? ["consumer.ts", "subpaths.ts", ...extra];
      const name = `${compiler}-${label.replace(/[^a-z0-9]+/gi, "-")}`.toLowerCase();
      const project = createProject(packed, name, {
        files: {
          "consumer.ts": fixture("consumer.ts"),
          "consumer.cts": fixture("consumer.cts"),
          "approver-only.ts": fixture("approver-only.ts"),
          "subpaths.ts": subpathsSource(),
          "tsconfig.json": `${JSON.stringify({ compilerOptions: { ...strict, ...config.options }, files: roots }, null, 2)}\n`,
        },
      });
      if (extra.includes("worker-configuration.d.ts")) copyFileSync(await generateWorkerTypes(), project.path("worker-configuration.d.ts"));
      if (config.typesNode) project.linkTool(config.typesNode, "@types/node");
      const { code, output } = await runTool(compiler, ["-p", "tsconfig.json", "--pretty", "false"], { cwd: project.dir });
      assert.equal(code, 0, `tsc found errors in the shipped declarations:\n${output.trim()}`);
    });
  }
}
