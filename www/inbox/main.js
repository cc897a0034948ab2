// The approval inbox: the guard's pending approvals, live from its feed; approve with this device's key or a
// passkey, decline with a signed reason; cancel an unused approval; reconcile one whose Apply's outcome is
// unknown; pick a transition for one the node moved on from (reconfirm); history with outcomes and audit
// trails; the agent's presence and logs; the Command UI for admins. y and n act only on the focused
// approval, never from an editable field or with a modifier held; a decline waits a few seconds and can be
// undone; a device key's approval asks for a second y. Signing needs no wasm (`agent-governor/approver`);
// the guard module is loaded once, for the text the page shows (`displaySafe`).
// This file is the page's entry (inbox.html loads it): it boots the page and wires its parts, which share
// one state object (page.js).
import { init } from "agent-governor/guard/init";
import { loadApprover } from "./approver-keys.js";
import { $, createState, words } from "./page.js";
import { applyLanguage, chooseLanguage } from "./language.js";
import { render } from "./approval-list.js";
import { loadRoles } from "./approver.js";
import { setUpRegistration } from "./registration.js";
import { loadAgents, setUpCommandForm } from "./agents.js";
import { setUpInvite } from "./invite.js";
import { loadMandates, setUpMandates } from "./mandates.js";
import { offerNotifications } from "./notifications.js";
import { listenForKeys } from "./keyboard.js";
import { refresh } from "./sync.js";
import { followLive, startPolls } from "./live.js";
import { setUpHistoryFilter } from "./history-filter.js";

// Without the guard module the page cannot show an agent's text safely (displaySafe): it stops, and says why.
await init().catch((error) => {
  const alert = document.createElement("p");
  alert.className = "warning";
  alert.setAttribute("role", "alert");
  alert.textContent = `The guard module could not be loaded, so nothing is shown (ガードモジュールを読み込めませんでした): ${error.message}`;
  document.body.prepend(alert);
  throw error;
});

const state = createState();

async function main() {
  chooseLanguage(state);
  const config = await (await fetch("/config.json")).json();
  state.localAgent = typeof config.agent?.id === "string" ? config.agent.id : null;
  $("agent-select").addEventListener("change", async (event) => {
    state.pickedAgent = event.target.value || null;
    await loadAgents(state);
    render(state);
  });
  if (!config.guard) {
    $("approver-status").textContent = words(state).noGuard;
    return;
  }
  state.rpId = config.guard.rpId;
  state.approver = (await loadApprover()) ?? null;
  await setUpRegistration(state);
  setUpCommandForm(state);
  setUpInvite(state);
  setUpMandates(state);
  setUpHistoryFilter(state, render);
  offerNotifications(state);
  listenForKeys(state);
  await loadRoles(state);
  await loadAgents(state);
  applyLanguage(state);
  await refresh(state);
  await loadMandates(state);
  followLive(state);
  startPolls(state);
  document.body.dataset.ready = "true";
}

main();
