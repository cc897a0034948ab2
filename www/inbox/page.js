// What every part of the inbox page shares: its state (one object, made by main.js and passed to each part,
// which reads and changes it in place), the element lookup, the announcer, the words in the page's language,
// and the check that this device has an approver key before anything is signed.
import { wordsFor } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

/** The page's state, every field the parts share: they change its fields, never the object itself. */
export function createState() {
  return {
    approvals: new Map(),
    // A counter of updates: which feed message came after which list fetch began, so a slow fetch never
    // overwrites a newer view from the feed.
    clock: 0,
    updatedAt: new Map(),
    trails: new Map(),
    agentLog: null,
    approver: null,
    // This approver's keys and roles as the guard holds them (null until read).
    keyView: null,
    isAdmin: false,
    registering: false,
    language: "en",
    rpId: "localhost",
    busy: new Set(),
    // When each pending card was first on screen (performance.now()), for the time it was read before its decision.
    shownAt: new Map(),
    agents: new Map(),
    // The agent the person picked, and the one the local server runs beside the inbox (npm start).
    pickedAgent: null,
    localAgent: null,
    // The node's state now, per pending approval (the skill's Preview through the guard).
    facts: new Map(),
    commands: [],
    sendingCommand: false,
    // A command waiting out its undo window: { agentId, verb, text, detail, deadline, timer, tick }.
    pendingCommand: null,
    // Declines waiting out their undo window: approval id -> { timer, deadline, reason }.
    declining: new Map(),
    // The guard's feed: connecting, live, reconnecting or offline, since when (connection.js).
    connection: { state: "connecting", since: Date.now() },
    // The history's search and state filter, and whether its oldest page was read.
    historyFilter: { text: "", state: "", from: "", to: "" },
    historyComplete: false,
    // The pending approval whose edit controls are open (one at a time), or null.
    editing: null,
    // A tool call's edit: the guard's schema and arguments by approval id, and whose JSON editor is open.
    editOptions: new Map(),
    editJsonOpen: new Set(),
    editTouched: new Map(),
    // A device key's first y: the approval id and until when a second y approves.
    confirming: null,
    // Where the focus goes once a decision settles: a pending approval's id, null for the first one waiting,
    // undefined for nowhere (no decision under way).
    afterDecline: undefined,
    // The feed's bursts: one refresh of the trails and one read of the agent's log, a moment later.
    refreshTimer: undefined,
    logTimer: undefined,
  };
}

/** The page's words in its language now. */
export const words = (state) => wordsFor(state.language);

export function announce(text) {
  $("announcer").textContent = text;
}

/** Whether this device has an approver key; without one, says so and takes the person to the name field. */
export function needApprover(state) {
  if (state.approver) return true;
  announce(words(state).notRegistered);
  $("approver-name").focus();
  return false;
}
