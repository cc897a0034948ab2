// Whether the page is live: the guard's feed open (live), just dropped (reconnecting), or down for longer than
// a moment (offline since when). While it is not live, the page's clock stops at the drop: the agent's elapsed
// time and the cards' ages are frozen, never counted on as if the agent were still doing what it last said.
import { $, words } from "./page.js";

/** How long a dropped feed reconnects before the page says it is offline. */
export const OFFLINE_AFTER_MS = 3000;

/** The feed opened or closed. */
export function connectionChanged(state, event) {
  const now = Date.now();
  if (event === "open") state.connection = { state: "live", since: now };
  // A failed reconnect keeps the moment of the drop.
  else if (state.connection.state === "live" || state.connection.state === "connecting") state.connection = { state: "reconnecting", since: now };
  showConnection(state);
}

/** Each second: a feed reconnecting for longer than OFFLINE_AFTER_MS is offline (since the drop). */
export function connectionTick(state) {
  const { state: now, since } = state.connection;
  if (now === "reconnecting" && Date.now() - since >= OFFLINE_AFTER_MS) {
    state.connection = { state: "offline", since };
    showConnection(state);
  }
}

/** The page's "now": the moment the feed dropped while it is not live (elapsed times freeze), else the clock. */
export function pageNow(state) {
  return ["reconnecting", "offline"].includes(state.connection.state) ? state.connection.since : Date.now();
}

export function showConnection(state) {
  const box = $("connection");
  const { state: now, since } = state.connection;
  box.dataset.state = now;
  box.classList.toggle("warning", now === "reconnecting" || now === "offline");
  box.textContent = words(state).connection(now, new Date(since).toLocaleTimeString(words(state).locale));
}
