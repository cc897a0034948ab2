// One approval as the inbox shows it: a warning first when the machine's facts or the reviewers' evidence
// argue against it, the seed's two lines, the change as from -> to, the node's state now (the skill's Preview)
// and the transitions it allows, the agent's intent and reason, its age and the time left, each model's
// evidence labelled with its source and marked advisory, and the actions its state allows.

import { displaySafe } from "agent-governor/guard/init";
import { duration } from "./durations.js";

/**
 * What an agent or a person wrote, made safe to show by the core: control, bidi and zero-width characters
 * become visible as `<U+XXXX>`, so no text can hide or reorder what is around it.
 */
export function shown(text) {
  if (typeof text === "string") return displaySafe(text);
  // Never `String(value)` on what came over the wire: an object's own toString is not called.
  return typeof text === "number" || typeof text === "boolean" ? String(text) : "";
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined) continue;
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}


/** Lines that repeat are shown once, with how many times they were given. */
function folded(lines) {
  const counts = new Map();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  return [...counts].map(([line, count]) => (count > 1 ? `${line} (×${count})` : line));
}

/** "Closer · SmolLM2 · advisory": the component, the model that answered, and that it does not decide. */
function source(name, result, words) {
  return [name, typeof result.model === "string" && result.model ? shown(result.model) : null, words.advisory].filter(Boolean).join(" · ");
}

function evidence(approval, words) {
  const items = [];
  const closer = approval.evidence?.closer;
  if (closer) {
    const checklist = Array.isArray(closer.checklist) ? closer.checklist : [];
    const lines = folded(checklist.map((item) => `${item?.completed ? "✓" : "✗"} ${shown(item?.description ?? item?.id ?? "")}`));
    const list = element("ul", {}, ...lines.map((line) => element("li", { class: "agent-text", text: line })));
    items.push(
      element("dt", { text: source(words.closer, closer, words) }),
      element("dd", { "data-testid": "closer" }, element("span", { text: closer.complete ? words.complete : words.incomplete }), list),
    );
  }
  const watcher = approval.evidence?.watcher;
  if (watcher) {
    const issues = Array.isArray(watcher.issues) ? watcher.issues : [];
    const lines = folded(issues.map((issue) => shown(typeof issue === "string" ? issue : issue?.description ?? JSON.stringify(issue))));
    const list = element("ul", {}, ...lines.map((line) => element("li", { class: "agent-text", text: line })));
    const persona = typeof watcher.persona === "string" && watcher.persona ? watcher.persona : null;
    items.push(
      element("dt", {}, element("span", { text: source(words.watcher, watcher, words) }), persona ? element("span", { class: "agent-text", text: ` · ${shown(persona)}` }) : null),
      element("dd", { "data-testid": "watcher" }, element("span", { text: watcher.pass ? words.pass : words.fail }), list),
    );
  }
  return items;
}

/** The warnings shown at the top of a pending card: the node moved on, or a reviewer argues against it. */
function warnings(approval, facts, words) {
  const found = [];
  if (facts && facts.matches === false) found.push(words.changedSinceProposed(shown(facts.current_status ?? "?"), shown(approval.proposed_change.from || "—")));
  if (approval.evidence?.closer && approval.evidence.closer.complete !== true) found.push(words.closerAgainst);
  if (approval.evidence?.watcher && approval.evidence.watcher.pass !== true) found.push(words.watcherAgainst);
  return found;
}

/** The machine's facts about the node now: its state from the skill's Preview and the moves it allows. */
function machineFacts(approval, facts, words) {
  if (!facts) return [];
  if (facts.error) return [element("dt", { text: words.nowOnBoard }), element("dd", { class: "muted", text: words.previewFailed(shown(facts.error)) })];
  const allowed = facts.valid_transitions.map((item) => shown(item.status)).join(", ") || words.none;
  return [
    element("dt", { text: words.nowOnBoard }),
    element(
      "dd",
      { "data-testid": "now" },
      element("code", { text: shown(facts.current_status ?? "?") }),
      element("span", { class: facts.matches ? "muted" : "warning", text: ` ${facts.matches ? words.asProposed : words.notAsProposed}` }),
    ),
    element("dt", { text: words.allowedNow }),
    element("dd", {}, element("code", { text: allowed })),
  ];
}

/**
 * The card of one approval; `actions` are the buttons its state allows and `after` what the history adds (its
 * outcome and audit trail), both built by the caller.
 */
/** The same change's earlier run: when (in the page's language), which approval and who approved it (as ids), its receipt. */
function ranBefore(ran, words) {
  return element(
    "dd",
    { class: "warning", "data-testid": "ran-before" },
    words.ranBeforeAt(new Date(ran.at_ms).toLocaleString(words.locale)),
    element("code", { text: ran.approval_id }),
    words.ranBeforeBy,
    element("code", { text: shown(ran.approver) || "—" }),
    words.ranBeforeReceipt(ran.seq),
  );
}

