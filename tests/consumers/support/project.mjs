// Fresh consumer projects in a temporary directory, each with the packed package (`npm pack` of the repository)
// extracted into its node_modules exactly as `npm install` would place it: no registry is involved.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { repoRoot, toolModules } from "./tools.mjs";

const fixturesDir = fileURLToPath(new URL("../fixtures", import.meta.url));

/** The text of a file of tests/consumers/fixtures/. */
export function fixture(name) {
  return readFileSync(join(fixturesDir, name), "utf8");
}

/**
 * Packs the repository once (`npm pack`, scripts ignored) into a new temporary root, or takes the tarball named by
 * AGENT_GOVERNOR_CONSUMER_TARBALL (a package packed elsewhere). Returns the root, the tarball, the packed manifest
 * and its file list, and `cleanup()` (the root is kept when AGENT_GOVERNOR_KEEP_CONSUMERS is set, for inspection).
 * Throws when a file the exports map names is missing from the tarball (the package is not built).
 */
export function packPackage() {
  const root = mkdtempSync(join(tmpdir(), "agent-governor-consumers-"));
  let tarball = process.env.AGENT_GOVERNOR_CONSUMER_TARBALL ? resolve(process.env.AGENT_GOVERNOR_CONSUMER_TARBALL) : null;
  if (!tarball) {
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", root], {
        cwd: repoRoot,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    tarball = join(root, packed.filename);
  }
  const files = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ""));
  const manifestDir = join(root, "manifest");
  mkdirSync(manifestDir);
  execFileSync("tar", ["-xzf", tarball, "-C", manifestDir, "--strip-components=1", "package/package.json"]);
  const manifest = JSON.parse(readFileSync(join(manifestDir, "package.json"), "utf8"));
  const missing = exportTargets(manifest.exports).filter((target) => !files.includes(target.replace(/^\.\//, "")));
  if (missing.length > 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`the packed package lacks files its exports map names (is dist/ built?): ${missing.join(", ")}`);
  }
  return {
    root,
    tarball,
    manifest,
    files,
    cleanup() {
      if (process.env.AGENT_GOVERNOR_KEEP_CONSUMERS) console.log(`[consumer] kept ${root}`);
      else rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Every file path an exports map (or a nested conditions object) points at. */
function exportTargets(value) {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return [...new Set(Object.values(value).flatMap(exportTargets))];
}

/**
 * The framework adapters: each needs its framework (an optional peer dependency) installed, so a consumer
 * without it imports none of them (their declarations are checked against the frameworks in
 * tests/js/adapter-types.test.mjs, their code in tests/js/adapter-*.test.mjs).
 */
export const ADAPTER_SUBPATHS = ["./ai", "./openai-agents", "./langgraph", "./mcp", "./mcp/relay", "./mcp/http"];

/** The subpaths a consumer can import: each key of the exports map that names code (not ./package.json, not a wasm file, not an adapter). */
export function subpaths(manifest) {
  const isCode = (target) => /\.(c|m)?js$/.test(target) || /\.d\.(c|m)?ts$/.test(target);
  return Object.entries(manifest.exports)
    .filter(([key, conditions]) => !key.includes("*") && exportTargets(conditions).some(isCode))
    .filter(([key]) => !ADAPTER_SUBPATHS.includes(key))
    .map(([key]) => key)
    .map((key) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`));
}

/**
 * A new project `name` under the packed root: a package.json (`packageJson` merged over a private ESM one),
 * the `files` given (relative path -> text), and the packed package in node_modules/agent-governor.
 */
export function createProject(packed, name, { packageJson = {}, files = {} } = {}) {
  const dir = join(packed.root, name);
  const installed = join(dir, "node_modules", packed.manifest.name);
  mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", packed.tarball, "-C", installed, "--strip-components=1"]);
  const manifest = {
    name: `consumer-${name}`,
    private: true,
    type: "module",
    dependencies: { [packed.manifest.name]: packed.manifest.version },
    ...packageJson,
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return {
    dir,
    path: (...parts) => join(dir, ...parts),
    /** Makes a package of the tools workspace importable from the project as `as` (a link, like a hoisted install). */
    linkTool(toolName, as = toolName) {
      const target = join(dir, "node_modules", as);
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(join(toolModules, toolName), target, "dir");
    },
  };
}
