// The approval inbox (www/inbox.html) in headless Chromium, talking through the local server to the edge
// guard service under `wrangler dev`, with the demo task board as the upstream skill.
import assert from "node:assert/strict";
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../../examples/serve.mjs";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { axeViolations, freePort, launchChromium, repoRoot } from "./helpers.mjs";
import { ADMIN, AGENT, INBOX, approve, humanAction, nextNode, propose, registerEd25519, startGuardService } from "./edge-service-support.mjs";

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

/** A one-time enrollment code for `name` (as an admin gives one; only the first approver needs none). */
async function invitation(name) {
  const made = await guard.client.post("/v1/enrollments", { approver: name }, ADMIN);
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body.enrollment_code;
}

/** A device key's approval: the first press arms it, the second (a moment later, within a few seconds) approves. */
async function approveWithDeviceKey(page, id) {
  await card(page, id).locator("[data-action=approve]").click();
  await card(page, id).locator("[data-action=approve].confirming").waitFor({ timeout: 5_000 });
  await new Promise((resolve) => setTimeout(resolve, 600));
  await card(page, id).locator("[data-action=approve]").click();
}

test("a device key registered on first run approves a live proposal with y on the focused card; the guard applies it once", async () => {
  const { page, errors } = await openInbox();
  // No platform authenticator in this page: the device key is offered first.
  assert.equal(await page.evaluate(() => document.querySelector("#register .actions button")?.id), "register-device");
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
    if (!(await field.isVisible()) || (await field.evaluate((node) => node.tagName === "SELECT" || node.type === "checkbox"))) continue;
    for (const word of ["y", "n", "yes", "no"]) {
      await field.fill("");
      await field.type(word);
    }
    // Left empty again (a search field keeps filtering the history with what was typed).
    await field.fill("");
  }
  assert.equal((await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending");

  // A double-click on approve is one press: it arms, and approves nothing.
  await card(page, approval.approval_id).locator("[data-action=approve]").dblclick();
  await new Promise((resolve) => setTimeout(resolve, 800));
  assert.equal((await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending", "a double-click approves nothing");
  await new Promise((resolve) => setTimeout(resolve, 4000)); // the armed approve button falls back
  await card(page, approval.approval_id).focus();
  await page.keyboard.press("y");
  // One y on a device key approves nothing: it asks for a second.
  await card(page, approval.approval_id).locator("[data-action=approve].confirming").waitFor({ timeout: 5_000 });
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal((await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending", "a single y approves nothing");
  await page.keyboard.press("y");
  await page.waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`)?.dataset.state === "approved", approval.approval_id, { timeout: 10_000 });
  const decided = (await guard.client.get(`/v1/approvals/${approval.approval_id}`, AGENT)).body;
  assert.equal(decided.state, "approved");
  assert.match(decided.decision.key_id, /^alice\/device-/, "the key id is namespaced by its approver");
  assert.equal(decided.decision.approver, "alice", "the decision is credited to the approver's name");
  assert.match(await card(page, approval.approval_id).textContent(), /Approved by alice/);

  const applied = await guard.client.post("/v1/apply", decided.executor_request, AGENT);
  assert.equal(applied.body.outcome, "applied");
  assert.equal((await guard.client.post("/v1/apply", decided.executor_request, AGENT)).body.rejection.phase, "already_consumed");
  assert.equal(board.appliesFor(approval.approval_id), 1);
  await page.waitForFunction((id) => document.querySelector(`.approval[data-id="${id}"]`)?.dataset.state === "consumed", approval.approval_id, { timeout: 10_000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("the page loads no more WebAssembly than the guard module: signing is plain JavaScript", async () => {
  const page = await browser.context.newPage();
  const loaded = [];
  page.on("response", (response) => loaded.push(response));
  await page.goto(inboxUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  const wasm = [];
  for (const response of loaded) {
    const path = new URL(response.url()).pathname;
    const type = response.headers()["content-type"] ?? "";
    if (path.endsWith(".wasm") || type.startsWith("application/wasm") || path.includes("base64")) {
      wasm.push({ path, bytes: (await response.body()).length });
    }
  }
  const guardModule = statSync(join(repoRoot, "dist", "guard", "wasm", "agent_governor_guard_bg.wasm")).size;
  assert.deepEqual(wasm.map((entry) => entry.path), ["/pkg/guard/wasm/agent_governor_guard_bg.wasm"]);
  assert.ok(wasm[0].bytes <= guardModule, `${wasm[0].bytes} bytes of wasm, the guard module is ${guardModule}`);
  console.log(`[inbox] wasm loaded: ${wasm[0].bytes} bytes (the guard module; the full module is not loaded)`);
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
  await forgetApprover(page);
  // With a platform authenticator, the passkey is offered first (and is what Enter registers).
  assert.equal(await page.evaluate(() => document.querySelector("#register .actions button:not([hidden])")?.id), "register-passkey");
  await page.fill("#approver-name", "bob");
  // Not the first approver of this inbox: bob registers with a code an admin gave him.
  await page.fill("#enrollment-code", await invitation("bob"));
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

  // A genuine assertion for the other approval, its change altered after signing (to -> done): refused; the
  // same assertion unaltered is accepted, so the refusal was the alteration's.
  const genuine = await page.evaluate(async (draft) => {
    const { loadApprover, signApproval } = await import("/inbox/approver-keys.js");
    return signApproval(await loadApprover(), { ...draft, reason: "approved in the inbox", confirmed_at: new Date().toISOString(), ui_action: "inbox_approve" });
  }, other.draft);
  assert.ok(genuine.assertion);
  const changed = { ...genuine, proposed_change: { ...genuine.proposed_change, to: "done" } };
  const alteredChange = await guard.client.post(`/v1/approvals/${other.approval_id}/decision`, { decision: "y", confirmation: changed });
  assert.ok([403, 422].includes(alteredChange.status), JSON.stringify(alteredChange.body));
  assert.equal((await guard.client.get(`/v1/approvals/${other.approval_id}`)).body.state, "pending");
  assert.equal((await guard.client.post(`/v1/approvals/${other.approval_id}/decision`, { decision: "y", confirmation: genuine })).status, 200);

  assert.equal((await guard.client.post("/v1/apply", decided.executor_request, AGENT)).body.outcome, "applied");
  assert.equal(board.appliesFor(approval.approval_id), 1);
  assert.deepEqual(errors, []);
  await page.close();
});

/** Forgets this browser's approver key (the earlier tests registered one) and loads the page again. */
async function forgetApprover(page) {
  await page.evaluate(() => new Promise((resolve) => {
    const request = indexedDB.deleteDatabase("agent-governor-inbox");
    request.onsuccess = request.onerror = request.onblocked = () => resolve();
  }));
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
}

/** Registers this page's device key as `name` with enrollment code `code`. */
async function registerDeviceKeyWith(page, name, code) {
  await page.fill("#approver-name", name);
  await page.fill("#enrollment-code", code);
  await page.click("#register-device");
  await page.waitForFunction((who) => document.getElementById("approver-status").textContent.includes(who), name, { timeout: 10_000 });
}

/** Forgets this browser's approver key, then registers a fresh device key as `name`, invited. */
async function registerFreshDeviceKey(page, name) {
  await forgetApprover(page);
  await registerDeviceKeyWith(page, name, await invitation(name));
}

test("accessibility: axe-core finds no serious or critical violation (light and dark, en and ja); a keyboard-only approval", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "carol");
  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  assert.deepEqual(await axeViolations(page), []);
  // Keyboard alone: Tab until the approval card has focus, then y.
  await page.locator("body").focus();
  let reached = false;
  for (let presses = 0; presses < 40 && !reached; presses += 1) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate((id) => document.activeElement?.dataset?.id === id, approval.approval_id);
  }
  assert.ok(reached, "the approval is reachable with Tab");
  await page.keyboard.press("y");
  await page.keyboard.press("y");
  await page.waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`)?.dataset.state === "approved", approval.approval_id, { timeout: 10_000 });

  // Pictures at a phone and a desktop width, with one approval waiting (the README's are taken with an agent
  // running: inbox-agent.test.mjs).
  const waiting = await proposal();
  await card(page, waiting.approval_id).waitFor({ timeout: 10_000 });
  await page.emulateMedia({ colorScheme: "light" });
  const directory = join(repoRoot, "target", "screenshots");
  mkdirSync(directory, { recursive: true });
  for (const [name, width] of [["inbox-keyboard-phone.png", 390], ["inbox-keyboard-desktop.png", 1280]]) {
    await page.setViewportSize({ width, height: 900 });
    await page.evaluate(() => {
      document.activeElement?.blur();
      window.scrollTo(0, 0);
    });
    await page.screenshot({ path: join(directory, name) });
    assert.equal(await page.locator(`#pending .approval[data-id="${waiting.approval_id}"]`).count(), 1, "the waiting approval is in the picture");
    assert.ok(statSync(join(directory, name)).size > 10_000, `${name} has content`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

const historyState = (page, id, wanted) =>
  page.waitForFunction(([approvalId, state]) => document.querySelector(`#history .approval[data-id="${approvalId}"]`)?.dataset.state === state, [id, wanted], { timeout: 10_000 });

/**
 * A fresh inbox page with a new device key registered as `name`, and a new proposal it approved with a click:
 * `{ page, errors, approval, decided }`, `decided` being the guard's view of it once approved.
 */
async function approvedByFreshApprover(name) {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, name);
  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  await approveWithDeviceKey(page, approval.approval_id);
  await historyState(page, approval.approval_id, "approved");
  const decided = (await guard.client.get(`/v1/approvals/${approval.approval_id}`, AGENT)).body;
  return { page, errors, approval, decided };
}

test("reconfirm: the node moved on, the person picks a transition, signs the new approval, and the inbox has it applied once", async () => {
  const { page, errors, approval, decided } = await approvedByFreshApprover("dave");
  board.board.set(approval.node_id, "in_review"); // someone else moved it meanwhile
  assert.equal((await guard.client.post("/v1/apply", decided.executor_request, AGENT)).body.outcome, "reconfirm_required");
  // The transitions to pick are a decision waiting for the person: under "Waiting for you", not in History.
  await page.waitForFunction((id) => document.querySelector(`#pending .approval[data-id="${id}"]`)?.dataset.state === "invalidated", approval.approval_id, { timeout: 10_000 });
  assert.equal(await page.locator("#pending-empty").isHidden(), true, "the page does not say nothing is waiting");
  const invalidated = card(page, approval.approval_id);
  assert.match(await invalidated.textContent(), /Reconfirm: the node moved on before the Apply[\s\S]*It is in_review now\. Pick/);
  // The skill's transitions from in_review, as buttons; none is chosen for the person.
  const offered = await invalidated.locator("[data-action^=reconfirm-]").evaluateAll((buttons) => buttons.map((button) => button.dataset.action));
  assert.deepEqual(offered.sort(), ["reconfirm-done", "reconfirm-in_progress"]);
  assert.equal(board.board.get(approval.node_id), "in_review");

  await invalidated.locator("[data-action=reconfirm-done]").click();
  const picked = await page.waitForFunction(
    (id) => [...document.querySelectorAll("#pending .approval")].find((node) => node.textContent.includes("in_review → done") && node.dataset.id !== id)?.dataset.id,
    approval.approval_id,
    { timeout: 10_000 },
  );
  const pickedId = await picked.jsonValue();
  // Once picked, the invalidated approval is history, with how it ended.
  await historyState(page, approval.approval_id, "invalidated");
  assert.match(await card(page, approval.approval_id).textContent(), /moved on to in_review\./);
  assert.equal((await guard.client.get(`/v1/approvals/${pickedId}`)).body.reconfirms, approval.approval_id);
  assert.equal(board.appliesFor(pickedId), 0, "a pick applies nothing before it is signed");
  // A person's pick is not edited (another pick is made on the card it replaces).
  assert.equal((await guard.client.post(`/v1/approvals/${pickedId}/edit`, { to: "in_progress" }, INBOX)).body.code, "not_editable");

  // The inbox's own Apply after the signature is lost on the way (the page's request aborted): the approval
  // stays approved, nothing is applied, and the person asks again with the Apply button.
  await page.route("**/v1/apply", (route) => route.abort());
  await approveWithDeviceKey(page, pickedId);
  await historyState(page, pickedId, "approved");
  await page.waitForFunction(() => document.getElementById("announcer").textContent.startsWith("Not done"), null, { timeout: 10_000 });
  assert.equal(board.appliesFor(pickedId), 0);
  await page.unroute("**/v1/apply");
  await card(page, pickedId).locator("[data-action=apply]").click();
  await historyState(page, pickedId, "consumed");
  assert.equal(board.board.get(approval.node_id), "done");
  assert.equal(board.appliesFor(pickedId), 1);
  assert.equal(board.appliesFor(approval.approval_id), 0);
  assert.match(await card(page, pickedId).locator("[data-testid=outcome]").textContent(), /Applied once: in_review → done/);
  await page.waitForFunction((id) => document.querySelector(`.approval[data-id="${id}"] details`)?.textContent.includes("The guard's Apply: applied"), pickedId, { timeout: 10_000 });
  assert.match(await invalidated.textContent(), /You picked → done: that approval is consumed/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("edit, then approve: the person picks another move, signs the edited change, and exactly it is applied; the audit has both", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "edith");
  const node = nextNode();
  board.board.set(node, "in_progress");
  const original = await propose(guard.client, node, { type: "status_change", from: "in_progress", to: "in_review" }, { agent_id: "board-agent" });
  await card(page, original.approval_id).waitFor({ timeout: 10_000 });
  // The edit is offered once the card knows the node is where the proposal says.
  await card(page, original.approval_id).locator("[data-action=edit]").click();
  const editor = card(page, original.approval_id).locator("[data-testid=edit]");
  await editor.waitFor({ timeout: 10_000 });
  const offered = await editor.locator("[data-edit-to] option").evaluateAll((options) => options.map((option) => option.value));
  assert.deepEqual(offered, ["todo"], "the other moves the node allows, never the proposed one");
  // Typing y or n in the editor decides nothing.
  await editor.locator("[data-edit-to]").focus();
  await page.keyboard.press("y");
  await page.keyboard.press("n");
  await editor.locator("[data-action=edit-apply]").click();
  const editedId = await (
    await page.waitForFunction(
      (id) => [...document.querySelectorAll("#pending .approval")].find((node) => node.dataset.id !== id && node.textContent.includes("in_progress → todo"))?.dataset.id,
      original.approval_id,
      { timeout: 10_000 },
    )
  ).jsonValue();
  const edit = (await guard.client.get(`/v1/approvals/${editedId}`, AGENT)).body;
  assert.equal(edit.edits, original.approval_id);
  assert.deepEqual(edit.edited_from, { type: "status_change", from: "in_progress", to: "in_review" });
  assert.match(edit.request.what, /todo/, "the machine rendered the edit's lines from the edited change");
  assert.equal(edit.evidence, null, "the reviewers read the agent's change, not this one");
  assert.match(await card(page, editedId).locator("[data-testid=edited-from]").textContent(), /in_progress → in_review/);
  assert.equal((await guard.client.get(`/v1/approvals/${original.approval_id}`, AGENT)).body.state, "pending", "an edit not yet approved settles nothing");

  // Signing the edit settles the original as edited; exactly the edited change is applied, once.
  await approveWithDeviceKey(page, editedId);
  await historyState(page, editedId, "approved");
  await historyState(page, original.approval_id, "edited");
  const settled = (await guard.client.get(`/v1/approvals/${original.approval_id}`, AGENT)).body;
  assert.equal(settled.edited_as, editedId);
  assert.match(await card(page, original.approval_id).textContent(), /Edited and approved by edith/);
  const approvedEdit = (await guard.client.get(`/v1/approvals/${editedId}`, AGENT)).body;
  assert.equal(approvedEdit.confirmation.proposed_change.to, "todo", "the signature binds the edited change");
  const applied = await guard.client.post("/v1/apply", approvedEdit.executor_request, AGENT);
  assert.equal(applied.body.outcome, "applied");
  assert.equal(board.board.get(node), "todo");
  assert.equal(board.appliesFor(original.approval_id), 0);
  // The original can be neither approved nor edited again; a second edit draft cannot be approved either.
  const late = await registerEd25519(guard.client, "late-approver", "desk");
  assert.equal((await approve(guard.client, original, late)).status, 409);
  assert.equal((await guard.client.post(`/v1/approvals/${original.approval_id}/edit`, { to: "todo" }, INBOX)).status, 409);
  const audit = (await guard.client.get(`/v1/audit?approval_id=${encodeURIComponent(original.approval_id)}`, INBOX)).body.records.map((record) => record.event);
  assert.ok(audit.includes("proposed") && audit.includes("edit_drafted") && audit.includes("edited"), audit.join(", "));
  const editAudit = (await guard.client.get(`/v1/audit?approval_id=${encodeURIComponent(editedId)}`, INBOX)).body.records.map((record) => record.event);
  assert.ok(editAudit.includes("edit_proposed") && editAudit.includes("approved"), editAudit.join(", "));
  // Who decided and when, on each decided card.
  assert.match(await card(page, editedId).locator("[data-testid=decided-by]").textContent(), /^Decided by edith at \d.+ · key device-/);
  // The trails in words: who did what, by name.
  await page.waitForFunction((id) => /edith approved the edit instead/.test(document.querySelector(`.approval[data-id="${id}"] details`)?.textContent ?? ""), original.approval_id, { timeout: 10_000 });
  const trail = await card(page, original.approval_id).locator("details").textContent();
  assert.match(trail, /The agent board-agent proposed in_progress → in_review on task-/);
  const editTrail = await card(page, editedId).locator("details").textContent();
  assert.match(editTrail, /A person edited the agent's in_progress → in_review to in_progress → todo/);
  assert.match(editTrail, /edith approved, signing with the key /);
  assert.deepEqual(errors, []);
  await page.close();
});

test("an edit is refused when it is no edit, not a move the node allows, of an edit, or when the original was decided first", async () => {
  const node = nextNode();
  board.board.set(node, "in_progress");
  const original = await propose(guard.client, node, { type: "status_change", from: "in_progress", to: "in_review" });
  const edit = (body) => guard.client.post(`/v1/approvals/${original.approval_id}/edit`, body, INBOX);
  assert.equal((await edit({ to: "in_review" })).body.code, "unchanged");
  assert.equal((await edit({ to: "done" })).body.code, "not_a_valid_transition");
  assert.equal((await edit({ to: "todo", extra: 1 })).status, 400);
  assert.equal((await edit({ to: 7 })).status, 400);
  assert.equal((await guard.client.post(`/v1/approvals/${original.approval_id}/edit`, { to: "todo" }, AGENT)).status, 403, "an agent never edits");
  const drafted = await edit({ to: "todo" });
  assert.equal(drafted.status, 201);
  assert.equal((await edit({ to: "todo" })).body.code, "already_edited", "one edit waiting at a time");
  assert.equal((await guard.client.post(`/v1/approvals/${drafted.body.approval_id}/edit`, { to: "in_review" }, INBOX)).body.code, "already_an_edit");
  // The original approved first: its edit can no longer be approved (never both).
  const key = await registerEd25519(guard.client, "olga", "desk");
  assert.equal((await approve(guard.client, original, key)).status, 200);
  const late = await approve(guard.client, drafted.body, key);
  assert.equal(late.status, 409, JSON.stringify(late.body));
  assert.equal((await guard.client.get(`/v1/approvals/${drafted.body.approval_id}`, AGENT)).body.state, "pending");
  // The node moved on: an edit is refused (decline instead; the agent proposes again).
  const moved = await propose(guard.client, nextNode(), { type: "status_change", from: "in_progress", to: "in_review" });
  board.board.set(moved.node_id, "done");
  assert.equal((await guard.client.post(`/v1/approvals/${moved.approval_id}/edit`, { to: "todo" }, INBOX)).body.code, "node_moved");
});

test("a new approval takes the focus when the person is on no waiting card, never from a field", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "gwen");
  await page.evaluate(() => document.activeElement?.blur());
  const first = await proposal();
  await card(page, first.approval_id).waitFor({ timeout: 10_000 });
  await page.waitForFunction((id) => document.activeElement?.dataset?.id === id, first.approval_id, { timeout: 5_000 });
  // y works on it at once.
  await page.keyboard.press("y");
  await card(page, first.approval_id).locator("[data-action=approve].confirming").waitFor({ timeout: 5_000 });
  // Typing in a field: a new card does not take the focus.
  await card(page, first.approval_id).locator("[data-reason]").focus();
  const second = await proposal();
  await card(page, second.approval_id).waitFor({ timeout: 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(await page.evaluate(() => document.activeElement?.hasAttribute("data-reason")), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test("history: a search over what the cards say, a state filter, the days proposed on, and older pages on request", async () => {
  const { page, errors } = await openInbox();
  const key = await registerEd25519(guard.client, "ivan", "desk");
  const declinedOne = await proposal();
  const approvedOne = await proposal();
  const view = (await guard.client.get(`/v1/approvals/${declinedOne.approval_id}`, AGENT)).body;
  const declined = await guard.client.post(`/v1/approvals/${declinedOne.approval_id}/decision`, {
    decision: "n",
    action: await humanAction("decline", declinedOne.approval_id, key, "zebra crossing ahead", view.version),
  });
  assert.equal(declined.status, 200, JSON.stringify(declined.body));
  assert.equal((await approve(guard.client, approvedOne, key)).status, 200);
  await page.waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`), approvedOne.approval_id, { timeout: 10_000 });
  const shownIds = () => page.locator("#history .approval").evaluateAll((cards) => cards.map((card) => card.dataset.id));

  // Every word of the search must appear: the person's reason finds the one card.
  await page.fill("#history-search", "ZEBRA crossing");
  assert.deepEqual(await shownIds(), [declinedOne.approval_id]);
  // A node id finds its card; words that match nothing say so.
  await page.fill("#history-search", approvedOne.node_id);
  assert.deepEqual(await shownIds(), [approvedOne.approval_id]);
  await page.fill("#history-search", "no-such-words-anywhere");
  assert.deepEqual(await shownIds(), []);
  assert.equal(await page.textContent("#history-empty"), "Nothing in the history matches.");
  // The state filter alone: only declined cards.
  await page.fill("#history-search", "");
  await page.selectOption("#history-state", "declined");
  const states = await page.locator("#history .approval").evaluateAll((cards) => cards.map((card) => card.dataset.state));
  assert.ok(states.length > 0 && states.every((state) => state === "declined"), states.join(", "));
  await page.selectOption("#history-state", "");
  // The days it was proposed on, in the reader's calendar: today shows both, tomorrow onwards and up to
  // yesterday show neither, a cleared day filters nothing.
  const today = await page.evaluate(() => {
    const now = new Date();
    return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, "0")}-${String(now.getDate()).padStart(2, "0")}`;
  });
  const dayAfter = await page.evaluate((day) => new Date(new Date(`${day}T12:00`).getTime() + 86_400_000).toLocaleDateString("sv"), today);
  const dayBefore = await page.evaluate((day) => new Date(new Date(`${day}T12:00`).getTime() - 86_400_000).toLocaleDateString("sv"), today);
  await page.fill("#history-from", today);
  await page.fill("#history-to", today);
  assert.ok((await shownIds()).includes(declinedOne.approval_id) && (await shownIds()).includes(approvedOne.approval_id));
  await page.fill("#history-to", "");
  await page.fill("#history-from", dayAfter);
  assert.deepEqual(await shownIds(), []);
  await page.fill("#history-from", "");
  await page.fill("#history-to", dayBefore);
  assert.ok(!(await shownIds()).includes(approvedOne.approval_id), "nothing proposed today is on or before yesterday");
  await page.fill("#history-to", "");
  assert.ok((await shownIds()).includes(approvedOne.approval_id));

  // Older pages: the guard lists approvals created before a time; the page asks for them on request.
  const newest = (await guard.client.get("/v1/approvals?limit=1", INBOX)).body.approvals[0];
  const older = (await guard.client.get(`/v1/approvals?limit=100&before=${newest.created_at_ms}`, INBOX)).body.approvals;
  assert.ok(older.every((approval) => approval.created_at_ms < newest.created_at_ms));
  for (const bad of ["soon", "-1", "1e3", "99999999999999999"]) {
    assert.equal((await guard.client.get(`/v1/approvals?before=${bad}`, INBOX)).status, 400, bad);
  }
  await page.click("#history-older");
  await page.waitForFunction(() => /older approvals read/.test(document.getElementById("announcer").textContent), null, { timeout: 10_000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("cancel an unused approval: the agent's Apply is refused and nothing changes", async () => {
  const { page, errors, approval, decided } = await approvedByFreshApprover("erin");
  await card(page, approval.approval_id).locator("[data-action=cancel]").click();
  await historyState(page, approval.approval_id, "cancelled");
  const refused = await guard.client.post("/v1/apply", decided.executor_request, AGENT);
  assert.equal(refused.body.outcome, "rejected");
  assert.equal(board.appliesFor(approval.approval_id), 0);
  assert.equal(board.board.get(approval.node_id), "todo");
  assert.match(await card(page, approval.approval_id).locator("[data-testid=outcome]").textContent(), /Cancelled/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("reconcile: an Apply whose outcome is unknown stays in_flight until the person says what happened", async () => {
  const { page, errors, approval, decided } = await approvedByFreshApprover("frank");
  // The board changes the node, then the connection fails before it answers: the guard cannot know.
  board.hold = (_request, { drop }) => drop();
  let unknown;
  try {
    unknown = await guard.client.post("/v1/apply", decided.executor_request, AGENT);
  } finally {
    board.hold = null;
  }
  assert.notEqual(unknown.body.outcome, "applied", JSON.stringify(unknown.body));
  assert.equal((await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body.state, "in_flight", JSON.stringify(unknown.body));
  await historyState(page, approval.approval_id, "in_flight");
  assert.equal((await guard.client.post("/v1/apply", decided.executor_request, AGENT)).body.rejection.phase, "in_flight", "never retried");
  assert.match(await card(page, approval.approval_id).textContent(), /Apply started at/);
  await card(page, approval.approval_id).locator("[data-action=reconcile_applied]").click();
  await historyState(page, approval.approval_id, "consumed");
  assert.equal(board.appliesFor(approval.approval_id), 1);
  const trail = (await guard.client.get(`/v1/audit?approval_id=${approval.approval_id}`, ADMIN)).body.records.map((record) => record.event);
  assert.equal(trail[0], "reconciled");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a change that already ran by another approval says so on the new card: when, which approval, its receipt", async () => {
  const { page, errors } = await openInbox();
  const key = await registerEd25519(guard.client, "olga", "olga-1");
  const first = await proposal();
  const decided = await approve(guard.client, first, key);
  assert.equal((await guard.client.post("/v1/apply", decided.body.executor_request, AGENT)).body.outcome, "applied");
  // The node is moved back, and the agent proposes the very same change again: a new approval, a new action.
  board.board.set(first.node_id, "todo");
  const again = await propose(guard.client, first.node_id);
  const shown = card(page, again.approval_id).locator("[data-testid=ran-before]");
  await shown.waitFor({ timeout: 10_000 });
  const text = await shown.textContent();
  assert.match(text, new RegExp(`already ran at .*approval ${first.approval_id}.*receipt #\\d+.*does it again`));
  assert.equal(await card(page, first.approval_id).locator("[data-testid=ran-before]").count(), 0, "only a pending card says it");
  assert.deepEqual(errors, []);
  await page.close();
});

test("freshness: a pending card shows the node's state now, and warns when it changed since the proposal", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "erin");
  const approval = await proposal();
  const now = card(page, approval.approval_id).locator("[data-testid=now]");
  await now.waitFor({ timeout: 10_000 });
  assert.match(await now.textContent(), /todo \(as proposed\)/);
  assert.equal(await card(page, approval.approval_id).locator("[data-testid=warnings]").count(), 0, "no warning while the node is where the proposal starts");
  board.board.set(approval.node_id, "in_review"); // someone else moved it
  await card(page, approval.approval_id).locator("[data-testid=warnings]").waitFor({ timeout: 15_000 });
  assert.match(await card(page, approval.approval_id).locator("[data-testid=warnings]").textContent(), /Changed since proposed: the node is in_review now, not todo/);
  assert.match(await now.textContent(), /in_review \(changed since proposed\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("keys: j and k move between approvals, the focus moves on after a decision, and a failing review is a warning at the top", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "frank");
  const first = await proposal();
  const second = await propose(guard.client, (() => {
    const node = nextNode();
    board.board.set(node, "todo");
    return node;
  })(), { type: "status_change", from: "todo", to: "in_progress" }, {
    evidence: {
      closer: { complete: false, checklist: [1, 2, 3].map(() => ({ id: "same", description: "the same line", completed: false })) },
      watcher: { pass: false, issues: ["CRITICAL: another task"] },
    },
  });
  await card(page, second.approval_id).waitFor({ timeout: 10_000 });
  await card(page, first.approval_id).waitFor({ timeout: 10_000 });
  const warned = card(page, second.approval_id);
  assert.match(await warned.locator("[data-testid=warnings]").textContent(), /The Closer does not find the task complete[\s\S]*The Watcher's review did not pass/);
  assert.match(await warned.locator("[data-testid=closer]").textContent(), /✗ the same line \(×3\)/, "repeated checklist lines are folded");
  assert.equal(await warned.locator("[data-testid=closer] li").count(), 1);
  // Newest first: the second proposal is the first card.
  await warned.focus();
  await page.keyboard.press("j");
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.id), first.approval_id);
  await page.keyboard.press("k");
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.id), second.approval_id);
  // Approving the focused one moves the focus to the next approval waiting.
  await page.keyboard.press("y");
  await page.keyboard.press("y");
  await historyState(page, second.approval_id, "approved");
  await page.waitForFunction((id) => document.activeElement?.dataset.id === id, first.approval_id, { timeout: 10_000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("layout: 400-character tokens in every text field never widen the page, from 320 to 1920 px", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "gwen");
  const token = (letter) => letter.repeat(400);
  // Each field at 400 characters or the most the guard accepts for it (node ids 256, the note's lines 300).
  const node = `${nextNode()}-${"n".repeat(230)}`.slice(0, 256);
  board.board.set(node, "todo");
  const long = await propose(guard.client, node, { type: "status_change", from: "todo", to: token("t") }, {
    intent: `${token("i")} \u202egnp.exe`,
    reason: token("r"),
    summary: "s".repeat(300),
    impact_scope: "m".repeat(300),
    evidence: {
      closer: { complete: false, summary: token("c"), checklist: [{ id: token("d"), description: token("e"), completed: false }] },
      watcher: { pass: false, issues: [token("w")], persona: token("p") },
    },
  });
  await card(page, long.approval_id).waitFor({ timeout: 10_000 });
  assert.match(await card(page, long.approval_id).textContent(), /<U\+202E>gnp\.exe/, "a bidi control in the agent's words is shown, not obeyed");
  // A declined one with a long reason lands in History.
  const declinedNode = nextNode();
  board.board.set(declinedNode, "todo");
  const declined = await propose(guard.client, declinedNode, { type: "status_change", from: "todo", to: "in_progress" }, { intent: token("x") });
  await card(page, declined.approval_id).waitFor({ timeout: 10_000 });
  await card(page, declined.approval_id).locator("[data-reason]").fill(token("n"));
  await card(page, declined.approval_id).locator("[data-reason]").press("Enter");
  await historyState(page, declined.approval_id, "declined");
  for (const width of [320, 390, 1280, 1920]) {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(overflow.scroll <= overflow.client, `${width} px: the page is ${overflow.scroll} px wide in a ${overflow.client} px window`);
    const widest = await page.evaluate(() => Math.max(...[...document.querySelectorAll(".approval")].map((node) => node.getBoundingClientRect().right)));
    assert.ok(widest <= width, `${width} px: a card reaches ${widest} px`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("a touch screen at 390x844: every control at least 44 px high, and no keyboard hints", async () => {
  const { page, errors } = await openInbox();
  await page.setViewportSize({ width: 390, height: 844 });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setTouchEmulationEnabled", { enabled: true, maxTouchPoints: 5 });
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  assert.equal(await page.evaluate(() => matchMedia("(pointer: coarse)").matches), true, "the page reads a touch screen");
  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  assert.equal(await page.locator("#keys-help").isVisible(), false, "no keyboard hints on touch");
  // The next decision is on the first screen: the first card waiting, its two lines and its approve button.
  await page.evaluate(() => window.scrollTo(0, 0));
  const first = await page.locator("#pending .approval").first().locator("[data-action=approve]").boundingBox();
  assert.ok(first && first.y + first.height <= 844, `the approve button ends at ${first && first.y + first.height} px`);
  const small = await page.evaluate(() =>
    [...document.querySelectorAll("button, select, input")]
      .filter((node) => node.offsetParent !== null && !node.closest("[hidden], .visually-hidden"))
      .map((node) => ({ what: node.id || node.dataset.action || node.tagName, height: node.getBoundingClientRect().height }))
      .filter(({ height }) => height < 44),
  );
  assert.deepEqual(small, []);
  await cdp.send("Emulation.setTouchEmulationEnabled", { enabled: false });
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(errors, []);
  await page.close();
});

test("Japanese: every label, state, outcome and date of the page in Japanese; the agent's own words stay as written", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "hana");
  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  const done = await proposal();
  await card(page, done.approval_id).waitFor({ timeout: 10_000 });
  await card(page, done.approval_id).locator("[data-reason]").fill("理由");
  await card(page, done.approval_id).locator("[data-reason]").press("Enter");
  await historyState(page, done.approval_id, "declined");
  await page.selectOption("#language", "ja");
  await page.waitForFunction(() => document.documentElement.lang === "ja");
  await card(page, approval.approval_id).locator("[data-testid=now]").waitFor({ timeout: 10_000 });
  // The page's own words: everything but the agent's and people's text, ids, the board's identifiers (node
  // ids and statuses, which the two lines quote), code, and product names.
  const identifiers = new Set([
    ...(await guard.client.get("/v1/approvals?limit=500")).body.approvals.flatMap((shown) => [shown.node_id, shown.proposed_change?.from, shown.proposed_change?.to]),
    ...["todo", "in_progress", "in_review", "done"],
  ]);
  const english = await page.evaluate((boardIdentifiers) => {
    const known = new Set(boardIdentifiers);
    // Product and component names, keys, and the approvers' own names are not translated.
    const allowed = /^(agent-governor|Closer|Watcher|Apply|Preview|Webhook|English|Enter|alice|bob|carol|dave|erin|frank|gwen|hana|jay|edith|olga|ivan)$/;
    const skip = (node) => node.parentElement?.closest(".agent-text, code, .agent-note, #commands, option[value=en]");
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (skip(node) || node.parentElement?.closest("[hidden]")) continue;
      for (const word of node.textContent.match(/[A-Za-z][A-Za-z0-9_'-]{2,}/g) ?? []) {
        // Node ids, statuses and change types are the board's own identifiers.
        if (!allowed.test(word) && !known.has(word) && word !== "status_change") found.push(`${word} in "${node.textContent.trim().slice(0, 60)}"`);
      }
    }
    return found;
  }, [...identifiers].filter((value) => typeof value === "string"));
  assert.deepEqual(english, [], "no English chrome in Japanese");
  assert.match(await card(page, done.approval_id).textContent(), /hana が却下: 理由/);
  // Dates in the Japanese format (year/month/day).
  await card(page, done.approval_id).locator("details summary").click();
  assert.match(await card(page, done.approval_id).locator("details").textContent(), /\d{4}\/\d{1,2}\/\d{1,2}/);
  assert.match(await page.title(), /^\(\d+\) 承認受信箱 · agent-governor$/, "the pending count in the tab title");
  const directory = process.env.UPDATE_SCREENSHOTS ? join(repoRoot, "docs") : join(repoRoot, "target", "screenshots");
  mkdirSync(directory, { recursive: true });
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(() => {
    document.activeElement?.blur();
    window.scrollTo(0, 0);
  });
  await page.screenshot({ path: join(directory, "inbox-japanese.png") });
  assert.ok(statSync(join(directory, "inbox-japanese.png")).size > 10_000);
  await page.selectOption("#language", "en");
  assert.deepEqual(errors, []);
  await page.close();
});

test("enrollment: only the first approver registers without a code; an admin invites a person from the inbox with a signed invitation, and the audit says who invited whom", async () => {
  // Someone on this machine without a code, after the first approver: refused, with what to do.
  await registerEd25519(guard.client, "ruth", "desk");
  const asked = await fetch(inboxUrl.replace("/inbox.html", "/inbox/enrollment"), { method: "POST", headers: { "content-type": "application/json", origin: new URL(inboxUrl).origin }, body: JSON.stringify({ approver: "mallory" }) });
  assert.equal(asked.status, 403);
  assert.match((await asked.json()).message, /ask an admin to invite you/);
  // An admin (with the admin role) invites from the inbox.
  const { page, errors } = await openInbox();
  const adminCode = await guard.client.post("/v1/enrollments", { approver: "nora", roles: ["admin"] }, ADMIN);
  await forgetApprover(page);
  await registerDeviceKeyWith(page, "nora", adminCode.body.enrollment_code);
  await page.locator("#invite-card").waitFor({ state: "visible", timeout: 10_000 });
  await page.fill("#invite-name", "otto");
  await page.click("#invite-send");
  const code = page.locator("[data-testid=invite-code]");
  await code.waitFor({ timeout: 10_000 });
  assert.match(await page.textContent("#invite-code"), /Code for otto, valid until/);
  const ottoCode = await code.textContent();
  // The invitation is a signed action: replayed, or altered to another person or to admin, it makes nothing.
  const signed = (await guard.client.get("/v1/audit?limit=20")).body.records.find((record) => record.event === "enrollment_issued" && record.detail.approver === "otto");
  assert.equal(signed.detail.by, "nora");
  assert.equal((await guard.client.post("/v1/enrollments", { approver: "otto" }, INBOX)).status, 403, "the inbox token alone invites nobody");
  // A person who is not an admin cannot invite.
  const plain = await registerEd25519(guard.client, "pia", "desk");
  const version = (await guard.client.get("/v1/enrollments")).body.version;
  const byPia = await guard.client.post("/v1/enrollments", { approver: "quinn", roles: [], action: await humanAction("enroll", "enrollments", plain, JSON.stringify({ approver: "quinn", roles: [] }), version) }, INBOX);
  assert.equal(byPia.status, 403);
  // Otto registers with the code; the audit says nora invited him.
  const ottoPage = (await openInbox()).page;
  await forgetApprover(ottoPage);
  await registerDeviceKeyWith(ottoPage, "otto", ottoCode);
  // The admin's page reads the audit again (as it does when it loads).
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.waitForFunction(() => /otto registered the key otto\/device-[0-9a-f]+, invited by nora/.test(document.getElementById("audit").textContent), null, { timeout: 10_000 }).catch(async (error) => {
    throw new Error(`${error.message}: ${(await page.textContent("#audit")).slice(0, 600)}`);
  });
  assert.match(await page.textContent("#audit"), /nora invited otto/);
  assert.equal(await ottoPage.locator("#invite-card").isVisible(), false, "otto is no admin");
  await ottoPage.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test("two-person rule: the card says how many people have signed, of how many; one who signed waits for another", async () => {
  assert.equal((await guard.client.put("/v1/approver-rules", { required_approvers: { status_change: 2 } }, ADMIN)).status, 200);
  const { page, errors } = await openInbox();
  try {
    await registerFreshDeviceKey(page, "tess");
    const approval = await proposal();
    await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
    assert.match(await card(page, approval.approval_id).locator("[data-testid=approvals-given]").textContent(), /^0 of 2 approvals/);
    await approveWithDeviceKey(page, approval.approval_id);
    await page.waitForFunction((id) => /^1 of 2 approvals.*tess/.test(document.querySelector(`#pending .approval[data-id="${id}"] [data-testid=approvals-given]`)?.textContent ?? ""), approval.approval_id, { timeout: 10_000 });
    assert.match(await card(page, approval.approval_id).locator("[data-testid=signed-already]").textContent(), /another person must approve it too/);
    assert.equal(await card(page, approval.approval_id).locator("[data-action=approve]").count(), 0, "no second y from the same person");
    assert.equal((await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending");
    assert.deepEqual(errors, []);
  } finally {
    await guard.client.put("/v1/approver-rules", { required_approvers: {} }, ADMIN);
    await page.close();
  }
});

test("key manager: this device's key and the approver's other keys; a revoke takes two presses and is signed; revoking this device's key forgets it here", async () => {
  const { page, errors } = await openInbox();
  await registerFreshDeviceKey(page, "jay");
  await page.locator("#keys-summary").waitFor({ timeout: 10_000 });
  assert.equal(await page.textContent("#keys-summary"), "Your keys (1)");
  await page.click("#keys-summary");
  await page.locator("#keys li").first().waitFor({ timeout: 10_000 });
  assert.match(await page.textContent("#keys"), /jay\/device-[\s\S]*this device/);
  // A second key of the same approver (another device), then the page lists both.
  const other = await registerEd25519(guard.client, "jay", "phone");
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.waitForFunction(() => document.querySelectorAll("#keys li").length === 2, null, { timeout: 10_000 });
  await page.click("#keys-summary");
  const phone = page.locator(`#keys li[data-key="${other.keyId}"]`);
  // Renaming is signed too: the name is what the list shows, the id never changes.
  await phone.locator("[data-action=rename-key]").click();
  // The field starts with the key's name now, with Save and Cancel; Cancel leaves it as it was.
  assert.notEqual(await phone.locator(".rename input").inputValue(), "", "the field is not empty");
  await phone.locator("[data-action=rename-cancel]").click();
  assert.equal(await phone.locator(".rename input").count(), 0);
  await phone.locator("[data-action=rename-key]").click();
  await page.keyboard.type("Jay's phone");
  await phone.locator("[data-action=rename-save]").click();
  await phone.locator("[data-testid=key-label]").waitFor({ timeout: 10_000 });
  assert.equal((await phone.locator("[data-testid=key-label]").textContent()).trim(), "Jay's phone");
  const renamed = (await guard.client.get("/v1/approvers/jay/keys")).body.keys.find((key) => key.key_id === other.keyId);
  assert.equal(renamed.label, "Jay's phone");
  assert.equal(renamed.key_id, other.keyId);
  await phone.locator("[data-action=revoke-key]").click();
  assert.equal(await phone.locator("[data-action=revoke-key]").textContent(), "Press again to revoke");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal((await guard.client.get("/v1/approvers/jay/keys")).body.keys.find((key) => key.key_id === other.keyId).revoked_at, null, "one press revokes nothing");
  await phone.locator("[data-action=revoke-key]").click();
  await page.waitForFunction((id) => /revoked/.test(document.querySelector(`#keys li[data-key="${id}"]`)?.textContent ?? ""), other.keyId, { timeout: 10_000 });
  const keys = (await guard.client.get("/v1/approvers/jay/keys")).body.keys;
  assert.ok(keys.find((key) => key.key_id === other.keyId).revoked_at, "the guard revoked it");
  const trail = (await guard.client.get("/v1/audit?limit=20", ADMIN)).body.records.find((record) => record.event === "key_revoked" && record.detail.key_id === other.keyId);
  assert.match(trail.detail.by, /^jay\/device-/, "revoked by this device's signed action");
  // A confirmation signed with the revoked key approves nothing.
  const approval = await proposal();
  assert.equal((await approve(guard.client, approval, other)).status, 403);
  // Revoking this device's own key: the page forgets it and offers to register again.
  const mine = page.locator("#keys li", { hasText: "this device" });
  // A double-click is one press: nothing is revoked.
  await mine.locator("[data-action=revoke-key]").dblclick();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal((await guard.client.get("/v1/approvers/jay/keys")).body.keys.filter((key) => key.revoked_at === null).length, 1, "a double-click revokes nothing");
  await mine.locator("[data-action=revoke-key]").click();
  await page.waitForFunction(() => !document.getElementById("register").hidden, null, { timeout: 10_000 });
  assert.equal((await guard.client.get("/v1/approvers/jay/keys")).body.keys.every((key) => key.revoked_at !== null), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test("notifications: opted in, a new approval while the page is hidden raises one browser notification; the tab title counts what waits", async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  // Headless Chromium shows no notification: the page's Notification is a recorder with the same API, and the
  // page is hidden (another tab in front).
  await page.addInitScript(() => {
    window.notified = [];
    Object.defineProperty(document, "visibilityState", { get: () => "hidden" });
    window.Notification = class {
      static permission = "default";
      static async requestPermission() {
        window.Notification.permission = "granted";
        return "granted";
      }
      constructor(title, options) {
        window.notified.push({ title, tag: options?.tag });
      }
    };
  });
  await page.goto(inboxUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.locator("#notify").waitFor({ state: "visible" });
  await page.click("#notify");
  await page.locator("#notify").waitFor({ state: "hidden" });
  const before = await page.evaluate(() => document.querySelectorAll('#pending .approval').length);
  const approval = await proposal();
  await card(page, approval.approval_id).waitFor({ timeout: 10_000 });
  const notified = await page.evaluate(() => window.notified);
  assert.equal(notified.length, 1, JSON.stringify(notified));
  assert.equal(notified[0].tag, approval.approval_id);
  assert.match(notified[0].title, /New approval: Execute: status_change on/);
  assert.match(await page.title(), new RegExp(`^\\(${before + 1}\\) Approval inbox`));
  assert.deepEqual(errors, []);
  await page.close();
});
