// The pinned build tools and hosts (tests/consumers/tools/package-lock.json), installed once with `npm ci`
// when missing or older than the lock, and the commands that run each of them.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mustRun, run, start } from "./run.mjs";

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
export const toolsDir = fileURLToPath(new URL("../tools", import.meta.url));
export const toolModules = join(toolsDir, "node_modules");

/** Installs the tools workspace unless its install is already as new as its lock. Safe to call from every file. */
export async function ensureTools() {
  const marker = join(toolModules, ".package-lock.json");
  const lock = join(toolsDir, "package-lock.json");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return { installed: false, ms: 0 };
  const started = Date.now();
  await mustRun("npm", ["ci", "--no-audit", "--no-fund", "--prefix", toolsDir], { cwd: repoRoot, timeoutMs: 600_000 });
  return { installed: true, ms: Date.now() - started };
}

/** The version the lock pins for a package of the tools workspace (an alias like `vite7` works); known before install. */
export function toolVersion(name) {
  const lock = JSON.parse(readFileSync(join(toolsDir, "package-lock.json"), "utf8"));
  return lock.packages[`node_modules/${name}`].version;
}

/** `[command, args]` that runs a tool's CLI: a Node script run by this Node, or a native binary. */
const cli = {
  vite7: () => [process.execPath, [join(toolModules, "vite7", "bin", "vite.js")]],
  vite8: () => [process.execPath, [join(toolModules, "vite8", "bin", "vite.js")]],
  esbuild: () => [join(toolModules, ".bin", "esbuild"), []],
  webpack: () => [process.execPath, [join(toolModules, "webpack-cli", "bin", "cli.js")]],
  rollup: () => [process.execPath, [join(toolModules, "rollup", "dist", "bin", "rollup")]],
  typescript5: () => [process.execPath, [join(toolModules, "typescript5", "bin", "tsc")]],
  // TypeScript 7 is the native compiler: its `tsc` launcher starts the platform binary of an optional dependency.
  typescript7: () => [process.execPath, [join(toolModules, "typescript7", "bin", "tsc")]],
  bun: () => [join(toolModules, ".bin", "bun"), []],
  deno: () => [join(toolModules, ".bin", "deno"), []],
  wrangler: () => [join(repoRoot, "node_modules", ".bin", "wrangler"), []],
};

/** Runs `tool` with `args` (see run.mjs); resolves to `{ code, output }`. */
export function runTool(tool, args, options) {
  const [command, prefix] = cli[tool]();
  return run(command, [...prefix, ...args], options);
}

/** Runs `tool` with `args` and rejects with its output unless it exits 0. */
export function mustRunTool(tool, args, options) {
  const [command, prefix] = cli[tool]();
  return mustRun(command, [...prefix, ...args], options);
}

/** The tool's `--version` output when its binary starts here, else why not (for a skip message). */
export async function probeTool(tool) {
  try {
    const { code, output } = await runTool(tool, ["--version"], { timeoutMs: 30_000 });
    return code === 0 ? { ok: true, version: output.trim() } : { ok: false, reason: `\`${tool} --version\` exited ${code}: ${output.trim()}` };
  } catch (error) {
    return { ok: false, reason: `${tool} cannot start: ${error.message}` };
  }
}

/** Starts `tool` with `args` as a long-running process (see run.mjs `start`). */
export function startTool(tool, args, options) {
  const [command, prefix] = cli[tool]();
  return start(command, [...prefix, ...args], options);
}
