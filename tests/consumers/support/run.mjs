// Runs a command to completion with its output captured; a failure carries the command, exit code and output.
import { spawn } from "node:child_process";

/** Resolves to `{ code, output }` (stdout and stderr interleaved); rejects only when the command cannot start. */
export function run(command, args, { cwd, env = {}, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, output });
    });
  });
}

/** Like `run`, but rejects unless the command exits 0, with the whole output in the message. */
export async function mustRun(command, args, options = {}) {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(`\`${[command, ...args].join(" ")}\` exited ${result.code} in ${options.cwd ?? process.cwd()}\n${result.output}`);
  }
  return result.output;
}

/**
 * Starts a long-running command (a dev server) in its own process group. Returns `{ output(), alive(), stop() }`;
 * `stop()` ends the whole group (SIGTERM, then SIGKILL) and resolves once the command is gone.
 */
export function start(command, args, { cwd, env = {} } = {}) {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  let exited = false;
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const gone = new Promise((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  child.once("error", (error) => {
    output += `\n[cannot start: ${error.message}]`;
    exited = true;
  });
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // The group is already gone.
    }
  };
  return {
    output: () => output,
    alive: () => !exited,
    async stop(graceMs = 2000) {
      if (!exited) {
        signal("SIGTERM");
        const timer = setTimeout(() => signal("SIGKILL"), graceMs);
        await gone;
        clearTimeout(timer);
      }
      signal("SIGKILL");
    },
  };
}
