// Standing approvals in the approval inbox (headless Chromium, the guard under `wrangler dev`): a person
// writes one, reads it in words the guard's core rendered from the exact terms (in English and Japanese),
// signs it with their device key; the agent its token proves then runs two covered changes without asking;
// the inbox shows the uses left; the person revokes it with one signed action, and the next proposal asks.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startServer } from "../../examples/serve.mjs";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { freePort, launchChromium } from "./helpers.mjs";
import { ADMIN, INBOX, startGuardService } from "./edge-service-support.mjs";

const MAIL_AGENT = "mail-agent-token";
let board;
let guard;
let server;
let browser;
let inboxUrl;

before(async () => {
  board = await startTaskBoard();
  const port = await freePort();
  guard = await startGuardService(board, { vars: { ORIGINS: `http://localhost:${port}`, RP_ID: "localhost", AGENT_TOKENS: `mail-agent=${MAIL_AGENT}` } });
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

let nodes = 0;
async function propose() {
  nodes += 1;
  const node = `mandate-task-${nodes}`;
  board.board.set(node, "todo");
  const { body } = await guard.client.post("/v1/proposals", { node_id: node, proposed_change: { type: "status_change", from: "todo", to: "in_progress" }, intent: "start it" }, MAIL_AGENT);
  return { node, view: body };
}

test("a standing approval made, read and signed in the inbox runs two changes unasked, shows its uses left, and once revoked the agent asks again", async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(inboxUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.fill("#approver-name", "nora");
  await page.click("#register-device");
  await page.waitForFunction(() => document.getElementById("approver-status").textContent.includes("nora"), null, { timeout: 10_000 });
  await page.waitForSelector("#mandate-card:not([hidden])", { timeout: 10_000 });

  // A condition that is not `field op value` is refused in words; nothing is shown to sign.
  await page.fill("#mandate-agent", "mail-agent");
  await page.fill("#mandate-action", "status_change");
  await page.fill("#mandate-conditions", "to is in_progress");
  await page.click("#mandate-preview");
  await page.waitForFunction(() => document.getElementById("announcer").textContent.includes("condition 1"), null, { timeout: 10_000 });
  assert.equal(await page.isHidden("#mandate-draft"), true);
  // A number is read only as a decimal: `0x10` is not taken for 16.
  await page.fill("#mandate-conditions", "amount at_most 0x10");
  await page.click("#mandate-preview");
  await page.waitForFunction(() => document.getElementById("announcer").textContent.includes('needs a number, not "0x10"'), null, { timeout: 10_000 });
  assert.equal(await page.isHidden("#mandate-draft"), true);

  await page.fill("#mandate-conditions", "to one_of in_progress, review");
  await page.fill("#mandate-uses", "3");
  await page.fill("#mandate-hours", "1");
  await page.click("#mandate-preview");
  await page.waitForSelector("#mandate-draft:not([hidden])", { timeout: 10_000 });
  const lines = await page.locator("[data-testid=mandate-lines] li").allTextContents();
  assert.deepEqual(lines.slice(0, 3), [
    "Standing approval: agent mail-agent may run status_change without asking",
    "Only when to is one of in_progress, review",
    "Any other field (node_id, from, to) may be anything",
  ]);
  assert.match(lines[3], /^At most 3 runs, until \d{4}-\d{2}-\d{2}T/);
  // Changing the form withdraws what was shown: only what was read is signed.
  await page.fill("#mandate-uses", "4");
  assert.equal(await page.isHidden("#mandate-draft"), true);
  await page.fill("#mandate-uses", "3");
  await page.click("#mandate-preview");
  await page.waitForSelector("#mandate-draft:not([hidden])", { timeout: 10_000 });
  await page.click("#mandate-sign");
  const mandate = page.locator("[data-testid=mandate]").first();
  await mandate.waitFor({ timeout: 10_000 });
  assert.equal(await mandate.locator("[data-testid=mandate-uses]").textContent(), "3 of 3 runs left · signed by nora");

  // The agent's two covered changes are approved without asking and applied.
  for (let run = 0; run < 2; run += 1) {
    const { node, view } = await propose();
    assert.equal(view.state, "approved", "no person was asked");
    const applied = await guard.client.post("/v1/apply", view.executor_request, MAIL_AGENT);
    assert.equal(applied.body.outcome, "applied");
    assert.equal(board.board.get(node), "in_progress");
  }
  await page.reload();
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector("[data-testid=mandate-uses]")?.textContent.startsWith("1 of 3"), null, { timeout: 10_000 });
  assert.equal(await page.locator("#pending .approval").count(), 0, "nothing waited for a person");

  // In Japanese, the same terms in the core's Japanese.
  await page.selectOption("#language", "ja");
  assert.equal(await page.locator("[data-testid=mandate] ol li").first().textContent(), "常設承認: エージェント mail-agent は確認なしで status_change を実行できます");
  assert.equal(await page.locator("[data-testid=mandate-uses]").first().textContent(), "残り 1 / 3 回 · 署名 nora");
  await page.selectOption("#language", "en");

  // Revoked with one signed action: the next proposal waits for a person.
  await page.click("[data-testid=mandate-revoke]");
  await page.waitForSelector("[data-testid=mandate][data-state=revoked]", { timeout: 10_000 });
  assert.equal(await page.locator("[data-testid=mandate-revoke]").count(), 0);
  const { view } = await propose();
  assert.equal(view.state, "pending");
  await page.locator(`.approval[data-id="${view.approval_id}"]`).waitFor({ timeout: 10_000 });
  // The person approves it, and two more, on their cards: the decisions are measured (time on screen) and a
  // standing approval that would have covered the three is suggested, one press from the form.
  const approveCard = async (id) => {
    const card = page.locator(`.approval[data-id="${id}"]`);
    await card.waitFor({ timeout: 10_000 });
    await card.locator("[data-action=approve]").click();
    await card.locator("[data-action=approve].confirming").waitFor({ timeout: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await card.locator("[data-action=approve]").click();
    await page.waitForFunction((approvalId) => document.querySelector(`#history .approval[data-id="${approvalId}"]`), id, { timeout: 10_000 });
  };
  await approveCard(view.approval_id);
  for (let more = 0; more < 2; more += 1) await approveCard((await propose()).view.approval_id);
  const metrics = (await guard.client.get("/v1/decision-metrics")).body;
  const kind = metrics.by_type.find((row) => row.key === "status_change");
  assert.deepEqual({ decided: kind.decided, approved: kind.approved, standing: kind.by_standing_approval, measured: kind.measured }, { decided: 5, approved: 5, standing: 2, measured: 3 });
  assert.ok(kind.median_read_ms >= 600, `the time on screen is measured: ${kind.median_read_ms}`);
  await page.reload();
  await page.waitForSelector("#metrics-card:not([hidden])", { timeout: 20_000 });
  const rows = await page.locator("#metrics-body table").first().locator("[data-testid=metrics-row]").allTextContents();
  assert.ok(rows.some((row) => row.startsWith("status_change5100%2")), rows.join(" | "));
  const suggestion = page.locator("[data-testid=suggestion]");
  assert.match(await suggestion.textContent(), /You approved status_change for mail-agent 3 times \(from equals todo; to equals in_progress\)/);
  await suggestion.locator("[data-testid=suggestion-use]").click();
  assert.equal(await page.inputValue("#mandate-agent"), "mail-agent");
  assert.equal(await page.inputValue("#mandate-conditions"), "from equals todo\nto equals in_progress");
  assert.equal(await page.inputValue("#mandate-uses"), "3");
  await page.click("#mandate-preview");
  await page.waitForSelector("#mandate-draft:not([hidden])", { timeout: 10_000 });
  assert.equal(await page.locator("[data-testid=mandate-lines] li").nth(1).textContent(), "Only when from is todo");

  const audit = (await guard.client.get("/v1/audit?limit=50")).body.records.map((record) => record.event);
  assert.equal(audit.filter((event) => event === "approved_by_mandate").length, 2);
  assert.equal(audit.filter((event) => event === "approved").length, 3);
  assert.ok(audit.includes("mandate_created") && audit.includes("mandate_revoked"));
  assert.deepEqual(errors, []);
});
