// Editing a tool call's arguments in the approval inbox (headless Chromium, the guard under `wrangler dev` in
// front of the sample MCP server): the form drawn from the tool's input schema, a typed draft that survives
// the page being drawn again, a number field that holds no number refused by name, the edited call rendered
// by the guard and signed by the person, and the agent's call then running exactly the edit, once.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startServer } from "../../examples/serve.mjs";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { freePort, launchChromium } from "./helpers.mjs";
import { ADMIN, AGENT, INBOX, startGuardService } from "./edge-service-support.mjs";
import { startSampleServer } from "./support/mcp-sample-server.mjs";

const sentLog = join(mkdtempSync(join(tmpdir(), "inbox-tool-edit-")), "sent.log");
const sent = () => (existsSync(sentLog) ? readFileSync(sentLog, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line)) : []);
let upstream;
let board;
let guard;
let server;
let browser;
let inboxUrl;

before(async () => {
  upstream = await startSampleServer(sentLog);
  board = await startTaskBoard();
  const port = await freePort();
  guard = await startGuardService(board, { vars: { ORIGINS: `http://localhost:${port}`, RP_ID: "localhost", MCP_UPSTREAM_URL: upstream.url } });
  server = await startServer(port, { guard: { url: guard.url, inboxToken: INBOX, adminToken: ADMIN, rpId: "localhost" } });
  inboxUrl = `http://localhost:${port}/inbox.html`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.close();
  await guard?.dispose();
  await board?.close();
  await upstream?.close();
});

test("a tool call's arguments edited on its card, from the tool's schema: the guard renders the edit, the person signs it, and exactly it runs once", async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(inboxUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
  await page.fill("#approver-name", "kim");
  await page.click("#register-device");
  await page.waitForFunction(() => document.getElementById("approver-status").textContent.includes("kim"), null, { timeout: 10_000 });

  const client = new Client({ name: "agent", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${guard.url}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${AGENT}` } } }));
  try {
    const asked = { to: "team@example.com", subject: "weekly report" };
    const approval = (await client.callTool({ name: "send_email", arguments: asked }))._meta["agent-governor/approval"];
    const card = (id) => page.locator(`.approval[data-id="${id}"]`);
    await card(approval.approvalId).waitFor({ timeout: 10_000 });

    // The form: a field per property of the tool's schema, filled with the proposed arguments.
    await card(approval.approvalId).locator("[data-action=edit]").click();
    const to = card(approval.approvalId).locator('[data-edit-arg="to"]');
    await to.waitFor({ timeout: 10_000 });
    assert.equal(await to.inputValue(), "team@example.com");
    assert.equal(await card(approval.approvalId).locator('[data-edit-arg="subject"]').inputValue(), "weekly report");
    await to.fill("lead@example.com");
    // What was typed survives the page being drawn again (the feed, the facts).
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(await card(approval.approvalId).locator('[data-edit-arg="to"]').inputValue(), "lead@example.com");
    await card(approval.approvalId).locator("[data-action=edit-apply]").click();

    // The edit is a new card, its lines rendered by the guard from the edited arguments.
    const edited = await page.waitForFunction(
      (original) => [...document.querySelectorAll("#pending .approval")].find((node) => node.dataset.id !== original && node.textContent.includes("lead@example.com"))?.dataset.id,
      approval.approvalId,
      { timeout: 10_000 },
    );
    const editedId = await edited.jsonValue();
    assert.match(await card(editedId).textContent(), /Execute: tool send_email with \{"subject":"weekly report","to":"lead@example.com"\}/);
    await card(editedId).locator("[data-action=approve]").click();
    await card(editedId).locator("[data-action=approve].confirming").waitFor({ timeout: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await card(editedId).locator("[data-action=approve]").click();
    await page.waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`), approval.approvalId, { timeout: 10_000 });
    assert.equal((await guard.client.get(`/v1/approvals/${approval.approvalId}`)).body.state, "edited");

    // The agent calls again as it asked: the edit runs, once, and it is told so.
    const done = await client.callTool({ name: "send_email", arguments: asked, _meta: { requestState: approval.requestState } });
    assert.equal(done.isError, undefined, JSON.stringify(done));
    assert.match(done.content[0].text, /A person edited the arguments before approving/);
    assert.deepEqual(sent(), [{ to: "lead@example.com", subject: "weekly report" }]);

    // As JSON: what the person types is read by the guard; broken JSON is refused with its reason, and nothing is drafted.
    const second = (await client.callTool({ name: "send_email", arguments: { to: "ops@example.com", subject: "status" } }))._meta["agent-governor/approval"];
    await card(second.approvalId).waitFor({ timeout: 10_000 });
    await card(second.approvalId).locator("[data-action=edit]").click();
    await card(second.approvalId).locator("[data-testid=edit-json] summary").click();
    await card(second.approvalId).locator("[data-edit-json]").fill('{"to": "ops@example.com", "to": "eve@example.com", "subject": "status"}');
    await card(second.approvalId).locator("[data-action=edit-apply]").click();
    await page.waitForFunction(() => /Not done: the arguments are not JSON: the key `to` appears twice/.test(document.getElementById("announcer").textContent), null, { timeout: 10_000 });
    const pending = (await guard.client.get("/v1/approvals?state=pending")).body.approvals.map((shown) => shown.approval_id);
    assert.deepEqual(pending, [second.approvalId], "nothing drafted");
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
    await page.close();
  }
});
