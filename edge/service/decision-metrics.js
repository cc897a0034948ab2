// Decisions measured: per change type (or tool) and per person, over a window of the guard's own ledger, how
// many changes were decided and how (approved, declined, by a standing approval), how long the card was on a
// person's screen before they decided, and how many were approved faster than the card can be read (a
// rubber-stamp signal); and the standing approvals that would have covered the window's approvals ("you
// approved send_email to @example.com 14 times this week"). Read-only: nothing here decides anything.
import { readJson } from "agent-governor/guard";
import { TOOL_CALL } from "./mcp.js";

/** Reading speed assumed for the rubber-stamp signal: 4 words a second (240 a minute), and never under 1.5 s. */
const MS_PER_WORD = 250;
const MIN_READ_MS = 1500;
/** A suggestion needs at least this many approvals by one person of one kind. */
const MIN_SUGGESTED = 3;
/** The most suggestions returned. */
const MAX_SUGGESTIONS = 10;

/** What a rule is keyed by: a tool call's `tool:<name>`, any other change's type. */
const keyOf = (proposal) => (proposal.proposed_change?.type === TOOL_CALL ? `tool:${proposal.node_id}` : proposal.proposed_change?.type);
/** The approver a key belongs to (`alice/laptop` -> `alice`), or `mandate` for a standing approval. */
const personOf = (decidedBy) => (typeof decidedBy !== "string" ? "unknown" : decidedBy.startsWith("mandate:") ? "standing approval" : decidedBy.split("/")[0]);

/** How long the card's two lines take to read, in milliseconds. */
export function readingTimeMs(proposal) {
  const text = [proposal.request?.what, proposal.request?.impact].filter((line) => typeof line === "string").join(" ");
  const words = text.split(/\s+/).filter(Boolean).length;
  return Math.max(MIN_READ_MS, words * MS_PER_WORD);
}

function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : Math.round((sorted[middle - 1] + sorted[middle]) / 2);
}

function tally(groups, name, row) {
  const group = groups.get(name) ?? { decided: 0, approved: 0, declined: 0, by_standing_approval: 0, reads: [], fast: 0 };
  groups.set(name, group);
  group.decided += 1;
  if (row.decision === "y") group.approved += 1;
  else group.declined += 1;
  if (row.byMandate) group.by_standing_approval += 1;
  if (row.readMs !== null) group.reads.push(row.readMs);
  if (row.fast) group.fast += 1;
}

function summary(groups, label) {
  return [...groups]
    .map(([name, g]) => ({
      [label]: name,
      decided: g.decided,
      approved: g.approved,
      declined: g.declined,
      by_standing_approval: g.by_standing_approval,
      approve_rate: g.decided === 0 ? null : g.approved / g.decided,
      median_read_ms: median(g.reads),
      measured: g.reads.length,
      approved_faster_than_readable: g.fast,
    }))
    .sort((a, b) => b.decided - a.decided || String(a[label]).localeCompare(String(b[label])));
}

/** The parameters a constraint reads, as the core reads them: a tool call's arguments, else node, from, to. */
function parametersOf(proposal) {
  if (proposal.proposed_change?.type === TOOL_CALL) {
    try {
      const args = readJson(proposal.proposed_change.to, 32);
      return args !== null && typeof args === "object" && !Array.isArray(args) ? args : null;
    } catch {
      return null;
    }
  }
  return { node_id: proposal.node_id, from: proposal.proposed_change?.from, to: proposal.proposed_change?.to };
}

/** A JSON Pointer to top-level member `name`. */
const pointer = (name) => `/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;

/**
 * The constraints every one of `values` (parameter objects) satisfies, field by field: a text all share
 * exactly (`equals`), or whose `@domain` all share (`ends_with`); a number (`at_most` the largest).
 */
function commonConstraints(values) {
  const constraints = [];
  const names = Object.keys(values[0] ?? {}).filter((name) => values.every((value) => Object.hasOwn(value, name)));
  for (const name of names.sort()) {
    const seen = values.map((value) => value[name]);
    if (seen.every((value) => typeof value === "string")) {
      if (seen.every((value) => value === seen[0])) {
        constraints.push({ field: pointer(name), op: "equals", value: seen[0] });
        continue;
      }
      const domains = seen.map((value) => (value.lastIndexOf("@") > 0 ? value.slice(value.lastIndexOf("@")) : null));
      if (domains[0] !== null && domains.every((domain) => domain === domains[0]) && /^@[A-Za-z0-9.-]+$/.test(domains[0])) {
        constraints.push({ field: pointer(name), op: "ends_with", value: domains[0] });
      }
    } else if (seen.every((value) => typeof value === "number" && Number.isFinite(value))) {
      constraints.push({ field: pointer(name), op: "at_most", value: Math.max(...seen) });
    }
  }
  return constraints;
}

/** The standing approvals that would have covered the window's approvals, by person and kind (the most first). */
function suggestions(rows) {
  const groups = new Map();
  for (const row of rows) {
    if (row.decision !== "y" || row.byMandate || typeof row.proposal.agent_id !== "string" || row.proposal.agent_id === "") continue;
    const parameters = parametersOf(row.proposal);
    if (parameters === null) continue;
    const id = JSON.stringify([row.person, row.key, row.proposal.agent_id]);
    const group = groups.get(id) ?? { approver: row.person, action: row.key, agent: row.proposal.agent_id, parameters: [] };
    group.parameters.push(parameters);
    groups.set(id, group);
  }
  return [...groups.values()]
    .filter((group) => group.parameters.length >= MIN_SUGGESTED && group.action !== TOOL_CALL)
    .sort((a, b) => b.parameters.length - a.parameters.length)
    .slice(0, MAX_SUGGESTIONS)
    .map((group) => ({
      approver: group.approver,
      approvals: group.parameters.length,
      terms: { agents: [group.agent], action: group.action, constraints: commonConstraints(group.parameters), max_uses: group.parameters.length },
    }));
}

/**
 * The metrics over the approvals decided in `[now - windowMs, now]`: `rows` are the approvals table's rows
 * (proposal parsed), `reads` the time each card was on screen before its decision (`approval_id -> ms`).
 */
export function decisionMetrics(approvalRows, reads, now, windowMs) {
  const since = now - windowMs;
  const rows = approvalRows
    .filter((row) => row.decision !== null && row.decided_at !== null && row.decided_at >= since && row.decided_at <= now)
    .map((row) => {
      const readMs = reads.get(row.id) ?? null;
      return {
        ...row,
        key: keyOf(row.proposal),
        person: personOf(row.decided_by),
        byMandate: typeof row.decided_by === "string" && row.decided_by.startsWith("mandate:"),
        readMs,
        fast: row.decision === "y" && readMs !== null && readMs < readingTimeMs(row.proposal),
      };
    });
  const byType = new Map();
  const byPerson = new Map();
  for (const row of rows) {
    tally(byType, row.key, row);
    tally(byPerson, row.person, row);
  }
  return {
    since_ms: since,
    until_ms: now,
    window_ms: windowMs,
    decided: rows.length,
    reading: { ms_per_word: MS_PER_WORD, min_ms: MIN_READ_MS },
    by_type: summary(byType, "key"),
    by_person: summary(byPerson, "approver"),
    suggestions: suggestions(rows),
  };
}
