// The pinned build tools and hosts (tests/consumers/tools/package-lock.json), installed once with `npm ci`
// when missing or older than the lock, and the commands that run each of them.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mustRun, run, start } from "./run.mjs";

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
export const toolsDir = fileURLToPath(new URL("../tools", import.meta.url));
export const toolModules = join(toolsDir, "node_modules");

/**
 * Installs the tools workspace (`npm ci`) unless its install is already as new as its lock. Safe to call from every
 * test file, also from files run in parallel: one installs (holding a lock directory) while the others wait.
 */
export async function ensureTools({ timeoutMs = 600_000 } = {}) {
  const marker = join(toolModules, ".package-lock.json");
  const lock = join(toolsDir, "package-lock.json");
  const fresh = () => existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
  const lockDir = join(toolsDir, ".install-lock");
  const deadline = Date.now() + timeoutMs;
  while (!fresh()) {
    try {
      mkdirSync(lockDir);
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      // Another process installs; a lock older than the install timeout was left by one that died.
      if (Date.now() - statSync(lockDir).mtimeMs > timeoutMs) rmSync(lockDir, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`the tools install did not finish within ${timeoutMs} ms (${lockDir})`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    try {
      if (fresh()) break;
      const started = Date.now();
      await mustRun("npm", ["ci", "--no-audit", "--no-fund", "--prefix", toolsDir], { cwd: repoRoot, timeoutMs });
      return { installed: true, ms: Date.now() - started };
    } finally {
      rmSync(lockDir, { recursive: true, force: true });
    }
  }
  return { installed: false, ms: 0 };
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
  const [command] = cli[tool]();
  if (command !== process.execPath && !existsSync(command)) {
    return { ok: false, reason: `${command} is missing: the package or its platform binary did not install from the registry` };
  }
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
