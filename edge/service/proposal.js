// A proposal from the agent, checked field by field, and the approval the inbox and the agent see.

import { changeLines, formatTime, parseTime, readJson, stateVersion, toolCallChange } from "agent-governor/guard";
import { HttpError, onlyKeys, requireText } from "./http.js";

export const APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;
const PROPOSAL_FIELDS = ["node_id", "proposed_change", "intent", "reason", "summary", "impact_scope", "evidence", "agent_id"];
const EVIDENCE_FIELDS = ["closer", "watcher"];

function singleLine(value, path) {
  if (value !== null && /[\r\n]/.test(value)) {
    throw new HttpError(400, "invalid_input", `\`${path}\` must be one line: the request is exactly two lines`, path);
  }
  return value;
}

/**
 * A tool call is exactly what the core makes of the tool and its arguments: `from` empty, `to` the arguments
 * (a JSON object) as canonical JSON. Anything else would be signed as one thing and run as another.
 */
function requireToolCall(nodeId, change) {
  let args;
  try {
    args = readJson(change.to, 64);
  } catch (error) {
    throw new HttpError(400, "invalid_input", `a tool call's \`to\` is its arguments as JSON: ${error?.message ?? error}`, "proposed_change.to");
  }
  let made;
  try {
    made = toolCallChange(typeof nodeId === "string" ? nodeId : "", args);
  } catch (error) {
    throw new HttpError(400, "invalid_input", error?.message ?? String(error), error?.path ?? "proposed_change");
  }
  if (change.from !== made.proposed_change.from || change.to !== made.proposed_change.to || nodeId !== made.node_id) {
    throw new HttpError(400, "invalid_input", "a tool call's change is { type: \"tool_call\", from: \"\", to: <its arguments as canonical JSON> } on the tool's name", "proposed_change");
  }
}

/** The longest tool call's arguments, as canonical JSON, that a person is asked to read and sign. */
export const MAX_TOOL_CALL_TEXT = 16 * 1024;

/** Reads a proposal body; the change's type must have a skill configured (nothing else could apply it). */
export function readProposal(body, skillTypes) {
  onlyKeys(body, PROPOSAL_FIELDS);
  const change = body.proposed_change;
  if (change === null || typeof change !== "object" || Array.isArray(change)) {
    throw new HttpError(400, "invalid_input", "`proposed_change` must be { type, from, to }", "proposed_change");
  }
  onlyKeys(change, ["type", "from", "to"], "proposed_change");
  const proposed_change = {
    type: requireText(change.type, "proposed_change.type", { max: 128 }),
    from: typeof change.from === "string" ? change.from : requireText(change.from, "proposed_change.from"),
    // A tool call's arguments as canonical JSON are longer than a status; the request body bounds them too.
    to: requireText(change.to, "proposed_change.to", { max: change.type === "tool_call" ? MAX_TOOL_CALL_TEXT : 512 }),
  };
  if (proposed_change.from.length > 512) throw new HttpError(400, "invalid_input", "`proposed_change.from` is too long", "proposed_change.from");
  if (proposed_change.type === "tool_call") requireToolCall(body.node_id, proposed_change);
  if (!skillTypes.includes(proposed_change.type)) {
    throw new HttpError(422, "no_skill", `no skill is configured for change type \`${proposed_change.type}\`; configured: ${skillTypes.join(", ") || "none"}`, "proposed_change.type");
  }
  const evidence = body.evidence ?? null;
  if (evidence !== null) {
    if (typeof evidence !== "object" || Array.isArray(evidence)) {
      throw new HttpError(400, "invalid_input", "`evidence` must be { closer?, watcher? }", "evidence");
    }
    onlyKeys(evidence, EVIDENCE_FIELDS, "evidence");
    for (const name of EVIDENCE_FIELDS) {
      const item = evidence[name];
      if (item !== undefined && item !== null && (typeof item !== "object" || Array.isArray(item))) {
        throw new HttpError(400, "invalid_input", `\`evidence.${name}\` must be the component's result object`, `evidence.${name}`);
      }
    }
  }
  const node_id = requireText(body.node_id, "node_id", { max: 256 });
  const summary = singleLine(requireText(body.summary, "summary", { max: 300, optional: true }), "summary");
  const impactScope = singleLine(requireText(body.impact_scope, "impact_scope", { max: 300, optional: true }), "impact_scope");
  return {
    node_id,
    proposed_change,
    intent: requireText(body.intent, "intent"),
    agent_reason: requireText(body.reason, "reason", { optional: true }),
    agent_id: requireText(body.agent_id, "agent_id", { max: 128, optional: true }),
    // What a person reads is rendered by the core from the change itself; the agent's words are a note.
    request: requestLines(node_id, proposed_change),
    agent_note: summary === null && impactScope === null ? null : { summary, impact_scope: impactScope },
    evidence: evidence === null ? null : { closer: evidence.closer ?? null, watcher: evidence.watcher ?? null },
  };
}

