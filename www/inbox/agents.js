// The agent this inbox shows and commands: which one (a choice when there are several), its presence, and
// the Command form, whose commands are signed exactly as the agent will receive them and sent through the guard.
import { guardApi } from "./guard-api.js";
import { duration } from "./durations.js";
import { signHumanAction } from "./approver-keys.js";
import { showPresence } from "./presence.js";
import { commandLine, needsText, showCommands } from "./commands.js";
import { element, shown } from "./render.js";
import { $, announce, needApprover, words } from "./page.js";
import { pageNow } from "./connection.js";

/**
 * The agent this inbox shows and commands: the one the person picked, else the one the local server runs
 * beside it (npm start), else the only one; with several and none picked, the person picks (never guessed).
 */
function currentAgent(state) {
  const wanted = state.pickedAgent ?? state.localAgent;
  if (wanted) return state.agents.get(wanted) ?? null;
  return state.agents.size === 1 ? [...state.agents.values()][0] : null;
}

export function showPresenceNow(state) {
  showAgentPicker(state);
  try {
    showPresence($("presence"), currentAgent(state), words(state), pageNow(state), {
      isAdmin: state.approver !== null && state.isAdmin,
      knownApproval: (id) => state.approvals.has(id),
      // The approval's first line as the core rendered it in the page's language, when this inbox has it.
      linesOf: (id) => state.approvals.get(id)?.request_in?.[words(state).languageCode]?.what ?? state.approvals.get(id)?.request?.what ?? null,
    });
  } catch (error) {
    $("presence").replaceChildren(element("p", { class: "warning", text: words(state).failed(error.message) }));
  }
  const agent = currentAgent(state);
  $("command-to").textContent = agent ? words(state).commandTo(shown(agent.agent_id)) : words(state).presenceNone;
  $("command-send").disabled = !agent;
}

/** With more than one agent, a choice of which to show and command. */
function showAgentPicker(state) {
  const picker = $("agent-picker");
  const ids = [...state.agents.keys()].sort();
  picker.hidden = ids.length < 2;
  if (picker.hidden) return;
  const select = $("agent-select");
  const current = currentAgent(state)?.agent_id ?? "";
  if ([...select.options].map((option) => option.value).join("\n") !== ["", ...ids].join("\n")) {
    select.replaceChildren(element("option", { value: "", text: "—" }), ...ids.map((id) => element("option", { value: id, text: shown(id) })));
  }
  select.value = current;
}

export async function loadAgents(state) {
  const answer = await guardApi.agents().catch(() => null);
  if (answer?.status === 200) for (const status of answer.body.agents) state.agents.set(status.agent_id, status);
  const agent = currentAgent(state);
  if (agent && state.isAdmin) {
    const listed = await guardApi.commands(agent.agent_id).catch(() => null);
    if (listed?.status === 200) state.commands = listed.body.commands;
  }
}

/**
 * How long a command other than `stop` waits, with Undo and Send now, before it is signed and sent (an
 * instruction or a new goal redirects the agent; a stop is the brake and goes at once).
 */
const COMMAND_UNDO_MS = 5000;

/** The Command form: Sign and send, and the text field only for a verb that takes text. */
export function setUpCommandForm(state) {
  $("command-form").addEventListener("submit", (event) => {
    event.preventDefault();
    queueCommand(state);
  });
  $("command-undo").addEventListener("click", () => undoCommand(state));
  $("command-now").addEventListener("click", () => {
    const pending = takePendingCommand(state);
    if (pending) sendCommand(state, pending);
  });
  $("command-verb").addEventListener("change", () => {
    $("command-text").disabled = !needsText($("command-verb").value);
  });
}

/**
 * A person's reply to the agent of an approval, deciding nothing: signed as the command `reply <text>` (any
 * approver may send one) and read by the agent before its next step. Resolves to whether it was sent.
 */
export async function sendReply(state, agentId, text) {
  if (!needApprover(state)) return false;
  // Nothing typed is nothing to send; what counts as blank beyond that the guard decides (and says).
  if (text === "") {
    announce(words(state).replyEmpty);
    return false;
  }
  try {
    await signAndSend(state, agentId, commandLine("reply", text));
    announce(words(state).replySent);
    return true;
  } catch (error) {
    announce(words(state).failed(error.message));
    return false;
  }
}

