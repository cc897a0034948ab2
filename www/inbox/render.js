// One approval as the inbox shows it: the seed's two lines, the change as from -> to, the agent's intent and
// reason, its age and the time left, the evidence, and the actions its state allows.

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

function duration(ms) {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function evidence(approval, words) {
  const items = [];
  const closer = approval.evidence?.closer;
  if (closer) {
    const checklist = Array.isArray(closer.checklist) ? closer.checklist : [];
    const list = element("ul", {}, ...checklist.map((item) => element("li", { text: `${item.completed ? "✓" : "✗"} ${item.description ?? item.id ?? ""}` })));
    items.push(element("dt", { text: words.closer }), element("dd", {}, element("span", { text: closer.complete ? words.complete : words.incomplete }), list));
  }
  const watcher = approval.evidence?.watcher;
  if (watcher) {
    const issues = Array.isArray(watcher.issues) ? watcher.issues : [];
    const list = element("ul", {}, ...issues.map((issue) => element("li", { text: typeof issue === "string" ? issue : issue.description ?? JSON.stringify(issue) })));
    items.push(element("dt", { text: words.watcher }), element("dd", {}, element("span", { text: watcher.pass ? words.pass : words.fail }), list));
  }
  return items;
}

/**
 * The card of one approval; `actions` are the buttons its state allows and `after` what the history adds (its
 * outcome and audit trail), both built by the caller.
 */
export function approvalCard(approval, words, now, actions, after = []) {
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
  const age = now - Date.parse(approval.created_at);
  const left = Date.parse(approval.expires_at) - now;
  const titleId = `what-${approval.approval_id}`;
  return element(
    "li",
    { class: "approval", tabindex: "0", "data-id": approval.approval_id, "data-state": approval.state, "aria-labelledby": titleId },
    element("p", { class: "what", id: titleId, text: approval.request.what }),
    element("p", { class: "impact muted", text: approval.request.impact }),
    element(
      "dl",
      {},
      element("dt", { text: words.change }),
      element("dd", { class: "change" }, element("code", { text: `${approval.node_id}: ${from || "—"} → ${to}` })),
      element("dt", { text: words.intent }),
      element("dd", { text: approval.intent }),
      approval.agent_reason ? element("dt", { text: words.reason }) : null,
      approval.agent_reason ? element("dd", { text: approval.agent_reason }) : null,
      note ? element("dt", { text: words.agentNote }) : null,
      note ? element("dd", { class: "agent-note", text: note }) : null,
      element("dt", { text: words.age }),
      element("dd", { text: ["pending", "approved"].includes(approval.state) ? `${duration(age)} · ${words.expires} ${duration(left)}` : duration(age), "data-testid": "age" }),
      ...evidence(approval, words),
    ),
    element("p", {}, element("span", { class: "state", "data-testid": "state", text: words.states?.[approval.state] ?? approval.state })),
    ...after,
    actions,
  );
}

export { element };
