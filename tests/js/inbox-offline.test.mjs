// The approval inbox when the edge guard goes away, in headless Chromium: the page says so within 5 seconds
// ("offline since ..."), its elapsed times freeze instead of counting on, and when the guard is back the page is
// live again and shows what changed meanwhile.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { rmSync } from "node:fs";
import { startServer } from "../../examples/serve.mjs";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { freePort, launchChromium } from "./helpers.mjs";
import { ADMIN, AGENT, INBOX, nextNode, propose, startGuardService } from "./edge-service-support.mjs";

let board;
let guard;
let server;
let browser;
let inboxUrl;

before(async () => {
  board = await startTaskBoard();
  const port = await freePort();
  guard = await startGuardService(board, { vars: { ORIGINS: `http://localhost:${port}`, RP_ID: "localhost" } });
  server = await startServer(port, { guard: { url: guard.url, inboxToken: INBOX, adminToken: ADMIN, rpId: "localhost" } });
  inboxUrl = `http://localhost:${port}/inbox.html`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.close();
  await guard?.kill();
  if (guard?.persistTo) rmSync(guard.persistTo, { recursive: true, force: true });
  await board?.close();
});

const connection = (page) => page.locator("#connection").getAttribute("data-state");

test("the guard stops: offline within 5 s, times frozen; back: live again with what changed meanwhile", async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(inboxUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.waitForFunction(() => document.getElementById("connection").dataset.state === "live", null, { timeout: 10_000 });
  // An agent judging: the page counts its elapsed time every second.
  assert.equal((await guard.client.put("/v1/agents/board-agent/status", { state: "judging", since_ms: Date.now() - 5_000 }, AGENT)).status, 200);
  const elapsed = page.locator("[data-testid=presence-elapsed]");
  await elapsed.waitFor({ timeout: 10_000 });
  const before = await elapsed.textContent();
  await new Promise((resolve) => setTimeout(resolve, 2200));
  assert.notEqual(await elapsed.textContent(), before, "live: the elapsed time counts");

  const { port, persistTo } = guard;
  const stoppedAt = Date.now();
  await guard.kill();
  await page.waitForFunction(() => document.getElementById("connection").dataset.state === "offline", null, { timeout: 5_000 });
  const noticedMs = Date.now() - stoppedAt;
  assert.ok(noticedMs <= 5_000, `offline shown after ${noticedMs} ms`);
  assert.match(await page.textContent("#connection"), /^Offline since .+: this page may be out of date, and its times are frozen\.$/);
  // Frozen: the agent's elapsed time stops at the drop instead of counting on.
  const frozen = await elapsed.textContent();
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(await elapsed.textContent(), frozen);

  // Back on the same port with the same state: live again, and a proposal made meanwhile is shown.
  guard = await startGuardService(board, { persistTo, port, vars: { ORIGINS: new URL(inboxUrl).origin, RP_ID: "localhost" } });
  const second = await propose(guard.client, nextNode());
  await page.waitForFunction(() => document.getElementById("connection").dataset.state === "live", null, { timeout: 15_000 });
  await page.locator(`.approval[data-id="${second.approval_id}"]`).waitFor({ timeout: 10_000 });
  assert.equal(await connection(page), "live");
  assert.deepEqual(errors, []);
  await page.close();
});
