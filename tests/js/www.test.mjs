// The approval page in headless Chromium, importing the built package as a browser user would.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startServer } from "../../examples/serve.mjs";
import { startFakeLlm } from "../support/fake-llm-server.mjs";
import { launchChromium } from "./helpers.mjs";

let server;
let browser;
let baseUrl;

before(async () => {
  server = await startServer(0);
  baseUrl = `http://127.0.0.1:${server.address().port}/`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  server?.close();
});

async function openPage() {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(baseUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 15_000 });
  return { page, errors };
}

test("approving the demo change applies it; executing the same confirmation again is already_consumed", async () => {
  const { page, errors } = await openPage();
  assert.equal(await page.textContent("#node-status"), "in_progress");
  await page.click("#approve");
  await page.waitForSelector("#outcome[data-outcome=applied]");
  assert.equal(await page.textContent("#node-status"), "done");
  const result = JSON.parse(await page.textContent("#result"));
  assert.equal(result.outcome, "applied");
  assert.equal(result.consumed, true);
  await page.click("#execute-again");
  await page.waitForSelector("#outcome[data-outcome=rejected]");
  assert.equal(await page.textContent("#phase"), "(phase: already_consumed)");
  assert.equal(await page.locator("#audit li").count(), 2);
  assert.deepEqual(errors, []);
  await page.close();
});