/** The two lines of an approval request, from the change: `{ what: "Execute: ...", impact: "Impact: ..." }`. */
export function requestLines(nodeId, change, language = "en") {
  const [what, impact] = changeLines(nodeId, change, language);
  return { what, impact };
}

const iso = (millis) => (millis === null || millis === undefined ? null : formatTime(millis));

/** A stored time read by the core, or null when absent or unreadable. */
function coreTime(text) {
  if (typeof text !== "string") return null;
  try {
    return parseTime(text);
  } catch {
    return null;
  }
}

/** When a stored confirmation was confirmed, read by the core; null when the stored text is unreadable. */
function confirmedAt(confirmation) {
  try {
    return parseTime(confirmation.confirmed_at);
  } catch {
    return null;
  }
}

/** The state of an approval: before a decision from the row, after one from the stored confirmation. */
export function approvalState(row, confirmation, now) {
  if (row.decision === "n") return "declined";
  // A person approved an edit of it instead (`edited_as` names the approval they signed).
  if (row.decision === "e") return "edited";
  if (row.decision === null) return now - row.created_at >= APPROVAL_TTL_MS ? "expired" : "pending";
  if (confirmation === null) return "approved";
  if (confirmation.consumed) return "consumed";
  if (confirmation.in_flight_at) return "in_flight";
  if (confirmation.invalidated_at) return "invalidated";
  if (confirmation.cancelled) return "cancelled";
  const at = confirmedAt(confirmation);
  // An unreadable time never reads as usable: the Executor refuses it too.
  return at === null || now - at >= APPROVAL_TTL_MS ? "expired" : "approved";
}

/**
 * The version a signed action about this approval must name: the core's digest of the stored confirmation
 * once there is one (the Executor computes the same), else of the approval's decision state.
 */
export function approvalVersion(row, confirmationText) {
  if (confirmationText !== null) return stateVersion(confirmationText);
  return stateVersion(JSON.stringify(["approval", row.id, row.decision, row.decided_at]));
}