/**
 * Signs the command line `detail` for agent `agentId`'s channel (made for its current version) and sends it
 * through the guard; keeps the guard's view of it in the page's list. Throws with the guard's words.
 */
export async function signAndSend(state, agentId, detail) {
  const listed = await guardApi.commands(agentId);
  if (listed.status !== 200) throw new Error(listed.body.message);
  const action = await signHumanAction(state.approver, { action: "command", approval_id: `agent:${agentId}`, version: listed.body.version, detail, at: new Date().toISOString(), key_id: null });
  const sent = await guardApi.sendCommand(agentId, action);
  if (sent.status !== 201) throw new Error(sent.body.message);
  state.commands = [...state.commands.filter((known) => known.seq !== sent.body.seq), sent.body].sort((a, b) => a.seq - b.seq);
  return sent.body;
}

/** The form's command, checked; a stop goes at once, any other waits COMMAND_UNDO_MS, visibly, and can be undone. */
function queueCommand(state) {
  const agent = currentAgent(state);
  if (!agent) return announce(words(state).presenceNone);
  if (!needApprover(state)) return;
  const verb = $("command-verb").value;
  const text = $("command-text").value;
  // The brake is never held back: a stop goes at once, whatever waits or is being sent, and a command still
  // in its window is not sent after it (said so).
  if (verb === "stop") {
    const waiting = takePendingCommand(state);
    if (waiting) announce(words(state).commandDropped(words(state).commandWords(...verbAndText(waiting.detail))));
    return sendCommand(state, { agentId: agent.agent_id, verb, text, detail: commandLine(verb, text) }, { brake: true });
  }
  if (state.sendingCommand || state.pendingCommand) return announce(words(state).commandBusy);
  if (needsText(verb) && text.trim() === "") {
    announce(words(state).commandNeedsText);
    $("command-text").focus();
    return;
  }
  const command = { agentId: agent.agent_id, verb, text, detail: commandLine(verb, text) };
  const deadline = Date.now() + COMMAND_UNDO_MS;
  const show = () => {
    $("command-pending-text").textContent = words(state).commandSending(words(state).commandWords(...verbAndText(command.detail)), command.agentId, duration(Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) * 1000, words(state).locale));
  };
  state.pendingCommand = {
    ...command,
    deadline,
    tick: setInterval(show, 1000),
    timer: setTimeout(() => {
      const pending = takePendingCommand(state);
      if (pending) sendCommand(state, pending);
    }, COMMAND_UNDO_MS),
  };
  show();
  // Sign and send stays enabled: a stop must always be one press away.
  $("command-pending").hidden = false;
  announce($("command-pending-text").textContent);
  // The undo button has the focus: Enter or Space takes the command back.
  $("command-undo").focus();
}

/** The verb and text of a command line, as the guard reads them (`whitelist add x` is the verb `whitelist`). */
function verbAndText(detail) {
  const space = detail.indexOf(" ");
  return space < 0 ? [detail, ""] : [detail.slice(0, space), detail.slice(space + 1)];
}

/** The command waiting out its window, taken once (by the timer, Send now or Undo), its window closed. */
function takePendingCommand(state) {
  const pending = state.pendingCommand;
  if (!pending) return null;
  clearTimeout(pending.timer);
  clearInterval(pending.tick);
  state.pendingCommand = null;
  $("command-pending").hidden = true;
  return pending;
}

function undoCommand(state) {
  const pending = takePendingCommand(state);
  if (!pending) return;
  // What was typed is given back, so nothing is lost (and nothing typed since is overwritten).
  if ($("command-text").value === "" || $("command-text").value === pending.text) {
    $("command-verb").value = pending.verb;
    $("command-text").disabled = !needsText(pending.verb);
    $("command-text").value = pending.text;
  }
  announce(words(state).commandUndone);
  $("command-text").focus();
}

/** Signs the command exactly as the agent will receive it and sends it through the guard. */
async function sendCommand(state, { agentId, detail, text }, { brake = false } = {}) {
  if (state.sendingCommand && !brake) return;
  state.sendingCommand = true;
  try {
    await signAndSend(state, agentId, detail);
    if ($("command-text").value === text) $("command-text").value = "";
    announce(words(state).commandSent(words(state).commandWords(...verbAndText(detail))));
    showCommands($("commands"), state.commands, words(state));
  } catch (error) {
    announce(words(state).failed(error.message));
  } finally {
    state.sendingCommand = false;
  }
}