test("declining issues nothing and applies nothing", async () => {
  const { page, errors } = await openPage();
  await page.keyboard.press("n");
  assert.match(await page.textContent("#decision"), /Declined/);
  assert.equal(await page.textContent("#node-status"), "in_progress");
  assert.equal(await page.textContent("#outcome"), "none yet");
  assert.equal(await page.isDisabled("#approve"), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test("y and n typed into any editable field, or pressed with a modifier, approve and apply nothing", async () => {
  const { page, errors } = await openPage();
  const fields = await page.locator("input, textarea, select, [contenteditable]:not([contenteditable='false'])").all();
  assert.ok(fields.length >= 1, "the page has editable fields to type into");
  for (const field of fields) {
    await field.focus();
    await page.keyboard.type("yes y n Y N");
    await page.keyboard.press("y");
    await page.keyboard.press("n");
  }
  await page.evaluate(() => document.activeElement?.blur());
  assert.equal(await page.evaluate(() => document.activeElement === document.body), true);
  for (const chord of ["Control+y", "Alt+y", "Shift+Y", "Meta+y", "Control+n", "Shift+N"]) {
    await page.keyboard.press(chord);
  }
  assert.doesNotMatch(await page.textContent("#decision"), /Declined|Approved/);
  assert.equal(await page.textContent("#node-status"), "in_progress");
  assert.equal(await page.textContent("#outcome"), "none yet");
  assert.equal(await page.isDisabled("#approve"), false);
  assert.equal(await page.locator("#audit li").count(), 0);
  // The shortcut itself still works once focus is outside the fields.
  await page.keyboard.press("n");
  assert.match(await page.textContent("#decision"), /Declined/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the Closer, Watcher and Reflector demos ask the configured endpoint and show their results", async () => {
  const fake = await startFakeLlm(0);
  const llmServer = await startServer(0, { llm: { url: `http://127.0.0.1:${fake.address().port}/ok/v1`, model: "scripted" } });
  try {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${llmServer.address().port}/`);
    await page.waitForSelector("body[data-closer-ready=true]");
    assert.match(await page.textContent("#closer-model"), /scripted/);
    await page.click("#check-completion");
    await page.waitForSelector("#closer-verdict[data-complete=true]");
    assert.equal(await page.textContent("#closer-queries"), "(1 model query)");
    await page.waitForSelector("body[data-watcher-ready=true]");
    assert.equal(await page.textContent("#watcher-persona"), "Martin Fowler");
    await page.click("#review");
    await page.waitForSelector("#watcher-verdict[data-pass=true]");
    assert.match(await page.textContent("#watcher-log"), /^## Persona declaration/);
    await page.waitForSelector("body[data-reflector-ready=true]");
    assert.match(await page.textContent("#playbook-before"), /\[b-0002\] helpful=0 harmful=0 :: One page of results/);
    await page.click("#reflect");
    await page.waitForSelector("#reflection-status[data-done=true]");
    const after = await page.textContent("#playbook-after");
    assert.match(after, /\[b-0002\] helpful=0 harmful=1 :: One page of results/);
    assert.match(after, /## lessons\n\[b-0003\] helpful=0 harmful=0 :: Read every page of a list before summing\./);
    await page.close();
  } finally {
    llmServer.close();
    fake.close();
  }
});

test("the control loop on the page: the judge proposes, the two lines are shown, y applies once, the chat and the log tail show it", async () => {
  const fake = await startFakeLlm(0);
  const llmServer = await startServer(0, { llm: { url: `http://127.0.0.1:${fake.address().port}/ok/v1`, model: "scripted" } });
  try {
    const page = await browser.context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${llmServer.address().port}/`);
    await page.waitForSelector("body[data-loop-ready=true]");
    // Typing y and n into the goal or message field approves nothing.
    await page.click("#loop-start");
    await page.waitForFunction(() => document.getElementById("loop-line-1").textContent !== "");
    // The machine's lines, rendered from the action; the model's words only as its labelled note.
    assert.equal(await page.textContent("#loop-line-1"), "Execute: status_change on T-1: review -> done");
    assert.equal(await page.textContent("#loop-line-2"), "Impact: T-1");
    assert.match(await page.textContent("#loop-note"), /^Agent's note: move T-1 from review to done/);
    for (const field of ["#loop-goal", "#loop-message"]) {
      await page.focus(field);
      await page.keyboard.type("y n yes");
    }
    assert.equal(await page.textContent("#loop-board"), "review");
    await page.fill("#loop-message", "");
    await page.click("#loop-yes");
    await page.waitForSelector("#loop-board[data-applies='1']");
    assert.equal(await page.textContent("#loop-board"), "done");
    await page.waitForFunction(() => /status_change on T-1: review -> done: done/.test(document.getElementById("loop-chat").textContent), null, { timeout: 5_000 })
      .catch(async (error) => { throw new Error(`${error.message}: chat ${await page.textContent("#loop-chat")} mode ${await page.textContent("#loop-mode")} errors ${errors}`); });
    await page.waitForFunction(() => document.getElementById("loop-log").textContent.includes('"impact_scope":"T-1"'));
    assert.match(await page.textContent("#loop-judgements"), /"decision":"act"/);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    llmServer.close();
    fake.close();
  }
});

test("the IndexedDB log store in Chromium keeps whole lines under its limit, the newest last, and reads a 300-line tail", async () => {
  const page = await browser.context.newPage();
  await page.goto(baseUrl);
  await page.waitForSelector("body[data-ready=true]");
  const result = await page.evaluate(async () => {
    const { indexedDbLogStore, executionLogLine } = await import("agent-governor");
    const logs = await indexedDbLogStore({ name: `retention-${Date.now()}`, limitBytes: 40_000 });
    for (let n = 0; n < 600; n += 1) {
      await logs.append("execution", executionLogLine("2026-11-23T10:00:00.000Z", { event_summary: `step ${n}`, cause: "ok", impact_scope: `item ${n}` }));
    }
    const tail = await logs.tail("execution", 300);
    return { size: await logs.size("execution"), lines: tail.split("\n").filter(Boolean), chat: await logs.size("chat") };
  });
  assert.ok(result.size <= 40_000 && result.size > 39_000, `kept ${result.size} bytes`);
  assert.equal(result.lines.length, 300);
  assert.ok(result.lines.every((line) => JSON.parse(line).cause === "ok"), "whole lines only");
  assert.match(result.lines.at(-1), /"item 599"/);
  assert.equal(result.chat, 0);
  await page.close();
});

test("the page server refuses a port already in use with the error, instead of never starting", async () => {
  await assert.rejects(startServer(server.address().port), { code: "EADDRINUSE" });
});
