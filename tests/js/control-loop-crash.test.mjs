// Write-ahead through `governor.loop`, with a real process: a host that persists its state to a file is
// killed (SIGKILL) at every point of an execution and started again from what it saved. The action never
// runs twice, and an execution whose outcome is unknown is reported for a person to reconcile, never re-run.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const host = fileURLToPath(new URL("./support/crash-host.mjs", import.meta.url));

/** Runs the host until it prints its kill point, then kills it with SIGKILL. */
function runUntilKilled(dir, point) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [host, dir, point], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (output.includes(`KILLPOINT ${point}`)) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk) => { errors += chunk; });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve();
      else reject(new Error(`the host exited (${code}) without reaching ${point}: ${output}${errors}`));
    });
  });
}

function restart(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [host, dir, "restart"], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let errors = "";
    child.stdout.on("data", (chunk) => { output += chunk; });
    child.stderr.on("data", (chunk) => { errors += chunk; });
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(output.trim().split("\n").at(-1))) : reject(new Error(`restart failed (${code}): ${output}${errors}`))));
  });
}

const boardEvents = (dir) => {
  const path = join(dir, "board.jsonl");
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line)) : [];
};

async function crashAt(point) {
  const dir = mkdtempSync(join(tmpdir(), `agent-governor-crash-${point}-`));
  try {
    await runUntilKilled(dir, point);
    const saved = JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
    const beforeRestart = boardEvents(dir);
    const restarted = await restart(dir);
    return { saved, beforeRestart, restarted, after: boardEvents(dir) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("killed before the executing state is saved: nothing ran; after a restart the approval is asked again and runs once", async () => {
  const { saved, beforeRestart, restarted, after } = await crashAt("before-persist");
  assert.equal(saved.mode, "awaiting_approval", "the last save is the approval request");
  assert.deepEqual(beforeRestart, [], "no execute before the executing state was saved");
  assert.equal(restarted.requests.length, 1, "asked again");
  assert.deepEqual(restarted.requests[0].lines, ["Execute: status_change on T-1: review -> done", "Impact: T-1"]);
  assert.deepEqual(after, [{ started: "T-1" }, { applied: "T-1" }], "the fresh y runs it, once");
});

for (const point of ["after-persist", "during-skill", "after-skill"]) {
  test(`killed ${point.replace("-", " ")}: after a restart the outcome is unknown, reported, and the action never runs again`, async () => {
    const { saved, beforeRestart, restarted, after } = await crashAt(point);
    assert.equal(saved.mode, "executing", "the executing state was saved ahead of the execution");
    const starts = (events) => events.filter((event) => event.started).length;
    assert.ok(starts(beforeRestart) <= 1);
    assert.equal(starts(after), starts(beforeRestart), "the restarted host never starts it again");
    assert.equal(restarted.requests.length, 0, "nothing is offered for a y by itself");
    assert.equal(restarted.before.halt?.kind, "outcome_unknown");
    assert.equal(restarted.before.unreconciled.length, 1);
    assert.deepEqual(restarted.before.unreconciled[0].lines, ["Execute: status_change on T-1: review -> done", "Impact: T-1"]);
    assert.ok(restarted.chat.some((line) => line.startsWith("Outcome unknown: status_change on T-1")), restarted.chat.join("\n"));
    if (point === "after-persist") assert.equal(starts(after), 0, "killed before the skill started");
    if (point === "after-skill") assert.deepEqual(after.at(-1), { applied: "T-1" }, "applied once, before the kill");
  });
}
