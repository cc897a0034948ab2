// The inbox with a governed agent running beside it (as `npm start` runs them), in headless Chromium: the
// agent's presence while it judges, a decline with its undo window, "stopped after your decline", and the
// Command UI's signed instruction that sets the agent going again. The model is scripted (it answers with the
// first move it is offered, after a pause long enough to see the agent judging); the tests assert plumbing
// and what a person sees, not a model's verdict. The guard's command channel is attacked over HTTP: a replayed
// command, a command from an approver without the admin role, and malformed commands.
import assert from "node:assert/strict";
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startServer } from "../../examples/serve.mjs";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { AGENT_ID, startGovernedAgent } from "../../examples/agent/agent.mjs";
import { axeViolations, freePort, launchChromium, repoRoot } from "./helpers.mjs";
import { PASSING_VERDICT, completeChecklist, firstChoice, modelUrl, startScriptedModel } from "./support/scripted-model.mjs";
import { ADMIN, AGENT, INBOX, humanAction, registerEd25519, startGuardService } from "./edge-service-support.mjs";

const JUDGE_DELAY_MS = 1500;
const QUIET_TOKEN = "quiet-agent-token";
let judgements = 0;
/** The text of the judge's last prompt (what the model was asked). */
let lastJudgePrompt = "";

function scriptedModel() {
  return startScriptedModel(async (name, schema, body) => {
    if (name !== "control_judgement") return name === "watcher_verdict" ? PASSING_VERDICT : completeChecklist();
    judgements += 1;
    lastJudgePrompt = body.messages.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content))).join("\n");
    await new Promise((resolve) => setTimeout(resolve, JUDGE_DELAY_MS));
    return firstChoice(schema);
  });
}

let model;
let board;
let guard;
let agent;
let server;
let browser;
let inboxUrl;

before(async () => {
  model = await scriptedModel();
  board = await startTaskBoard({ nodes: { "task-1": "todo" } });
  const port = await freePort();
  // One plain agent token (any agent) and one bound to `quiet-agent` only.
  guard = await startGuardService(board, { vars: { ORIGINS: `http://localhost:${port}`, RP_ID: "localhost", AGENT_TOKENS: `${AGENT},quiet-agent=${QUIET_TOKEN}` } });
  server = await startServer(port, { guard: { url: guard.url, inboxToken: INBOX, adminToken: ADMIN, rpId: "localhost" } });
  inboxUrl = `http://localhost:${port}/inbox.html`;
  browser = await launchChromium();
});

after(async () => {
  agent?.stop();
  await browser?.close();
  server?.close();
  await guard?.dispose();
  await board?.close();
  model?.close();
});

/** The governed agent as npm start runs it, on the scripted model. */
function startAgent() {
  return startGovernedAgent({ guardUrl: guard.url, agentToken: AGENT, boardUrl: board.url, llm: { url: modelUrl(model), model: "scripted" }, narrowJudgement: true, pollMs: 200 });
}

