// Finding a decision in the history: a search over what a card says (agent, person, node, lines, reason) and a
// state to show, kept while the page is drawn again; and the older pages, read from the guard on request.
import { guardApi } from "./guard-api.js";
import { $, announce, words } from "./page.js";

/** Whether `approval` is one the person's search and state filter show. */
export function matchesHistoryFilter(state, approval) {
  const { text, state: wanted } = state.historyFilter;
  if (wanted && approval.state !== wanted) return false;
  if (!text) return true;
  const lines = approval.request_in?.[words(state).languageCode] ?? approval.request ?? {};
  const haystack = [
    approval.node_id,
    approval.agent_id,
    approval.state,
    words(state).states?.[approval.state],
    lines.what,
    lines.impact,
    approval.decision?.approver,
    approval.decision?.key_id,
    approval.decision?.reason,
    approval.proposed_change?.from,
    approval.proposed_change?.to,
  ]
    .filter((part) => typeof part === "string")
    .join("\n")
    .toLocaleLowerCase();
  return text
    .toLocaleLowerCase()
    .split(/\s+/u)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

/** The filter's controls: the states in the page's language, and their listeners (each change draws again). */
export function setUpHistoryFilter(state, render) {
  showStateOptions(state);
  $("history-search").addEventListener("input", (event) => {
    state.historyFilter.text = event.target.value.trim();
    render(state);
  });
  $("history-state").addEventListener("change", (event) => {
    state.historyFilter.state = event.target.value;
    render(state);
  });
  $("history-older").addEventListener("click", () => showOlder(state, render));
}

/** The state list in the page's language (called again when the language changes). */
export function showStateOptions(state) {
  const select = $("history-state");
  const chosen = state.historyFilter.state;
  const all = document.createElement("option");
  all.value = "";
  all.textContent = words(state).historyAll;
  const options = Object.entries(words(state).states ?? {}).map(([value, label]) => {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    return option;
  });
  select.replaceChildren(all, ...options);
  select.value = chosen;
}

/** The next page of the history: the approvals created before the oldest one this page has. */
async function showOlder(state, render) {
  const oldest = Math.min(...[...state.approvals.values()].map((approval) => approval.created_at_ms).filter((ms) => typeof ms === "number"));
  if (!Number.isFinite(oldest)) return;
  const button = $("history-older");
  button.disabled = true;
  try {
    const page = await guardApi.olderApprovals(oldest);
    if (page.status !== 200) throw new Error(page.body.message);
    for (const approval of page.body.approvals) if (!state.approvals.has(approval.approval_id)) state.approvals.set(approval.approval_id, approval);
    // A short page is the last one.
    state.historyComplete = page.body.approvals.length < 100;
    announce(words(state).historyLoaded(page.body.approvals.length));
    render(state);
  } catch (error) {
    announce(words(state).failed(error.message));
  } finally {
    button.disabled = false;
  }
}
