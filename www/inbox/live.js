// What keeps the page current: the guard's live feed (each change of an approval, each agent's presence,
// each command) and the polls beside it (the cards' times, the presence's elapsed times, the pending cards'
// node facts, the agent's log).
import { followFeed } from "./guard-api.js";
import { showCommands } from "./commands.js";
import { render } from "./approval-list.js";
import { refresh, refreshAgentLog, refreshFacts } from "./sync.js";
import { showPresenceNow } from "./agents.js";
import { notify } from "./notifications.js";
import { $, announce, words } from "./page.js";
import { connectionChanged, connectionTick, showConnection } from "./connection.js";

/** How often the pending cards' node facts are read again. */
const FACTS_REFRESH_MS = 5000;

/** Follows the guard's feed (it reconnects by itself after a drop). */
export function followLive(state) {
  followFeed({
    approval(approval) {
      const known = state.approvals.has(approval.approval_id);
      state.approvals.set(approval.approval_id, approval);
      state.updatedAt.set(approval.approval_id, ++state.clock);
      const arrived = !known && approval.state === "pending";
      if (arrived) {
        announce(words(state).newApproval(approval.request.what));
        notify(state, approval);
      }
      render(state);
      // y and n work on the new card at once when the person was on no card waiting (nowhere, or a decided
      // one); never taken from a field or a card still waiting.
      if (arrived) {
        const active = document.activeElement;
        const onDecided = active?.closest?.(".approval") && !active.closest("#pending");
        if (!active || active === document.body || onDecided) document.querySelector(`#pending .approval[data-id="${CSS.escape(approval.approval_id)}"]`)?.focus();
      }
      // The audit trails and the agent's log follow a moment later, once for a burst of changes.
      clearTimeout(state.refreshTimer);
      state.refreshTimer = setTimeout(() => refresh(state), 300);
    },
    agent(status) {
      const before = state.agents.get(status.agent_id);
      state.agents.set(status.agent_id, status);
      // The agent saw the board change: the pending cards' facts are read again.
      if (before && before.board_seen_ms !== status.board_seen_ms) refreshFacts(state);
      if (before?.state !== status.state) announce(words(state).presence?.[status.state] ?? status.state);
      // An agent that starts or stops asking a question (interrupted) adds or removes its card.
      if ((before?.state === "interrupted") !== (status.state === "interrupted")) render(state);
      else showPresenceNow(state);
      clearTimeout(state.logTimer);
      state.logTimer = setTimeout(() => refreshAgentLog(state), 300);
    },
    connection(event) {
      const wasDown = ["reconnecting", "offline"].includes(state.connection.state);
      connectionChanged(state, event);
      // Back after a drop: what changed meanwhile is read again; down: the frozen times are drawn once.
      if (event === "open" && wasDown) refresh(state);
      else render(state);
    },
    command(command) {
      state.commands = [...state.commands.filter((known) => known.seq !== command.seq), command].sort((a, b) => a.seq - b.seq);
      showCommands($("commands"), state.commands, words(state));
    },
  });
}

/** The polls: what the feed does not bring, or what changes with time alone. */
export function startPolls(state) {
  setInterval(() => render(state), 30_000);
  // The elapsed times of the agent's presence, and whether the feed is still down.
  showConnection(state);
  setInterval(() => {
    connectionTick(state);
    showPresenceNow(state);
  }, 1000);
  // The board may change without the agent: the pending cards' facts are read again every few seconds.
  setInterval(() => {
    if ([...state.approvals.values()].some((approval) => approval.state === "pending")) refreshFacts(state);
  }, FACTS_REFRESH_MS);
  setInterval(() => refreshAgentLog(state), 5_000);
}