export function approvalCard(approval, words, now, actions, after = [], facts = null) {
  // The guard could not render this one record: say so, show what it kept, and offer nothing to act on.
  if (approval.state === "unreadable") {
    return element(
      "li",
      { class: "approval", tabindex: "0", "data-id": approval.approval_id, "data-state": "unreadable" },
      element("p", { class: "what", text: words.unreadable }),
      element("p", { class: "impact muted" }, element("code", { text: `${approval.approval_id}: ${approval.error?.message ?? ""}` })),
    );
  }
  const { from, to } = approval.proposed_change;
  const note = [approval.agent_note?.summary, approval.agent_note?.impact_scope].filter(Boolean).join(" · ");
  const age = now - approval.created_at_ms;
  const left = approval.expires_at_ms === null ? 0 : approval.expires_at_ms - now;
  const titleId = `what-${approval.approval_id}`;
  // The two lines in the page's language, as the core rendered them from the change.
  const lines = approval.request_in?.[words.languageCode] ?? approval.request;
  const shownFacts = approval.state === "pending" ? facts : null;
  const cautions = approval.state === "pending" ? warnings(approval, shownFacts, words) : [];
  return element(
    "li",
    { class: "approval", tabindex: "0", id: `approval-${approval.approval_id}`, "data-id": approval.approval_id, "data-state": approval.state, "aria-labelledby": titleId },
    cautions.length > 0 ? element("ul", { class: "warning cautions", "data-testid": "warnings" }, ...cautions.map((text) => element("li", { text }))) : null,
    element("p", { class: "what", id: titleId, text: lines.what }),
    element("p", { class: "impact muted", text: lines.impact }),
    element(
      "dl",
      {},
      element("dt", { text: words.change }),
      element("dd", { class: "change" }, element("code", { text: `${approval.node_id}: ${from || "—"} → ${to}` })),
      // A person's edit: the change the agent proposed, which this one replaces once approved.
      approval.edited_from ? element("dt", { text: words.editedFrom }) : null,
      approval.edited_from
        ? element("dd", { "data-testid": "edited-from" }, element("code", { text: `${approval.node_id}: ${approval.edited_from.from || "—"} → ${approval.edited_from.to}` }))
        : null,
      ...machineFacts(approval, shownFacts, words),
      // A change a person picked or edited is not the one the agent meant: its intent is labelled as the
      // agent's, for the change it proposed, never as this change's.
      element("dt", { text: approval.reconfirms || approval.edits ? words.intentOfProposal : words.intent }),
      element("dd", { class: "agent-text", text: shown(approval.intent) }),
      approval.agent_reason ? element("dt", { text: words.reason }) : null,
      approval.agent_reason ? element("dd", { class: "agent-text", text: shown(approval.agent_reason) }) : null,
      note ? element("dt", { text: words.agentNote }) : null,
      note ? element("dd", { class: "agent-note agent-text", text: shown(note) }) : null,
      // The same change already ran by another approval: approving this one does it again.
      approval.ran_before ? element("dt", { text: words.ranBefore }) : null,
      approval.ran_before ? ranBefore(approval.ran_before, words) : null,
      // A two-person rule: how many people have signed this exact change, of how many it needs, and who.
      approval.required_approvers > 1 && approval.state === "pending" ? element("dt", { text: words.approvals }) : null,
      approval.required_approvers > 1 && approval.state === "pending"
        ? element("dd", { "data-testid": "approvals-given" }, words.approvalsOf((approval.approvals_given ?? []).length, approval.required_approvers), ...(approval.approvals_given ?? []).flatMap((given) => [" · ", element("span", { class: "agent-text", text: shown(given.approver) })]))
        : null,
      // Retries of one call join its approval: how many times the agent asked.
      approval.asks > 1 ? element("dt", { text: words.asked }) : null,
      approval.asks > 1 ? element("dd", { "data-testid": "asks", text: words.askedTimes(approval.asks) }) : null,
      element("dt", { text: words.age }),
      element("dd", { text: ["pending", "approved"].includes(approval.state) ? `${duration(age, words.locale, { seconds: false })} · ${words.expires} ${duration(left, words.locale, { seconds: false })}` : duration(age, words.locale, { seconds: false }), "data-testid": "age" }),
      ...evidence(approval, words),
    ),
    element("p", {}, element("span", { class: "state", "data-testid": "state", text: words.states?.[approval.state] ?? approval.state })),
    ...after,
    actions,
  );
}

export { element };
