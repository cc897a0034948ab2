// The approval inbox (www/inbox.html) in headless Chromium, talking through the local server to the edge
// guard service under `wrangler dev`, with the demo task board as the upstream skill.
import assert from "node:assert/strict";
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../../scripts/serve.mjs";
import { startTaskBoard } from "../../edge/task-board.mjs";
import { freePort, launchChromium, repoRoot } from "./helpers.mjs";
import { ADMIN, AGENT, INBOX, nextNode, propose, startGuardService } from "./edge-service-support.mjs";

let board;
let guard;
let server;
let browser;
let inboxUrl;

before(async () => {
  board = await startTaskBoard();
  // `localhost`, not 127.0.0.1: a passkey's relying party id must be the page's host, and the guard accepts
  // assertions only from the origins it is configured with.
  const port = await freePort();
  guard = await startGuardService(board, { vars: { ORIGINS: `http://localhost:${port}`, RP_ID: "localhost" } });
  server = await startServer(port, { guard: { url: guard.url, inboxToken: INBOX, adminToken: ADMIN, rpId: "localhost" } });
  inboxUrl = `http://localhost:${port}/inbox.html`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.close();
  await guard?.dispose();
  await board?.close();
});

async function openInbox() {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(inboxUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  return { page, errors };
}

async function proposal() {
  const node = nextNode();
  board.board.set(node, "todo");
  return propose(guard.client, node, { type: "status_change", from: "todo", to: "in_progress" }, {
    evidence: { closer: { complete: true, checklist: [{ id: "tests", description: "tests pass", completed: true }] }, watcher: { pass: true, issues: [] } },
  });
}

const card = (page, id) => page.locator(`.approval[data-id="${id}"]`);

test("a device key registered on first run approves a live proposal with y on the focused card; the guard applies it once", async () => {
  const { page, errors } = await openInbox();
  await page.fill("#approver-name", "alice");
  await page.click("#register-device");
  await page.waitForFunction(() => document.getElementById("approver-status").textContent.includes("alice"));

  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  const text = await card(page, approval.approval_id).textContent();
  assert.match(text, /todo → in_progress/);
  assert.match(text, /tests pass/);

  // Typing y, n, yes and no into every editable element approves and declines nothing.
  for (const field of await page.locator("input, textarea, select").all()) {
    if (!(await field.isVisible()) || (await field.evaluate((node) => node.tagName === "SELECT"))) continue;
    for (const word of ["y", "n", "yes", "no"]) {
      await field.fill("");
      await field.type(word);
    }
  }
  assert.equal((await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending");

  await card(page, approval.approval_id).focus();
  await page.keyboard.press("y");
  await page.waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`)?.dataset.state === "approved", approval.approval_id, { timeout: 10_000 });
  const decided = (await guard.client.get(`/v1/approvals/${approval.approval_id}`, AGENT)).body;
  assert.equal(decided.state, "approved");
  assert.match(decided.decision.key_id, /^alice-device-/);

  const applied = await guard.client.post("/v1/apply", decided.executor_request, AGENT);
  assert.equal(applied.body.outcome, "applied");
  assert.equal((await guard.client.post("/v1/apply", decided.executor_request, AGENT)).body.rejection.phase, "already_consumed");
  assert.equal(board.appliesFor(approval.approval_id), 1);
  await page.waitForFunction((id) => document.querySelector(`.approval[data-id="${id}"]`)?.dataset.state === "consumed", approval.approval_id, { timeout: 10_000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("decline with a reason is signed by the device key; a modifier held with n declines nothing", async () => {
  const { page, errors } = await openInbox();
  await page.waitForFunction(() => document.getElementById("register").hidden, null, { timeout: 10_000 });
  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  await card(page, approval.approval_id).focus();
  await page.keyboard.press("Control+n");
  await page.keyboard.press("Shift+N");
  assert.equal((await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending");
  await card(page, approval.approval_id).locator("[data-reason]").fill("not this sprint");
  await card(page, approval.approval_id).locator("[data-action=decline]").click();
  await page.waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`)?.dataset.state === "declined", approval.approval_id, { timeout: 10_000 });
  const declined = (await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body;
  assert.equal(declined.decision.reason, "not this sprint");
  assert.equal(board.appliesFor(approval.approval_id), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a passkey through Chromium's virtual authenticator (user verification on) approves; its replayed assertion is refused", async () => {
  const context = browser.context;
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(inboxUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  // A fresh approver on this page: forget the device key the earlier tests registered.
  await page.evaluate(() => new Promise((resolve) => {
    const request = indexedDB.deleteDatabase("agent-governor-inbox");
    request.onsuccess = request.onerror = request.onblocked = () => resolve();
  }));
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.fill("#approver-name", "bob");
  await page.click("#register-passkey");
  await page
    .waitForFunction(() => document.getElementById("approver-status").textContent.includes("bob"), null, { timeout: 15_000 })
    .catch(async (error) => {
      throw new Error(`${error.message}: ${await page.textContent("#approver-status")} ${errors.join("; ")}`);
    });
  const keys = (await guard.client.get("/v1/keys")).body.keys;
  assert.ok(keys.some((key) => key.approver === "bob" && key.type === "webauthn"), JSON.stringify(keys));

  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  await card(page, approval.approval_id).locator("[data-action=approve]").click();
  await page
    .waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`)?.dataset.state === "approved", approval.approval_id, { timeout: 15_000 })
    .catch(async (error) => {
      throw new Error(`${error.message}: ${await page.textContent("#announcer")} ${errors.join("; ")}`);
    });
  const decided = (await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body;
  assert.ok(decided.confirmation.assertion, "approved with a passkey assertion");
  assert.equal(decided.confirmation.signature, null);

  // The same assertion replayed: for this approval again (already decided), and carried over to another
  // approval's exact content (the assertion signed another change).
  const again = await guard.client.post(`/v1/approvals/${approval.approval_id}/decision`, { decision: "y", confirmation: decided.confirmation });
  assert.equal(again.status, 409);
  const other = await proposal();
  const { reason, confirmed_at, ui_action, key_id, assertion } = decided.confirmation;
  const replayed = { ...other.draft, reason, confirmed_at, ui_action, key_id, signature: null, assertion };
  const onOther = await guard.client.post(`/v1/approvals/${other.approval_id}/decision`, { decision: "y", confirmation: replayed });
  assert.equal(onOther.status, 403);
  assert.equal(onOther.body.code, "signature_invalid");
  // Altered after signing (the reason the person gave): refused.
  const altered = await guard.client.post(`/v1/approvals/${other.approval_id}/decision`, { decision: "y", confirmation: { ...replayed, reason: "changed later" } });
  assert.equal(altered.body.code, "signature_invalid");
  assert.equal((await guard.client.get(`/v1/approvals/${other.approval_id}`)).body.state, "pending");

  assert.equal((await guard.client.post("/v1/apply", decided.executor_request, AGENT)).body.outcome, "applied");
  assert.equal(board.appliesFor(approval.approval_id), 1);
  assert.deepEqual(errors, []);
  await page.close();
});

/** Forgets this browser's approver key, then registers a fresh device key as `name`. */
async function registerFreshDeviceKey(page, name) {
  await page.evaluate(() => new Promise((resolve) => {
    const request = indexedDB.deleteDatabase("agent-governor-inbox");
    request.onsuccess = request.onerror = request.onblocked = () => resolve();
  }));
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.fill("#approver-name", name);
  await page.click("#register-device");
  await page.waitForFunction((who) => document.getElementById("approver-status").textContent.includes(who), name, { timeout: 10_000 });
}

test("accessibility: axe-core finds no serious or critical violation (light and dark, en and ja); a keyboard-only approval", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "carol");
  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  for (const colorScheme of ["light", "dark"]) {
    for (const language of ["en", "ja"]) {
      await page.emulateMedia({ colorScheme });
      await page.selectOption("#language", language);
      await page.addScriptTag({ path: join(repoRoot, "node_modules", "axe-core", "axe.min.js") });
      const violations = await page.evaluate(async () => {
        const result = await window.axe.run(document, { resultTypes: ["violations"] });
        return result.violations.filter((violation) => ["serious", "critical"].includes(violation.impact)).map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
      });
      assert.deepEqual(violations, [], `${colorScheme} ${language}`);
    }
  }
  await page.selectOption("#language", "en");
  // Keyboard alone: Tab until the approval card has focus, then y.
  await page.locator("body").focus();
  let reached = false;
  for (let presses = 0; presses < 40 && !reached; presses += 1) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate((id) => document.activeElement?.dataset?.id === id, approval.approval_id);
  }
  assert.ok(reached, "the approval is reachable with Tab");
  await page.keyboard.press("y");
  await page.waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`)?.dataset.state === "approved", approval.approval_id, { timeout: 10_000 });

  // The README's pictures: a phone and a desktop width, with one approval waiting.
  const waiting = await proposal();
  await card(page, waiting.approval_id).waitFor({ timeout: 10_000 });
  await page.emulateMedia({ colorScheme: "light" });
  const directory = process.env.UPDATE_SCREENSHOTS ? join(repoRoot, "docs") : join(repoRoot, "target", "screenshots");
  mkdirSync(directory, { recursive: true });
  for (const [name, width] of [["inbox-phone.png", 390], ["inbox-desktop.png", 1280]]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => {
      document.activeElement?.blur();
      window.scrollTo(0, 0);
    });
    await page.screenshot({ path: join(directory, name) });
    assert.ok(statSync(join(directory, name)).size > 10_000, `${name} has content`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
