// A Cloudflare worker (wrangler, the repository's own devDependency) importing `agent-governor/guard` from the
// project's node_modules: its deploy bundle (`wrangler deploy --dry-run`, sizes only) and the worker itself under
// `wrangler dev` (the real workerd, offline) answering the verdict over HTTP.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { after, before, test } from "node:test";
import { startEdgeWorker } from "../js/helpers.mjs";
import { createProject, fixture, packPackage } from "./support/project.mjs";
import { measure, recordSizes } from "./support/sizes.mjs";
import { mustRunTool, repoRoot } from "./support/tools.mjs";
import { assertVerdict } from "./support/verdict.mjs";

const wranglerVersion = JSON.parse(readFileSync(join(repoRoot, "node_modules", "wrangler", "package.json"), "utf8")).version;
const wranglerToml = 'name = "consumer"\nmain = "worker.js"\ncompatibility_date = "2026-04-01"\n';
const env = { WRANGLER_SEND_METRICS: "false", CI: "1" };
let packed;
let project;

before(() => {
  packed = packPackage();
  project = createProject(packed, "wrangler", {
    files: { "worker.js": fixture("worker.js"), "verdict.js": fixture("verdict.js"), "wrangler.toml": wranglerToml },
  });
}, { timeout: 600_000 });
after(() => packed?.cleanup());

test(`wrangler ${wranglerVersion}: deploy --dry-run bundles the worker and its wasm`, { timeout: 180_000 }, async (t) => {
  await mustRunTool("wrangler", ["deploy", "--dry-run", "--outdir", "out"], { cwd: project.dir, env });
  const sizes = measure(project.path("out"));
  recordSizes(t, "wrangler-deploy-dry-run", sizes);
  assert.ok(sizes.js.raw > 0, "the bundle has the worker's JS");
});

test(`wrangler ${wranglerVersion}: dev (workerd) answers the verdict over HTTP`, { timeout: 180_000 }, async () => {
  // startEdgeWorker takes a directory relative to the repository.
  const worker = await startEdgeWorker({}, { dir: relative(repoRoot, project.dir) });
  try {
    const response = await fetch(`${worker.url}/verdict`);
    const text = await response.text();
    assert.equal(response.status, 200, `${text}\n--- wrangler output ---\n${worker.output()}`);
    assertVerdict(JSON.parse(text));
  } finally {
    await worker.stop();
  }
});
