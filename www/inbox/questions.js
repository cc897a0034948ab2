// What an agent waits on that is not an approval, as a card among the approvals: an interrupted agent asks
// whether to resume its task or discard it. Its answers are buttons; each is signed like any decision (the
// command `answer resume` or `answer discard`, which any approver may send) and taken by the agent once.
import { commandLine } from "./commands.js";
import { signAndSend } from "./agents.js";
import { element, shown } from "./render.js";
import { announce, needApprover, words } from "./page.js";

/** The agents waiting on a person's answer to a question, oldest first. */
export function questionsOf(state) {
  return [...state.agents.values()].filter((agent) => agent.state === "interrupted").sort((a, b) => (a.since_ms ?? 0) - (b.since_ms ?? 0));
}

/** The card of an interrupted agent's question: its own words (labelled), and the two answers. */
export function questionCard(state, agent) {
  const titleId = `question-${agent.agent_id}`;
  const box = element("div", { class: "actions" });
  for (const answer of ["resume", "discard"]) {
    const button = element("button", {
      type: "button",
      "data-action": `answer-${answer}`,
      ...(answer === "discard" ? { class: "secondary" } : {}),
      text: answer === "resume" ? words(state).answerResume : words(state).answerDiscard,
    });
    button.addEventListener("click", () => sendAnswer(state, agent.agent_id, answer, button));
    box.append(button);
  }
  return element(
    "li",
    // `data-id` keeps the focus on the card (or its button) when the page is drawn again.
    { class: "approval question", tabindex: "0", "data-id": `question:${agent.agent_id}`, "data-kind": "question", "data-agent": agent.agent_id, "aria-labelledby": titleId },
    element("p", { class: "what", id: titleId, text: words(state).questionTitle(shown(agent.agent_id)) }),
    element("p", { class: "impact muted", text: words(state).questionHelp }),
    agent.last_message
      ? element("dl", {}, element("dt", { text: words(state).agentSays }), element("dd", { class: "agent-text", "data-testid": "question-text", text: shown(agent.last_message) }))
      : null,
    box,
  );
}

/** Signs the answer as the command the agent receives and sends it; the agent's next report closes the card. */
async function sendAnswer(state, agentId, answer, button) {
  if (!needApprover(state) || button.disabled) return;
  button.disabled = true;
  try {
    await signAndSend(state, agentId, commandLine("answer", answer));
    announce(words(state).answerSent(answer === "resume" ? words(state).answerResume : words(state).answerDiscard));
  } catch (error) {
    announce(words(state).failed(error.message));
    button.disabled = false;
  }
}