async function waitFor(check, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const pendingProposals = async () => (await guard.client.get("/v1/approvals?state=pending", AGENT)).body.approvals;

test("presence while judging; a decline can be undone, then stops the task; a signed instruction sets the agent going again", async () => {
  const page = await browser.context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(inboxUrl);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });

  // A person's name with a space is a valid approver name; a "/" is not (the browser and the guard agree).
  const name = page.locator("#approver-name");
  await name.fill("bad/name");
  assert.equal(await name.evaluate((input) => input.validity.patternMismatch), true, "a / in a name is refused by the page");
  await name.fill(" Alice");
  assert.equal(await name.evaluate((input) => input.validity.patternMismatch), true, "a leading space is refused by the page");
  await name.fill("Alice Smith");
  assert.equal(await name.evaluate((input) => input.validity.valid), true, "the pattern compiles and accepts a person's name");
  await page.click("#register-device");
  await page.waitForFunction(() => document.getElementById("approver-status").textContent.includes("Alice Smith"));
  await page.locator("#command-card").waitFor({ state: "visible", timeout: 10_000 });

  agent = await startAgent();
  server.setAgent(agent);

  // While the model thinks, the page says the agent is judging, for how long, and which board change it saw.
  await page.waitForFunction(() => document.querySelector("[data-testid=presence-state]")?.textContent === "Judging", null, { timeout: 15_000 });
  assert.match(await page.textContent("#presence"), /deciding the next action/);
  assert.match(await page.textContent("[data-testid=presence-elapsed]"), /for \d+ sec/);
  assert.match(await page.textContent("[data-testid=presence-board]"), /first look: 1 task/);

  const first = await waitFor(async () => (await pendingProposals())[0], "the first proposal");
  await page.waitForFunction(() => document.querySelector("[data-testid=presence-state]")?.textContent === "Waiting for you", null, { timeout: 15_000 });
  assert.match(await page.textContent("#presence"), /Waiting for your decision: Execute: status_change on task-1: todo -> in_progress/);
  await page.waitForFunction(() => document.title.startsWith("(1) "), null, { timeout: 10_000 });

  // The README's pictures: the agent waiting for this person, its proposal with the machine's facts first.
  await page.locator(`.approval[data-id="${first.approval_id}"] [data-testid=now]`).waitFor({ timeout: 10_000 });
  const directory = process.env.UPDATE_SCREENSHOTS ? join(repoRoot, "docs") : join(repoRoot, "target", "screenshots");
  mkdirSync(directory, { recursive: true });
  await page.emulateMedia({ colorScheme: "light" });
  for (const [name, width, height] of [["inbox-phone.png", 390, 1100], ["inbox-desktop.png", 1280, 1000]]) {
    await page.setViewportSize({ width, height });
    await page.evaluate(() => {
      document.activeElement?.blur();
      window.scrollTo(0, 0);
    });
    await page.screenshot({ path: join(directory, name) });
    assert.ok(statSync(join(directory, name)).size > 10_000, `${name} has content`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  // The admin's view (the agent's presence, the Command UI, the keys) passes axe-core in both schemes and languages.
  assert.deepEqual(await axeViolations(page), []);

  // n starts a visible, undoable decline; Undo sends nothing.
  const firstCard = page.locator(`.approval[data-id="${first.approval_id}"]`);
  await firstCard.focus();
  await page.keyboard.press("n");
  await page.locator("[data-testid=declining]").waitFor({ timeout: 5_000 });
  assert.match(await page.textContent("[data-testid=declining]"), /Declining in \d sec/);
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.action), "undo", "the undo button has the focus");
  await page.keyboard.press("Enter");
  await page.locator("[data-testid=declining]").waitFor({ state: "detached", timeout: 5_000 });
  await new Promise((resolve) => setTimeout(resolve, 5500));
  assert.equal((await guard.client.get(`/v1/approvals/${first.approval_id}`, AGENT)).body.state, "pending", "an undone decline sends nothing");

  // Enter in the reason field declines with that reason, after the window.
  await firstCard.locator("[data-reason]").fill("not now");
  await firstCard.locator("[data-reason]").press("Enter");
  await page.waitForFunction((id) => document.querySelector(`#history .approval[data-id="${id}"]`)?.dataset.state === "declined", first.approval_id, { timeout: 15_000 });
  const declined = (await guard.client.get(`/v1/approvals/${first.approval_id}`, AGENT)).body;
  assert.equal(declined.decision.reason, "not now");
  assert.equal(declined.decision.approver, "Alice Smith");
  assert.match(await page.locator(`#history .approval[data-id="${first.approval_id}"]`).textContent(), /Declined by Alice Smith: not now/);

  // The agent says it stopped after the decline, and how to go on.
  await page.waitForFunction(() => document.querySelector("[data-testid=presence-state]")?.textContent === "Stopped", null, { timeout: 15_000 });
  assert.match(await page.textContent("[data-testid=presence-why]"), /Stopped after your decline/);
  assert.match(await page.textContent("#presence"), /send an instruction or a new goal/);
  await page.waitForFunction(() => /declined/.test(document.getElementById("agent-log").textContent), null, { timeout: 15_000 });
  assert.equal(board.board.get("task-1"), "todo");

  // A resume: the agent judges again with the person's words in its prompt, and does not ask again for the
  // change they declined (nothing changed since): no new proposal, and its log says why.
  const judgedBeforeResume = judgements;
  await page.selectOption("#command-verb", "resume");
  await page.click("#command-send");
  // A command other than stop waits a few seconds with Undo (what was typed comes back) and Send now.
  await page.locator("#command-pending").waitFor({ timeout: 5_000 });
  assert.match(await page.textContent("#command-pending-text"), /^Sending resume to board-agent in \d sec\.$/);
  await page.click("#command-undo");
  assert.equal(await page.locator("#command-pending").isVisible(), false);
  assert.equal(await page.inputValue("#command-verb"), "resume");
  await new Promise((resolve) => setTimeout(resolve, 5_500));
  assert.deepEqual((await guard.client.get(`/v1/agents/${AGENT_ID}/commands`, INBOX)).body.commands, [], "an undone command is never sent");
  await page.click("#command-send");
  await page.click("#command-now");
  await waitFor(() => judgements > judgedBeforeResume, "a judgement after the resume");
  assert.match(lastJudgePrompt, /What people declined/);
  assert.match(lastJudgePrompt, /the person said: \\?"not now\\?"/);
  await page.waitForFunction(() => /not proposed again/.test(document.getElementById("agent-log").textContent), null, { timeout: 15_000 });
  await new Promise((resolve) => setTimeout(resolve, JUDGE_DELAY_MS + 1000));
  assert.deepEqual(await pendingProposals(), [], "the declined change is not proposed again");
  const judgedBefore = judgements;

  // A signed instruction from the Command UI: taken by the agent once, logged as privileged, and a new proposal follows.
  await page.selectOption("#command-verb", "instruction");
  await page.fill("#command-text", "Try task-1 again: it is ready now.");
  await page.click("#command-send");
  // Left to its window, it is sent when the window ends.
  await page.waitForFunction(() => /^Sent: instruction: “Try task-1 again/.test(document.getElementById("announcer").textContent), null, { timeout: 10_000 });
  await page.waitForFunction(() => /carried out by the agent/.test(document.getElementById("commands").textContent), null, { timeout: 15_000 });
  const second = await waitFor(async () => (await pendingProposals()).find((proposal) => proposal.approval_id !== first.approval_id), "a proposal after the instruction");
  assert.ok(judgements > judgedBefore, "the instruction started a new judgement");
  assert.equal(second.node_id, "task-1");
  const audit = (await guard.client.get("/v1/audit?limit=50", INBOX)).body.records;
  const privileged = audit.filter((record) => record.event === "privileged_command");
  // Newest first.
  assert.deepEqual(privileged.map((record) => record.detail.verb), ["instruction", "resume"]);
  assert.equal(privileged[0].detail.approver, "Alice Smith");
  assert.equal(privileged[0].detail.text, "Try task-1 again: it is ready now.");
  const commands = (await guard.client.get(`/v1/agents/${AGENT_ID}/commands`, INBOX)).body.commands;
  assert.equal(commands.length, 2);
  assert.ok(commands[1].taken_at_ms > 0, "the agent took it");
  assert.deepEqual(commands[1].result, { carried_out: true, detail: "instruction from Alice Smith: Try task-1 again: it is ready now." });

  // A reply from the card decides nothing: the agent takes it and still waits for this decision; it reads
  // the words at its next judgement.
  await page.waitForFunction((id) => document.querySelector(`#pending .approval[data-id="${id}"]`), second.approval_id, { timeout: 15_000 });
  const secondCard = page.locator(`#pending .approval[data-id="${second.approval_id}"]`);
  await secondCard.locator("[data-reply]").fill("task-1 waits for the design review");
  await secondCard.locator("[data-action=reply]").click();
  const replied = await waitFor(
    async () => (await guard.client.get(`/v1/agents/${AGENT_ID}/commands`, INBOX)).body.commands.find((command) => command.verb === "reply" && command.result),
    "the reply carried out",
  );
  assert.deepEqual(replied.result, { carried_out: true, detail: "reply from Alice Smith: task-1 waits for the design review" });
  assert.equal((await guard.client.get(`/v1/approvals/${second.approval_id}`, AGENT)).body.state, "pending");
  assert.equal(agent.loop.status().mode, "awaiting_approval");
  assert.deepEqual(agent.loop.state().unread_replies, ["task-1 waits for the design review"]);
  const replies = (await guard.client.get("/v1/audit?limit=50", INBOX)).body.records.filter((record) => record.event === "reply");
  assert.equal(replies.length, 1);
  assert.equal(replies[0].detail.text, "task-1 waits for the design review");
  assert.equal(await secondCard.locator("[data-reply]").inputValue(), "", "the field is emptied once sent");

  // An instruction while the agent waits for this decision interrupts it: its question (resume or discard)
  // is a card in the inbox with its answers as buttons. Resumed, it waits for the same approval, which, once
  // approved here, is applied once.
  await page.selectOption("#command-verb", "instruction");
  await page.fill("#command-text", "Hold on a moment.");
  await page.click("#command-send");
  await page.click("#command-now");
  const question = page.locator(`#pending .question[data-agent="${AGENT_ID}"]`);
  await question.waitFor({ timeout: 15_000 });
  assert.match(await question.textContent(), /was interrupted and asks: resume its task or discard it\?/);
  await page.waitForFunction(() => document.title.startsWith("(2) "), null, { timeout: 10_000 });
  await question.locator("[data-action=answer-resume]").click();
  await question.waitFor({ state: "detached", timeout: 15_000 });
  const answered = await waitFor(
    async () => (await guard.client.get(`/v1/agents/${AGENT_ID}/commands`, INBOX)).body.commands.find((command) => command.verb === "answer" && command.result),
    "the answer carried out",
  );
  assert.deepEqual(answered.result, { carried_out: true, detail: "resumed by Alice Smith, answering the agent's question" });
  await waitFor(() => agent.loop.status().mode === "awaiting_approval", "the agent waiting for the same approval again");
  assert.deepEqual((await pendingProposals()).map((proposal) => proposal.approval_id), [second.approval_id], "no copy was proposed");
  const approveButton = secondCard.locator("[data-action=approve]");
  await approveButton.click();
  await secondCard.locator("[data-action=approve].confirming").waitFor({ timeout: 5_000 });
  await new Promise((resolve) => setTimeout(resolve, 600));
  await approveButton.click();
  await waitFor(() => board.board.get("task-1") === "in_progress", "the approved change applied");
  assert.equal((await guard.client.get(`/v1/approvals/${second.approval_id}`, AGENT)).body.state, "consumed");
  assert.deepEqual(errors, []);
  await page.close();
});

