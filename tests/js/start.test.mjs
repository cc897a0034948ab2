// The whole `npm start` path (examples/start.mjs, after the build): the agent judges the board and proposes to
// the edge guard, a person approves in the inbox (Chromium) with a device key, the guard applies it once, the
// board shows the new status, and Ctrl-C stops everything. The judge is a scripted OpenAI-compatible endpoint
// (LLM_BASE_URL), so the test asserts the path, not a small model's choices.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { freePort, launchChromium, repoRoot } from "./helpers.mjs";

const nulls = { reply: null, action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null, setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null };
const judgements = [];

/** Acts once (task-1: todo -> in_progress), then waits; the Closer's answers say complete, the Watcher's pass. */
function scriptedModel() {
  const server = createServer(async (request, response) => {
    let raw = "";
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw || "{}");
    let content;
    if (body.response_format?.json_schema?.name === "control_judgement") {
      const first = judgements.length === 0;
      judgements.push(first ? "act" : "wait");
      content = JSON.stringify(
        first
          ? { ...nulls, decision: "act", action_type: "status_change", summary: "start task-1", impact_scope: "task-1 on the demo board only", node_id: "task-1", from: "todo", to: "in_progress" }
          : { ...nulls, decision: "wait" },
      );
    } else if (body.response_format?.json_schema?.name === "watcher_verdict") {
      content = JSON.stringify({
        pass: true,
        issues: ["minor: task-1 has no owner yet"],
        inspection_log: "1. one task, one step\n2. within the goal",
        blindspots_covered: ["refactoring safety: a single status step"],
        misclassification_detected: false,
        reclassification_suggestion: null,
        trade_offs_acknowledged: true,
      });
    } else {
      content = JSON.stringify({ checklist: [{ id: "ready", description: "task-1 is ready to start", completed: true, evidence: "the board" }], allComplete: true, summary: "ready", pendingActions: [], confidence: 0.9 });
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }] }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let model;
let child;
let output = "";
let browser;
let state;

