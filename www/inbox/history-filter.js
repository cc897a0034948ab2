// Finding a decision in the history: a search over what a card says (agent, person, node, lines, reason), a
// state and the days it was proposed on (from, to: the reader's own calendar days), kept while the page is
// drawn again; and the older pages, read from the guard on request.
import { guardApi } from "./guard-api.js";
import { $, announce, words } from "./page.js";

/** Whether `approval` is one the person's search and state filter show. */
export function matchesHistoryFilter(state, approval) {
  const { text, state: wanted, from, to } = state.historyFilter;
  if (wanted && approval.state !== wanted) return false;
  if ((from || to) && !onDays(approval.created_at_ms, from, to)) return false;
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

/**
 * Whether a time (the guard's milliseconds) falls on a day from `from` to `to` (`YYYY-MM-DD`, either may be
 * empty), days as the reader's calendar counts them. A time that is not a number is on no day.
 */
export function onDays(ms, from, to) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return false;
  const at = new Date(ms);
  const day = `${String(at.getFullYear()).padStart(4, "0")}-${String(at.getMonth() + 1).padStart(2, "0")}-${String(at.getDate()).padStart(2, "0")}`;
  return (!from || day >= from) && (!to || day <= to);
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
  for (const bound of ["from", "to"]) {
    // A date input's value is "" or a whole YYYY-MM-DD day; anything else (a half-typed day) filters nothing.
    $(`history-${bound}`).addEventListener("change", (event) => {
      state.historyFilter[bound] = /^\d{4}-\d{2}-\d{2}$/.test(event.target.value) ? event.target.value : "";
      render(state);
    });
  }
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
