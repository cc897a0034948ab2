// Reading the guard again: the approvals and the audit trail (a slow read never overwrites a newer view from
// the feed), the node's state now for each pending card (the skill's Preview), and the agent's log.
import { guardApi } from "./guard-api.js";
import { fetchAgentLog, showAgentLog } from "./agent-log.js";
import { showAudit } from "./history.js";
import { render } from "./approval-list.js";
import { $, words } from "./page.js";
import { loadMandates } from "./mandates.js";
import { loadDecisionMetrics } from "./decision-metrics.js";

export async function refresh(state) {
  const startedAt = ++state.clock;
  const [approvals, audit] = await Promise.all([guardApi.approvals(), guardApi.audit()]);
  if (approvals.status === 200) {
    const next = new Map(approvals.body.approvals.map((approval) => [approval.approval_id, approval]));
    for (const [id, view] of state.approvals) {
      if (!next.has(id) || (state.updatedAt.get(id) ?? 0) > startedAt) next.set(id, view);
    }
    state.approvals = next;
  }
  if (audit.status === 200) {
    state.trails = new Map();
    for (const record of audit.body.records) {
      if (record.approval_id === null) continue;
      state.trails.set(record.approval_id, [...(state.trails.get(record.approval_id) ?? []), record]);
    }
    showAudit($("audit"), audit.body.records, words(state));
  }
  await refreshAgentLog(state, false);
  render(state);
  await refreshFacts(state);
  await loadMandates(state);
  await loadDecisionMetrics(state);
}

/**
 * The node's state now (the guard asks the skill's Preview) for every pending approval, so each card shows
 * whether the node is still where the proposal starts. Asked again when the agent saw the board change.
 */
export async function refreshFacts(state) {
  const pending = [...state.approvals.values()].filter((approval) => approval.state === "pending");
  const next = new Map();
  await Promise.all(
    pending.map(async (approval) => {
      const answer = await guardApi.preview(approval.approval_id).catch((error) => ({ status: 0, body: { message: error.message } }));
      next.set(approval.approval_id, answer.status === 200 ? answer.body : { error: answer.body?.message ?? `HTTP ${answer.status}` });
    }),
  );
  state.facts = next;
  render(state);
}

export async function refreshAgentLog(state, andRender = true) {
  try {
    state.agentLog = await fetchAgentLog();
  } catch {
    // The last tail stays on screen; the next poll tries again.
  }
  if (andRender) showAgentLog($("agent-log"), state.agentLog, words(state));
}