before(async () => {
  model = await scriptedModel();
  state = mkdtempSync(join(tmpdir(), "start-guard-state-"));
  const port = await freePort();
  child = spawn(process.execPath, [join(repoRoot, "examples", "start.mjs")], {
    cwd: repoRoot,
    env: { ...process.env, PORT: String(port), LLM_BASE_URL: `http://127.0.0.1:${model.address().port}/v1`, LLM_MODEL: "scripted", GUARD_STATE: state },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    // A failed test leaves npm start running: its whole tree goes (wrangler's group would outlive it).
    for (const pid of descendants(child.pid)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    child.kill("SIGKILL");
  }
  model?.close();
  if (state) rmSync(state, { recursive: true, force: true });
});

async function waitFor(predicate, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await predicate();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms\n--- npm start output ---\n${output}`);
}

test("npm start: the agent proposes, a person approves in the inbox, the guard applies once, Ctrl-C stops everything", async () => {
  const inbox = await waitFor(() => output.match(/approval inbox: (\S+)/)?.[1], "the inbox URL");
  const boardUrl = await waitFor(() => output.match(/task board \(the upstream skill\): (\S+)/)?.[1], "the board URL");
  await waitFor(() => output.includes("agent: judging the board"), "the agent start");

  const page = await browser.context.newPage();
  await page.goto(inbox);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.fill("#approver-name", "alice");
  await page.click("#register-device");
  await page.waitForFunction(() => document.getElementById("approver-status").textContent.includes("alice"), null, { timeout: 10_000 });

  const card = page.locator("#pending .approval").first();
  await card.waitFor({ timeout: 60_000 });
  assert.match(await card.textContent(), /task-1: todo → in_progress/);
  assert.match(await card.textContent(), /task-1 is ready to start/, "the Closer's checklist is attached as evidence");
  assert.match(await card.textContent(), /Watcher · scripted · advisory[^]*?pass\s*minor: task-1 has no owner yet/, "the Watcher's verdict and issues are attached, with their source");
  assert.match(await card.textContent(), /Now on the board\s*todo \(as proposed\)/, "the machine's facts about the node come first");
  // A device key asks for a second press.
  await card.locator("[data-action=approve]").click();
  await card.locator("[data-action=approve].confirming").waitFor({ timeout: 5_000 });
  await new Promise((resolve) => setTimeout(resolve, 600));
  await card.locator("[data-action=approve]").click();

  const board = await waitFor(async () => {
    const current = await (await fetch(boardUrl)).json();
    return current.nodes["task-1"] === "in_progress" ? current : null;
  }, "the board change");
  assert.equal(board.applies.filter((apply) => apply.node_id === "task-1").length, 1, "applied exactly once");
  const [applied] = board.applies.filter((apply) => apply.node_id === "task-1");
  assert.match(applied.idempotency_key, /^[0-9a-f]{64}$/, "the guard sent the action's idempotency key to the board");
  // The same action sent again with its key (a guard that lost its record): the board applies nothing more.
  const again = await fetch(`${boardUrl.replace(/\/board$/, "")}/apply`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": applied.idempotency_key },
    body: JSON.stringify({ node_id: "task-1", confirm_status: "in_progress" }),
  });
  assert.equal((await again.json()).applied, true);
  const after = await (await fetch(boardUrl)).json();
  assert.equal(after.applies.filter((apply) => apply.node_id === "task-1").length, 1, "still applied once");
  assert.equal(after.repeats.length, 1);
  await waitFor(() => output.includes("applied once"), "the agent's report");
  // The agent's execution log (JSON lines), served beside the inbox and shown in it.
  const inboxOrigin = new URL(inbox).origin;
  const { records } = await (await fetch(`${inboxOrigin}/agent/log`)).json();
  assert.ok(records.length > 0, "the execution log has records");
  for (const record of records) assert.deepEqual(Object.keys(record).sort(), ["cause", "channel", "event_summary", "impact_scope", "time", "time_ms"]);
  assert.ok(records.some((record) => record.channel === "cli" && /proposed|approved|executing|applied/i.test(record.event_summary)), "the log shows more than applies");
  await page.waitForFunction(() => document.querySelectorAll("#agent-log time").length > 0, null, { timeout: 15_000 });

  // The live board page shows the applied change, with the task outlined.
  const boardPage = await browser.context.newPage();
  await boardPage.goto(`${inboxOrigin}/board.html`);
  await boardPage.waitForSelector("body[data-ready=true]", { timeout: 10_000 });
  assert.equal(await boardPage.locator('[data-status="in_progress"] [data-node="task-1"]').count(), 1);
  // The guard's state and the board's are kept together, in the same directory.
  assert.ok(existsSync(join(state, "task-board.json")), "the board is saved beside the guard's state");

  // Ctrl-C with two tabs open (the inbox holds the feed's WebSocket): every process and port is gone within 2 s.
  const guardUrl = output.match(/edge guard \(wrangler dev\): (\S+?)\/?\s/)?.[1];
  assert.ok(guardUrl, output);
  const group = descendants(child.pid);
  assert.ok(group.length > 0, "npm start runs child processes (wrangler, workerd)");
  const stoppedAt = Date.now();
  child.kill("SIGINT");
  const code = await new Promise((resolve) => child.once("exit", resolve));
  const took = Date.now() - stoppedAt;
  assert.equal(code, 0, output);
  assert.ok(took < 2000, `Ctrl-C took ${took} ms`);
  await waitFor(() => group.every((pid) => !alive(pid)), "every child process gone", 2000);
  for (const url of [boardUrl, guardUrl, inboxOrigin]) await assert.rejects(fetch(url), `${url} is closed`);
  await page.close();
  await boardPage.close();
});

/** Every process below `pid` (from /proc). */
function descendants(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found = [];
  const visit = (id) => {
    for (const next of children.get(id) ?? []) {
      found.push(next);
      visit(next);
    }
  };
  visit(pid);
  return found;
}

/** Whether `pid` still runs: a zombie (exited, waiting for a parent that may never reap it) does not. */
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