test("the command channel: a replayed command, a non-admin's command, malformed commands and a second take are refused", async () => {
  const api = guard.client;
  // A channel no agent follows, so that nothing takes its commands but this test.
  const AGENT_ID = "quiet-agent";
  // An approver enrolled without the admin role.
  const plain = await registerEd25519(api, "carol", "laptop");
  const listed = await api.get(`/v1/agents/${AGENT_ID}/commands`, INBOX);
  assert.equal(listed.status, 200);
  const version = listed.body.version;
  const refused = await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: await humanAction("command", `agent:${AGENT_ID}`, plain, "stop", version) });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, "forbidden");
  // A reply decides nothing: any approver may send one; it is audited as a reply, never as privileged.
  const reply = await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: await humanAction("command", `agent:${AGENT_ID}`, plain, "reply the board is frozen today", version) });
  assert.equal(reply.status, 201, JSON.stringify(reply.body));
  assert.equal(reply.body.verb, "reply");
  const replyAudit = (await api.get("/v1/audit?limit=200", INBOX)).body.records.filter((record) => record.detail?.agent_id === AGENT_ID && record.event === "reply");
  assert.equal(replyAudit.length, 1);
  assert.equal(replyAudit[0].detail.approver, "carol");
  // So may the answer to an interrupted agent's question, and only resume or discard, and only while it asks:
  // never to an agent that asks nothing, nor to one an admin paused (its resume is an admin's).
  const answerNow = async () => api.post(`/v1/agents/${AGENT_ID}/commands`, { action: await humanAction("command", `agent:${AGENT_ID}`, plain, "answer discard", version) });
  assert.equal((await answerNow()).body.code, "not_asking");
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "paused", paused: true }, QUIET_TOKEN)).status, 200);
  assert.equal((await answerNow()).body.code, "not_asking");
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "interrupted" }, QUIET_TOKEN)).status, 200);
  const answer = await answerNow();
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  for (const detail of ["reply", "reply ", "reply \u3000", "replyhello", "answer", "answer maybe", "answer  resume", "answer resume now"]) {
    const bad = await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: await humanAction("command", `agent:${AGENT_ID}`, plain, detail, version) });
    assert.equal(bad.status, 400, `${JSON.stringify(detail)}: ${JSON.stringify(bad.body)}`);
  }

  // An admin approver (enrolled with the admin role by the admin token).
  const code = await api.post("/v1/enrollments", { approver: "dana", roles: ["admin"] }, ADMIN);
  assert.equal(code.status, 201);
  const { generateApproverKey } = await import("../../dist/guard/node.js");
  const key = await generateApproverKey({ keyId: "laptop" });
  const registered = await api.post("/v1/approvers/dana/keys", { key_id: "laptop", ...key.publicKey, enrollment_code: code.body.enrollment_code });
  assert.equal(registered.status, 201);
  const dana = { ...key, keyId: registered.body.key_id };
  assert.deepEqual((await api.get("/v1/approvers/dana/keys")).body.roles, ["admin"]);

  const action = await humanAction("command", `agent:${AGENT_ID}`, dana, "goal Keep the board tidy", version);
  const sent = await api.post(`/v1/agents/${AGENT_ID}/commands`, { action });
  assert.equal(sent.status, 201, JSON.stringify(sent.body));
  assert.equal(sent.body.verb, "goal");
  const replayed = await api.post(`/v1/agents/${AGENT_ID}/commands`, { action });
  assert.equal(replayed.status, 409);
  assert.equal(replayed.body.code, "action_replayed");

  // The signed line is what the agent receives: altering it breaks the signature.
  const altered = { ...(await humanAction("command", `agent:${AGENT_ID}`, dana, "goal A", version)), detail: "goal B" };
  assert.equal((await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: altered })).status, 403);
  // A command made for another agent is refused for this one.
  const elsewhere = await humanAction("command", "agent:other-agent", dana, "stop", version);
  assert.equal((await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: elsewhere })).body.code, "change_mismatch");
  for (const detail of ["launch rockets", "goal", "stop now", "whitelist everything", "prefix a b", ""]) {
    const bad = await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: await humanAction("command", `agent:${AGENT_ID}`, dana, detail, version) });
    assert.equal(bad.status, 400, `${JSON.stringify(detail)}: ${JSON.stringify(bad.body)}`);
  }
  // A command signed for another guard (another audience) is refused here.
  const { stateVersion } = await import("../../dist/guard/node.js");
  const foreign = await humanAction("command", `agent:${AGENT_ID}`, dana, "stop", stateVersion(JSON.stringify(["agent-commands", "agent-governor:elsewhere", AGENT_ID])));
  assert.equal((await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: foreign })).body.code, "stale_action");
  // Separators the agent's loop would read differently are refused in rules.
  for (const detail of ["prefix a\u0085b", "whitelist add a\u00a0b", "whitelist  add x", "stop\tnow"]) {
    const bad = await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: await humanAction("command", `agent:${AGENT_ID}`, dana, detail, version) });
    assert.equal(bad.status, 400, `${JSON.stringify(detail)}: ${JSON.stringify(bad.body)}`);
  }
  // A command is taken once, even by two takers at the same moment; then its result is recorded once.
  const seq = sent.body.seq;
  const take = () => api.post(`/v1/agents/${AGENT_ID}/commands/${seq}`, {}, AGENT);
  const report = (result) => api.post(`/v1/agents/${AGENT_ID}/commands/${seq}`, { result }, AGENT);
  // A token bound to another agent neither takes, lists nor reports for this one.
  assert.equal((await api.post(`/v1/agents/board-agent/commands/${sent.body.seq}`, {}, QUIET_TOKEN)).status, 403);
  assert.equal((await api.get("/v1/agents/board-agent/commands", QUIET_TOKEN)).status, 403);
  assert.equal((await api.put("/v1/agents/board-agent/status", { state: "idle" }, QUIET_TOKEN)).status, 403);
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "idle" }, QUIET_TOKEN)).status, 200, "its own agent's channel is its");
  const takes = await Promise.all([take(), take(), take()]);
  assert.deepEqual(takes.map((answer) => answer.status).sort(), [200, 409, 409]);
  assert.equal((await report({ carried_out: "yes" })).status, 400);
  assert.equal((await report({ carried_out: true, detail: "goal set" })).status, 200);
  assert.equal((await report({ carried_out: false, detail: "again" })).status, 409, "a result is recorded once");
  assert.deepEqual((await api.get(`/v1/agents/${AGENT_ID}/commands`, INBOX)).body.commands.at(-1).result, { carried_out: true, detail: "goal set" });
  assert.equal((await api.post(`/v1/agents/${AGENT_ID}/commands/${seq}`, {}, INBOX)).status, 403, "only an agent takes commands");
  assert.equal((await api.get(`/v1/agents/${"x".repeat(65)}/commands`, INBOX)).status, 400);
  // The presence report is the agent's alone, and checked.
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "judging" }, INBOX)).status, 403);
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "dancing" }, AGENT)).status, 400);
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "idle", since_ms: "soon" }, AGENT)).status, 400);
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "idle", goal: "x".repeat(20_000) }, AGENT)).status, 413);
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "idle", sent_at_ms: 1.5 }, AGENT)).status, 400);
  // Times on the guard's clock: an agent whose clock runs an hour ahead reports a state begun 10 s ago by its
  // clock; the guard keeps it as 10 s before its own now (never in the future).
  const ahead = Date.now() + 3_600_000;
  const before = Date.now();
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "idle", since_ms: ahead - 10_000, board_seen_ms: ahead + 60_000, sent_at_ms: ahead }, AGENT)).status, 200);
  const kept = (await api.get(`/v1/agents/${AGENT_ID}/status`, INBOX)).body;
  assert.ok(kept.since_ms >= before - 10_000 && kept.since_ms <= Date.now() - 10_000 + 50, `since_ms ${kept.since_ms - before}`);
  assert.ok(kept.board_seen_ms <= kept.reported_at_ms, "never later than the guard's now");
  assert.equal(kept.sent_at_ms, undefined, "the agent's clock is not kept");
  // Without `sent_at_ms`, a time in the future is still never later than the guard's now.
  assert.equal((await api.put(`/v1/agents/${AGENT_ID}/status`, { state: "idle", since_ms: Date.now() + 86_400_000 }, AGENT)).status, 200);
  const clamped = (await api.get(`/v1/agents/${AGENT_ID}/status`, INBOX)).body;
  assert.ok(clamped.since_ms <= clamped.reported_at_ms);
  // A report names no other agent and no other time, and carries text where text is shown.
  for (const report of [{ state: "idle", agent_id: "board-agent" }, { state: "idle", reported_at_ms: 9e15 }, { state: "idle", goal: { toString: 0 } }, { state: "idle", halt: "declined" }, { state: "idle", paused: "yes" }]) {
    const answer = await api.put(`/v1/agents/${AGENT_ID}/status`, report, AGENT);
    assert.equal(answer.status, 400, `${JSON.stringify(report)}: ${JSON.stringify(answer.body)}`);
  }
});

