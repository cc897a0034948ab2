// `wrangler dev` (the real workerd) for a worker directory of this repository, on a loopback port, offline,
// with extra vars and an optional state directory for Durable Objects. Used by `npm start`, the tests and the
// benchmarks.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers (any status) or `timeoutMs` passes. */
export async function waitForHttp(url, timeoutMs, isAlive = () => true) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`the server exited before answering ${url}`);
    try {
      return await fetch(url, { method: "GET" });
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms: ${lastError?.message}`);
}

/** `wrangler dev` (real workerd) on a free port for the worker in `dir` (default edge/), with extra `vars`. */
export async function startEdgeWorker(vars = {}, { dir = "edge", persistTo = null, port: fixedPort = null } = {}) {
  const port = fixedPort ?? (await freePort());
  const wrangler = join(repoRoot, "node_modules", ".bin", "wrangler");
  const varArgs = Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]);
  const persistArgs = persistTo === null ? [] : ["--persist-to", persistTo];
  // Its own inspector port too (the default, 9229, is one per machine): several workers run side by side.
  const inspectorPort = await freePort();
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort), "--log-level", "warn", ...persistArgs, ...varArgs];
  const child = spawn(wrangler, args, {
    cwd: join(repoRoot, dir),
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  let exited = false;
  child.on("exit", () => (exited = true));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/`, 60_000, () => !exited);
  } catch (error) {
    process.kill(-child.pid, "SIGTERM");
    throw new Error(`${error.message}\n--- wrangler output ---\n${output}`);
  }
  return {
    url,
    port,
    output: () => output,
    /** Stops the runtime (its whole process group): SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
    async stop(graceMs = 1000) {
      if (exited) return;
      const gone = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid, "SIGTERM");
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }, graceMs);
      await gone;
      clearTimeout(timer);
      // workerd may outlive wrangler in the group for a moment: the group goes with it.
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Nothing left.
      }
    },
    /** Kills the runtime at once (workerd included), as a crash would, and waits until it is gone. */
    async kill() {
      if (exited) return;
      const gone = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid, "SIGKILL");
      await gone;
    },
  };
}
