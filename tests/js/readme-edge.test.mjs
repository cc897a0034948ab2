// The curl walk-through of the edge guard service (docs/edge-service.md), run as written against `wrangler dev`, so the
// API reference cannot rot.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./helpers.mjs";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { ADMIN, AGENT, INBOX, startGuardService } from "./edge-service-support.mjs";

function walkThrough() {
  const page = readFileSync(join(repoRoot, "docs", "edge-service.md"), "utf8");
  const start = page.indexOf("\n### Walk-through with curl");
  assert.ok(start >= 0, "docs/edge-service.md has the walk-through");
  // The walk-through ends where the next section or subsection starts ("Running the guard for real" needs an account).
  const rest = page.slice(start + 1);
  const ends = [rest.indexOf("\n## "), rest.indexOf("\n### ")].filter((index) => index >= 0);
  const section = rest.slice(0, ends.length > 0 ? Math.min(...ends) : rest.length);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
  assert.ok(blocks.length >= 5, "the page walks through the API in sh blocks");
  return blocks.join("\n");
}

function runScript(script, options) {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

test("the edge service page's curl walk-through runs as written: registered, proposed, approved, applied once, declined", async () => {
  const board = await startTaskBoard({ nodes: { "task-1": "todo", "task-3": "in_review" } });
  const guard = await startGuardService(board);
  try {
    // A scratch directory where `node edge/approver.mjs` resolves, as it does from the repository.
    const directory = mkdtempSync(join(tmpdir(), "readme-edge-"));
    symlinkSync(join(repoRoot, "edge"), join(directory, "edge"));
    // Asynchronously: the board answering the guard runs in this process.
    const run = await runScript(walkThrough(), {
      cwd: directory,
      env: { ...process.env, GUARD: guard.url, AGENT_TOKEN: AGENT, INBOX_TOKEN: INBOX, ADMIN_TOKEN: ADMIN },
    });
    assert.equal(run.status, 0, `${run.stderr}\n${run.stdout}`);
    // An ExecutorResult names its outcome, then its node (its signed receipt repeats the outcome otherwise).
    const outcomes = [...run.stdout.matchAll(/"outcome":"(\w+)","node_id"/g)].map((match) => match[1]);
    assert.deepEqual(outcomes, ["applied", "rejected"], "the two Applies");
    assert.match(run.stdout, /"receipt":\{"seq":1,/);
    assert.match(run.stdout, /"phase":"already_consumed"/);
    assert.match(run.stdout, /"state":"declined"/);
    assert.match(run.stdout, /"code":"invalid_input","message":"a y needs the signed `confirmation`","path":"confirmation"/);
    assert.equal(board.applies.length, 1);
    assert.equal(board.board.get("task-1"), "in_progress");
    assert.equal(board.board.get("task-3"), "in_review");
  } finally {
    await guard.dispose();
    await board.close();
  }
});
