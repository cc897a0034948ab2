// Discord, seed 002's privileged channel: an interactions endpoint (`POST /v1/discord/interactions`, set as
// the application's Interactions Endpoint URL). Every request must carry Discord's Ed25519 signature over its
// timestamp and body, verified in the core with the application's public key (DISCORD_PUBLIC_KEY), recent,
// and not seen before (its interaction id is recorded). Slash commands from allow-listed Discord users
// (DISCORD_ALLOWED_USERS, comma-separated user ids) become the control loop's privileged commands for the
// agent (the `agent` option among DISCORD_AGENTS, or DISCORD_AGENT_ID): /goal, /task, /rules (only `remove
// <type>`: a type taken off the whitelist is asked about again), /stop, /resume. Discord never approves a
// change: approvals, and putting a type on the whitelist, stay signed by approvers' keys in the inbox.
import { displaySafe, readJson, verifyDiscordRequest } from "agent-governor/guard";
import { agentId, commandView, readCommand } from "./agent-channel.js";
import { HttpError, MAX_BODY_DEPTH, json } from "./http.js";

/** Discord's interaction and response types, and the flag that shows a reply to its sender only. */
const PING = 1;
const APPLICATION_COMMAND = 2;
const PONG = 1;
const CHANNEL_MESSAGE = 4;
const EPHEMERAL = 64;
/** How long an interaction id is remembered: longer than a signed request is accepted (5 minutes). */
const SEEN_FOR_MS = 10 * 60 * 1000;

/** Each slash command's verb for the agent, and how its text option reads. */
const COMMANDS = {
  goal: { verb: "goal", text: "required" },
  task: { verb: "instruction", text: "required" },
  rules: { verb: "whitelist", text: "required" },
  stop: { verb: "stop", text: "none" },
  resume: { verb: "resume", text: "none" },
};

const reply = (content) => json({ type: CHANNEL_MESSAGE, data: { content: displaySafe(content).slice(0, 2000), flags: EPHEMERAL, allowed_mentions: { parse: [] } } });

/** The string value of option `name` of a slash command, or null. */
function option(data, name) {
  const options = Array.isArray(data?.options) ? data.options : [];
  const found = options.find((item) => item?.name === name);
  return typeof found?.value === "string" ? found.value : null;
}

/**
 * Answers one interaction. `inbox` gives the database, the environment, the audit trail and the live feed.
 * A request that is not Discord's is a 401 before anything in it is read.
 */
export async function discordInteraction(inbox, request) {
  const { env, db } = inbox;
  if (!env.DISCORD_PUBLIC_KEY) throw new HttpError(404, "not_found", "Discord is not configured on this guard (DISCORD_PUBLIC_KEY)");
  const bytes = new Uint8Array(await request.arrayBuffer());
  let body;
  try {
    // The signed bytes exactly: a leading BOM is kept (the default decoder would drop it).
    body = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new HttpError(401, "signature_invalid", "the request body is not UTF-8, so it is not Discord's");
  }
  let verdict;
  try {
    verdict = verifyDiscordRequest(env.DISCORD_PUBLIC_KEY, request.headers.get("x-signature-ed25519") ?? "", request.headers.get("x-signature-timestamp") ?? "", body);
  } catch (error) {
    if (error?.code === "invalid_key") throw new HttpError(500, "misconfigured", `DISCORD_PUBLIC_KEY: ${error.message}`);
    throw new HttpError(401, "signature_invalid", error?.message ?? "the request could not be verified");
  }
  if (verdict.verdict !== "valid") throw new HttpError(401, verdict.code, verdict.reason);

  let interaction;
  try {
    interaction = readJson(body, MAX_BODY_DEPTH);
  } catch (error) {
    throw new HttpError(400, "invalid_input", error?.message ?? "the body is not JSON");
  }
  if (interaction === null || typeof interaction !== "object" || Array.isArray(interaction)) throw new HttpError(400, "invalid_input", "an interaction is a JSON object");
  if (interaction.type === PING) return json({ type: PONG });
  // A signed request is taken once: the same interaction sent again within the window is refused.
  const now = Date.now();
  if (typeof interaction.id !== "string" || interaction.id === "" || interaction.id.length > 64) throw new HttpError(400, "invalid_input", "an interaction has an id", "id");
  if (!db.recordDiscordInteraction(interaction.id, now, now - SEEN_FOR_MS)) {
    throw new HttpError(409, "replayed", `interaction ${interaction.id} was received already`);
  }
  if (interaction.type !== APPLICATION_COMMAND) return reply("This guard answers slash commands only.");

  const user = interaction.member?.user?.id ?? interaction.user?.id;
  const allowed = (env.DISCORD_ALLOWED_USERS ?? "").split(",").map((id) => id.trim()).filter(Boolean);
  const name = interaction.data?.name;
  if (typeof user !== "string" || !allowed.includes(user)) {
    db.appendAudit(now, null, "discord_refused", { user: typeof user === "string" ? user : null, command: typeof name === "string" ? name : null });
    return reply("You are not allowed to command this agent. An administrator adds your Discord user id to DISCORD_ALLOWED_USERS.");
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : null;
  if (command === null) return reply(`Unknown command. Use ${Object.keys(COMMANDS).map((known) => `/${known}`).join(", ")}.`);
  const text = option(interaction.data, "text");
  const line = command.text === "none" ? command.verb : `${command.verb} ${text ?? ""}`;
  let agent;
  let read;
  try {
    agent = agentId(option(interaction.data, "agent") ?? env.DISCORD_AGENT_ID);
    read = readCommand(line);
  } catch (error) {
    return reply(`Not queued: ${error.message}`);
  }
  // Only the agents this channel is for (DISCORD_AGENTS, else DISCORD_AGENT_ID).
  const agents = (env.DISCORD_AGENTS ?? env.DISCORD_AGENT_ID ?? "").split(",").map((id) => id.trim()).filter(Boolean);
  if (!agents.includes(agent)) return reply(`Not queued: this channel commands ${agents.join(", ") || "no agent"}, not ${agent}.`);
  // Discord approves nothing: a rule from here may only take a type off the whitelist (ask for approval
  // again), never put one on it (which would let its actions run unasked). That needs an admin's signature.
  if (read.verb === "whitelist" && !read.text.startsWith("remove ")) {
    return reply("Not queued: from Discord a rule can only take a type off the whitelist (`remove <type>`). Adding one needs an admin's signed command in the inbox.");
  }
  const row = db.insertAgentCommand({ agentId: agent, at: now, approver: `discord:${user}`, keyId: "discord", ...read });
  db.appendAudit(now, null, "privileged_command", { agent_id: agent, seq: row.seq, verb: read.verb, text: read.text, approver: `discord:${user}`, channel: "discord", interaction: interaction.id });
  inbox.broadcast({ type: "command", command: commandView(row) });
  return reply(`Queued for ${agent} (command ${row.seq}): ${read.verb}${read.text ? ` ${read.text}` : ""}`);
}