/** What the inbox shows and the agent reads: the two lines, the change, the evidence, and what to sign. */
export function approvalView(row, confirmationText, now, { requestFor, audience, reconfirm = null, editedAs = null }) {
  const { proposal } = row;
  const confirmation = confirmationText === null ? null : JSON.parse(confirmationText);
  const state = approvalState(row, confirmation, now);
  const confirmedMillis = confirmation ? confirmedAt(confirmation) : null;
  const expiresAt = confirmation ? (confirmedMillis === null ? null : confirmedMillis + APPROVAL_TTL_MS) : row.created_at + APPROVAL_TTL_MS;
  return {
    approval_id: row.id,
    state,
    version: approvalVersion(row, confirmationText),
    created_at: iso(row.created_at),
    expires_at: iso(expiresAt),
    // The same times in milliseconds since the epoch, for a page's arithmetic (it never parses a date).
    created_at_ms: row.created_at,
    expires_at_ms: expiresAt,
    request: proposal.request,
    // The same two lines rendered by the core in the other languages an inbox may show (from the same change).
    request_in: { ja: requestLines(proposal.node_id, proposal.proposed_change, "ja") },
    agent_note: proposal.agent_note ?? null,
    node_id: proposal.node_id,
    proposed_change: proposal.proposed_change,
    intent: proposal.intent,
    agent_reason: proposal.agent_reason,
    agent_id: proposal.agent_id,
    evidence: proposal.evidence,
    // The approver adds reason, confirmed_at and ui_action, then signs (Ed25519) or asserts (passkey).
    draft: {
      confirmation_id: row.id,
      node_id: proposal.node_id,
      proposed_change: proposal.proposed_change,
      intent: proposal.intent,
      confirmed_by: "human",
      audience,
    },
    decision:
      row.decision === null
        ? null
        : { decision: row.decision, at: iso(row.decided_at), key_id: row.decided_by, reason: row.decline_reason ?? confirmation?.reason ?? null },
    confirmation: confirmation === null ? null : publicConfirmation(confirmation),
    // Set when no person was asked: the standing approval it was approved under (one of its uses reserved for it).
    mandate_id: confirmation?.mandate?.mandate_id ?? null,
    // The lifecycle's times in milliseconds, read by the core, for a page that shows them (it parses no date).
    times_ms: {
      decided_at: row.decided_at ?? null,
      confirmed_at: coreTime(confirmation?.confirmed_at),
      in_flight_at: coreTime(confirmation?.in_flight_at),
      consumed_at: coreTime(confirmation?.consumed_at),
      invalidated_at: coreTime(confirmation?.invalidated_at),
    },
    // What the agent sends to POST /v1/apply once approved.
    executor_request: confirmation ? requestFor(confirmation) : null,
    // When an Apply found the node moved on: its current status and the transitions a person may pick.
    reconfirm,
    // Set on an approval a person made by picking a transition after a reconfirm: the one it replaces.
    reconfirms: proposal.reconfirms ?? null,
    // Set on a person's edit of a proposal: the proposal it edits (approving the edit settles that one), and
    // the change the agent proposed there.
    edits: proposal.edits ?? null,
    edited_from: proposal.edited_from ?? null,
    // Set on a proposal whose edit a person approved: the approval they signed instead.
    edited_as: editedAs,
  };
}

/** The stored confirmation as shown: without the guard's seal (a MAC only the guard checks). */
function publicConfirmation({ seal: _seal, ...confirmation }) {
  return confirmation;
}

/** A stored approval a view cannot be rendered for: shown raw and flagged, never failing the list or feed. */
export function unreadableView(row, error) {
  return {
    approval_id: row.id,
    state: "unreadable",
    error: { code: error?.code ?? "unreadable_record", message: String(error?.message ?? error) },
    raw: { created_at: row.created_at, decision: row.decision, decided_at: row.decided_at, decided_by: row.decided_by },
  };
}

export const APPROVAL_STATES = ["pending", "declined", "expired", "approved", "in_flight", "consumed", "cancelled", "invalidated", "edited", "unreadable"];

/**
 * A person's edit of a pending proposal: the same node and change type, another change, its two lines rendered
 * again from it. The agent's intent and reason are carried; its evidence is not (the reviewers read another
 * change). Approving the edit settles the proposal it edits (state `edited`).
 */
export function edition(previous, proposedChange, editsId) {
  return {
    ...previous,
    proposed_change: proposedChange,
    evidence: null,
    request: requestLines(previous.node_id, proposedChange),
    reconfirms: undefined,
    edits: editsId,
    edited_from: previous.proposed_change,
  };
}

/**
 * The proposal for a transition a person picked after step 6 found the node moved on. The pick must be one of
 * the skill's `valid_transitions`; the agent's intent and reason are carried from the invalidated proposal,
 * its evidence is not (the Closer and the Watcher reviewed another change), and `from` is the status the skill
 * reported, so the new approval binds what the node is now.
 */
export function reconfirmation(previous, reconfirm, to) {
  const offered = (reconfirm.valid_transitions ?? []).map((transition) => transition.status);
  if (!offered.includes(to)) {
    throw new HttpError(422, "not_a_valid_transition", `\`${to}\` is not one of the transitions the skill offers: ${offered.join(", ") || "none"}`, "to");
  }
  const proposed_change = { type: previous.proposed_change.type, from: reconfirm.current_status, to };
  return {
    ...previous,
    proposed_change,
    evidence: null,
    request: requestLines(previous.node_id, proposed_change),
    agent_note: { summary: "picked by a person after the node moved on", impact_scope: null },
  };
}
