// The control loop and standing approvals: before a person is asked to approve a state change, the loop asks
// its Executor whether a registered, live standing approval covers it (for the loop's agent); if one does,
// the request is answered y without asking, and the Apply runs under the confirmation the Executor made for
// the mandate (whose use was reserved when it approved the change). Methods of the loop's driver (`this` is the driver), assigned to its
// prototype in control-loop-driver.js.
import { requestFor } from "../wasm/agent_governor_full.js";
import { governorError, isPlainObject } from "./control-loop-config.js";
import { messageOf } from "./control-loop-text.js";
import { isBlank } from "../approver/canonical.js";

/** Where the ids of the loop's registered standing approvals are listed in its store. */
const MANDATES_KEY = "loop-mandates";
/** The confirmation a standing approval makes for one loop action. */
const confirmationIdOf = (mandateId, actionId) => `mandate/${mandateId}/loop/${actionId}`;

/** `standingApprovals: { agentId, keys }`, read once: the loop's agent as mandates name it, and the keys that sign them. */
export function readStandingApprovals(value) {
  if (value === undefined) return null;
  if (!isPlainObject(value)) throw governorError("standingApprovals", "standingApprovals must be { agentId, keys }");
  for (const key of Object.keys(value)) {
    if (key !== "agentId" && key !== "keys") throw governorError(`standingApprovals.${key}`, `standingApprovals has agentId and keys, not ${key}`);
  }
  if (typeof value.agentId !== "string" || isBlank(value.agentId)) throw governorError("standingApprovals.agentId", "agentId must be the loop's agent id, as standing approvals name it");
  if (!isPlainObject(value.keys) || Object.keys(value.keys).length === 0) throw governorError("standingApprovals.keys", "keys must hold the approvers' public keys that sign standing approvals");
  return { agentId: value.agentId, keys: { ...value.keys } };
}

export const mandateMethods = {
  /** The ids listed in the store. */
  async mandateIds() {
    const text = await this.store.get(MANDATES_KEY);
    if (text === null || text === undefined) return [];
    const ids = JSON.parse(text);
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) throw governorError("store", "the loop's list of standing approvals is not one it wrote", "storage_error");
    return ids;
  },

  /** Registers a person's signed standing approval with the loop's Executor (verified; never twice) and lists it. */
  async registerMandate(mandate) {
    if (this.standing === null) throw governorError("standingApprovals", "this loop takes no standing approvals: configure standingApprovals { agentId, keys }");
    if (this.executor === null) throw governorError("skills", "standing approvals cover state changes: configure an ExecutorSkill");
    const { record } = await this.executor.saveMandate(mandate);
    for (let attempt = 0; attempt < 8; attempt += 1) {
      const text = (await this.store.get(MANDATES_KEY)) ?? null;
      const ids = await this.mandateIds();
      if (await this.store.compareAndSwap(MANDATES_KEY, text, JSON.stringify([...ids, record.mandate.mandate_id]))) return record;
    }
    throw governorError("store", "the loop's list of standing approvals kept changing", "storage_error");
  },

  /** Every registered standing approval's record and version. */
  async mandates() {
    if (this.executor === null) return [];
    const found = await Promise.all((await this.mandateIds()).map((id) => this.executor.mandateRecord(id)));
    return found.filter((entry) => entry !== null);
  },

  /**
   * Answers approval request `effect` y when a registered, live standing approval covers its action (a state
   * change through the Executor); resolves to whether it did. Anything unreadable is a no: a person decides.
   */
  async approveByMandate(effect) {
    const action = structuredClone(this.state.in_progress);
    const skill = this.skills[action?.type];
    if (this.standing === null || this.executor === null || typeof skill !== "object" || skill === null) return false;
    const { node_id: nodeId, from, to } = action.parameters ?? {};
    if (![nodeId, from, to].every((value) => typeof value === "string" && value !== "")) return false;
    for (const mandateId of await this.mandateIds()) {
      const outcome = await this.executor.confirmByMandate({
        mandate_id: mandateId,
        confirmation_id: confirmationIdOf(mandateId, action.id),
        agent_id: this.standing.agentId,
        node_id: nodeId,
        proposed_change: { type: action.type, from, to },
        intent: action.lines[0],
        reason: `standing approval ${mandateId}`,
        action_id: `loop/${action.id}`,
      });
      // Made before for this very action (the loop restarted while it waited): it stands.
      const madeBefore = outcome.outcome === "refused" && outcome.phase === "already_exists" && (await this.mandateConfirmation(action)) !== null;
      if (outcome.outcome === "confirmed" || madeBefore) {
        const left = outcome.outcome === "confirmed" ? ` (${outcome.uses_left} uses left)` : "";
        this.notify("chat", `${action.lines[0]}: approved under standing approval ${mandateId}${left}`);
        this.track(this.later({ event: "approval_answered", request_id: effect.request_id, answer: "y" }, "approve"));
        return true;
      }
    }
    return false;
  },

  /**
   * The confirmation a standing approval made for exactly `action` (its node, change and action id: a record
   * left under the same id by another loop sharing the store is not this action's), as stored, or null.
   */
  async mandateConfirmation(action) {
    if (this.standing === null) return null;
    const { node_id: nodeId, from, to } = action.parameters ?? {};
    for (const mandateId of await this.mandateIds()) {
      const text = await this.store.get(`confirmation/${confirmationIdOf(mandateId, action.id)}`);
      if (typeof text !== "string") continue;
      const made = JSON.parse(text);
      const change = made?.proposed_change;
      const same = made?.node_id === nodeId && change?.type === action.type && change?.from === from && change?.to === to && made?.action_id === `loop/${action.id}`;
      if (same && made.mandate?.mandate_id === mandateId) return made;
    }
    return null;
  },

  /** Asks the standing approvals first, then a person (also when asking them failed: said through onError). */
  requestApprovalOrMandate(effect) {
    if (this.standing === null) {
      this.requestApproval(effect);
      return;
    }
    this.track(
      this.approveByMandate(effect).then(
        (approved) => {
          if (!approved && !this.stopped) this.requestApproval(effect);
        },
        (error) => {
          this.failed("approve", new Error(`the standing approvals could not be read: ${messageOf(error)}`));
          if (!this.stopped) this.requestApproval(effect);
        },
      ),
    );
  },

  /** The Executor's request for the confirmation a standing approval made (the exact one it approves). */
  mandateRequest: (confirmation) => requestFor(confirmation),
};