test("stop and resume through signed commands: the agent pauses, and on resume waits for the same proposal, never a copy", async () => {
  const api = guard.client;
  const code = await api.post("/v1/enrollments", { approver: "erin", roles: ["admin"] }, ADMIN);
  const { generateApproverKey } = await import("../../dist/guard/node.js");
  const key = await generateApproverKey({ keyId: "desk" });
  const registered = await api.post("/v1/approvers/erin/keys", { key_id: "desk", ...key.publicKey, enrollment_code: code.body.enrollment_code });
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  const erin = { ...key, keyId: registered.body.key_id };
  const send = async (line) => {
    const { version } = (await api.get(`/v1/agents/${AGENT_ID}/commands`, INBOX)).body;
    const sent = await api.post(`/v1/agents/${AGENT_ID}/commands`, { action: await humanAction("command", `agent:${AGENT_ID}`, erin, line, version) });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
  };
  const presence = async () => (await api.get(`/v1/agents/${AGENT_ID}/status`, INBOX)).body;
  const waiting = await waitFor(async () => {
    const status = await presence();
    return status?.state === "waiting" ? status : null;
  }, "the agent waiting for a person");
  const pendingBefore = await pendingProposals();
  assert.equal(pendingBefore.length, 1);

  await send("stop");
  await waitFor(async () => (await presence())?.state === "paused", "the agent paused");
  assert.equal(agent.loop.status().mode, "interrupted", "what it waited for is set aside");
  assert.equal((await pendingProposals()).length, 1, "the proposal stays for the person to see");

  const records = await agent.logTail();
  assert.ok(records.some((record) => record.event_summary === "human message" && /erin paused the agent/.test(record.cause)), JSON.stringify(records.slice(-8)));

  // A stop survives a restart of the agent: it comes back paused and judges nothing.
  agent.stop();
  agent = await startAgent();
  const judgedAtRestart = judgements;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(judgements, judgedAtRestart, "a paused agent judges nothing after a restart");
  assert.equal((await presence())?.state, "paused");

  // An instruction is never a developer command in disguise: the agent refuses it and says so.
  await send("instruction /dev whitelist add status_change");
  const refused = await waitFor(async () => {
    const last = (await api.get(`/v1/agents/${AGENT_ID}/commands`, INBOX)).body.commands.at(-1);
    return last.result ? last : null;
  }, "the instruction's result");
  assert.equal(refused.result.carried_out, false);
  assert.match(refused.result.detail, /may not start with the privileged prefix/);
  assert.deepEqual(agent.loop.state().rules.whitelist, []);

  await send("resume");
  const resumed = await waitFor(async () => {
    const status = await presence();
    return status?.state === "waiting" ? status : null;
  }, "the agent waiting again");
  assert.equal(resumed.approval_id, waiting.approval_id, "it waits for the same proposal");
  const pendingAfter = await pendingProposals();
  assert.deepEqual(pendingAfter.map((proposal) => proposal.approval_id), pendingBefore.map((proposal) => proposal.approval_id), "no copy was proposed");
});
