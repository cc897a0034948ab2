// The Command UI (seed 002's privileged channel), for approvers with the admin role: each command is a human
// action signed with the approver's key and sent to the guard, which hands it to the agent once and audits it
// as privileged. The list shows who sent what and whether the agent has taken it.
import { element, shown } from "./render.js";

/** The command's line as the agent receives it (what the approver signs). */
export function commandLine(verb, text) {
  const trimmed = text.trim();
  if (verb === "whitelist-add") return `whitelist add ${trimmed}`;
  if (verb === "whitelist-remove") return `whitelist remove ${trimmed}`;
  return ["stop", "resume", "discard"].includes(verb) ? verb : `${verb} ${trimmed}`;
}

/** Whether a verb needs text after it. */
export const needsText = (verb) => !["stop", "resume", "discard"].includes(verb);

/** Where a command stands: waiting for the agent, taken (its outcome not yet reported), carried out, or not. */
function commandState(command, words) {
  if (!command.taken_at_ms) return words.commandQueued;
  if (!command.result) return words.commandTaken;
  return command.result.carried_out ? words.commandDone : words.commandNotDone(shown(command.result.detail));
}

export function showCommands(list, commands, words) {
  if (commands.length === 0) {
    list.replaceChildren(element("li", { class: "muted", text: words.noCommands }));
    return;
  }
  list.replaceChildren(
    ...commands
      .slice(-20)
      .reverse()
      .map((command) =>
        element(
          "li",
          { "data-seq": String(command.seq) },
          element("span", { class: "agent-text", "data-verb": command.verb, text: shown(words.commandWords(command.verb, command.text)) }),
          element("span", { class: command.result && !command.result.carried_out ? "warning" : "muted", text: ` · ${shown(command.approver)} · ${commandState(command, words)}` }),
        ),
      ),
  );
}
