// Discord as seed 002's privileged channel, on the real edge guard (workerd): the interactions endpoint takes a
// request only with Discord's Ed25519 signature over timestamp + body (made here with a generated key pair in
// Discord's format and cross-checked with the discord-interactions package's verifier), recent and never seen
// before; slash commands from allow-listed users queue the agent's privileged commands; nothing from Discord
// approves a change; new approvals reach a Discord channel's webhook with a link to the inbox.
import assert from "node:assert/strict";
import { generateKeyPairSync, sign } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { InteractionResponseType, InteractionType, verifyKey } from "discord-interactions";
import { startTaskBoard } from "../../examples/task-board.mjs";
import { AGENT, nextNode, propose, startGuardService } from "./edge-service-support.mjs";

const { publicKey, privateKey } = generateKeyPairSync("ed25519");
// Discord shows the application's public key as 64 hex characters: the raw 32 bytes.
const publicKeyHex = publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("hex");
const ALLOWED = "80351110224678912";
const OUTSIDER = "111111111111111111";
const received = [];
let receiver;
let board;
let guard;
let interactionSeq = 0;

before(async () => {
  receiver = createServer(async (request, response) => {
    let raw = "";
    for await (const chunk of request) raw += chunk;
    received.push(JSON.parse(raw));
    response.writeHead(204);
    response.end();
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  board = await startTaskBoard();
  guard = await startGuardService(board, {
    vars: {
      DISCORD_PUBLIC_KEY: publicKeyHex,
      DISCORD_ALLOWED_USERS: `${ALLOWED}, 222`,
      DISCORD_AGENT_ID: "ops-agent",
      DISCORD_WEBHOOK_URL: `http://127.0.0.1:${receiver.address().port}/api/webhooks/1/x`,
      INBOX_URL: "https://inbox.example/inbox.html",
    },
  });
});

after(async () => {
  await guard?.dispose();
  await board?.close();
  receiver?.close();
});

/** A request as Discord sends it: the body, and the signature over timestamp + body, both in hex headers. */
function signed(body, { at = Math.floor(Date.now() / 1000), key = privateKey } = {}) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const timestamp = String(at);
  const signature = sign(null, Buffer.from(timestamp + text), key).toString("hex");
  return { text, headers: { "content-type": "application/json", "x-signature-ed25519": signature, "x-signature-timestamp": timestamp } };
}

const post = async ({ text, headers }) => {
  const response = await fetch(`${guard.url}/v1/discord/interactions`, { method: "POST", headers, body: text });
  return { status: response.status, body: await response.json() };
};

function command(name, options = [], user = ALLOWED) {
  interactionSeq += 1;
  return {
    id: `11${Date.now()}${interactionSeq}`,
    type: InteractionType.APPLICATION_COMMAND,
    data: { id: "1", name, type: 1, options: options.map(([optionName, value]) => ({ name: optionName, type: 3, value })) },
    member: { user: { id: user, username: "someone" } },
    token: "t",
    version: 1,
  };
}

const commands = async () => (await guard.client.get("/v1/agents/ops-agent/commands", AGENT)).body.commands;

test("a PING signed by Discord gets a PONG; the package's verifier agrees on every signature", async () => {
  const request = signed({ type: InteractionType.PING });
  assert.equal(await verifyKey(request.text, request.headers["x-signature-ed25519"], request.headers["x-signature-timestamp"], publicKeyHex), true);
  assert.deepEqual(await post(request), { status: 200, body: { type: InteractionResponseType.PONG } });

  const other = generateKeyPairSync("ed25519").privateKey;
  const forged = signed({ type: InteractionType.PING }, { key: other });
  assert.equal(await verifyKey(forged.text, forged.headers["x-signature-ed25519"], forged.headers["x-signature-timestamp"], publicKeyHex), false);
  assert.equal((await post(forged)).body.code, "signature_invalid");

  const altered = { ...request, text: request.text.replace("1", "2") };
  assert.equal(await verifyKey(altered.text, altered.headers["x-signature-ed25519"], altered.headers["x-signature-timestamp"], publicKeyHex), false);
  assert.equal((await post(altered)).status, 401);
});

test("bad, missing and stale signatures are 401 before anything is read; a replayed interaction is refused", async () => {
  const ping = signed({ type: InteractionType.PING });
  for (const headers of [{ "x-signature-ed25519": "" }, { "x-signature-timestamp": "" }, { "x-signature-ed25519": "zz" }, { "x-signature-timestamp": "soon" }]) {
    const answer = await post({ ...ping, headers: { ...ping.headers, ...headers } });
    assert.equal(answer.status, 401, JSON.stringify(headers));
    assert.equal(answer.body.code, "malformed");
  }
  // Ten minutes old: Discord's own verifier would take it; the guard does not.
  const stale = signed({ type: InteractionType.PING }, { at: Math.floor(Date.now() / 1000) - 600 });
  assert.equal(await verifyKey(stale.text, stale.headers["x-signature-ed25519"], stale.headers["x-signature-timestamp"], publicKeyHex), true);
  assert.deepEqual([(await post(stale)).status, (await post(stale)).body.code], [401, "stale"]);
  const notJson = signed("{not json");
  assert.equal((await post(notJson)).status, 400);

  const goal = signed(command("goal", [["text", "ship the Q3 report"]]));
  assert.equal((await post(goal)).status, 200);
  const replay = await post(goal);
  assert.equal(replay.status, 409);
  assert.equal(replay.body.code, "replayed");
  assert.equal((await commands()).filter((queued) => queued.text === "ship the Q3 report").length, 1);
});

test("slash commands from allow-listed users queue the agent's privileged commands; others queue nothing", async () => {
  const before = (await commands()).length;
  const answers = [];
  for (const [name, options] of [["goal", [["text", "close the sprint"]]], ["task", [["text", "triage the new bugs"]]], ["rules", [["text", "remove deploy"]]], ["stop", []], ["resume", []]]) {
    const answer = await post(signed(command(name, options)));
    assert.equal(answer.status, 200);
    assert.equal(answer.body.type, InteractionResponseType.CHANNEL_MESSAGE_WITH_SOURCE);
    assert.equal(answer.body.data.flags, 64, "the reply is shown to its sender only");
    answers.push(answer.body.data.content);
  }
  assert.match(answers[0], /^Queued for ops-agent \(command \d+\): goal close the sprint$/);
  const queued = (await commands()).slice(before);
  assert.deepEqual(queued.map((item) => [item.verb, item.text, item.approver]), [
    ["goal", "close the sprint", `discord:${ALLOWED}`],
    ["instruction", "triage the new bugs", `discord:${ALLOWED}`],
    ["whitelist", "remove deploy", `discord:${ALLOWED}`],
    ["stop", "", `discord:${ALLOWED}`],
    ["resume", "", `discord:${ALLOWED}`],
  ]);

  const outsider = await post(signed(command("stop", [], OUTSIDER)));
  assert.match(outsider.body.data.content, /not allowed/);
  // Discord approves nothing: putting a type on the whitelist (running it unasked) is refused.
  const widen = await post(signed(command("rules", [["text", "add deploy"]])));
  assert.match(widen.body.data.content, /^Not queued: from Discord a rule can only take a type off the whitelist/);
  // Only the agents this channel is for.
  const elsewhere = await post(signed(command("stop", [["agent", "prod-agent"]])));
  assert.match(elsewhere.body.data.content, /^Not queued: this channel commands ops-agent, not prod-agent/);
  const invalid = await post(signed(command("rules", [["text", "delete everything"]])));
  assert.match(invalid.body.data.content, /^Not queued: `whitelist` is/);
  const unknown = await post(signed(command("approve", [["text", "all"]])));
  assert.match(unknown.body.data.content, /^Unknown command/);
  const mention = await post(signed(command("goal", [["text", "ping @everyone \u202etxt.exe"]])));
  assert.deepEqual(mention.body.data.allowed_mentions, { parse: [] });
  assert.doesNotMatch(mention.body.data.content, /\u202e/);
  assert.equal((await commands()).length, before + 6);
});

test("Discord never approves: a button press is not a decision; new approvals reach the channel with a link", async () => {
  const node = nextNode();
  board.board.set(node, "todo");
  const approval = await propose(guard.client, node);
  interactionSeq += 1;
  const press = { id: `12${Date.now()}${interactionSeq}`, type: InteractionType.MESSAGE_COMPONENT, data: { custom_id: `approve:${approval.approval_id}`, component_type: 2 }, member: { user: { id: ALLOWED } } };
  assert.match((await post(signed(press))).body.data.content, /slash commands only/);
  assert.equal((await guard.client.get(`/v1/approvals/${approval.approval_id}`)).body.state, "pending");

  const deadline = Date.now() + 15_000;
  while (!received.some((message) => message.content.includes(approval.approval_id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const message = received.find((item) => item.content.includes(approval.approval_id));
  assert.ok(message, JSON.stringify(received));
  // Markdown escaped (shown as written), no previews, the link last.
  const escaped = (text) => text.replace(/[\\`*_~|>#[\]()<:-]/g, (character) => `\\${character}`);
  const text = `New approval waiting: Execute: status_change on ${node}: todo -> in_progress (Impact: ${node}). Approval ${approval.approval_id}.`;
  assert.equal(message.content, `${escaped(text)} https://inbox.example/inbox.html#approval-${approval.approval_id}`);
  assert.deepEqual(message.allowed_mentions, { parse: [] });
  assert.equal(message.flags, 4);

  // An agent's link in a change is text there, not a link.
  const phishing = nextNode();
  board.board.set(phishing, "todo");
  const bait = await propose(guard.client, phishing, { type: "status_change", from: "todo", to: "[Approve here](https://evil.example/login)" });
  const deadline2 = Date.now() + 15_000;
  while (!received.some((item) => item.content.includes(bait.approval_id)) && Date.now() < deadline2) await new Promise((resolve) => setTimeout(resolve, 100));
  const baited = received.find((item) => item.content.includes(bait.approval_id));
  assert.match(baited.content, /\\\[Approve here\\\]\\\(https\\:\/\/evil\.example\/login\\\)/);
});
