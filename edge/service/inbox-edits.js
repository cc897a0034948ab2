// A person's edit of a pending proposal before deciding it: another transition the skill allows, or other
// arguments of a tool call (checked against the tool's input schema as the upstream lists it now), as a new
// pending approval whose lines the guard renders; approving the edit settles the proposal it edits
// (`edited`), in the same turn, so the two are never both approved. Methods of the inbox's Durable Object,
// assigned to its prototype in inbox.js.
import { readJson, toolCallChange } from "agent-governor/guard";
import { HttpError, MAX_BODY_DEPTH, json, onlyKeys, readJsonObject, requireText } from "./http.js";
import { TOOL_CALL } from "./mcp.js";
import { MAX_TOOL_CALL_TEXT, edition } from "./proposal.js";

export const editMethods = {
  /** The edit of proposal `id` still waiting for a decision, or null: one at a time. */
  liveEditOf(id) {
    // By event: an agent's retries (`asked_again`) never push an edit out of reach.
    for (const record of this.db.auditEvents(id, "edit_drafted")) {
      const row = this.db.approval(record.detail.approval_id);
      if (row !== null && this.viewOf(row).state === "pending") return row.id;
    }
    return null;
  },

  /** The approval a person signed instead of proposal `id` (its edit), from the audit; null when none. */
  editedAs(id) {
    return this.db.auditEvents(id, "edited", 1)[0]?.detail.approval_id ?? null;
  },

  /**
   * Proposal `original` becomes `edited` (its edit `editId` is being approved): refused when it was decided
   * otherwise meanwhile. Again for the same edit (its approval failed after this) it is already settled.
   */
  settleEdited(original, editId, keyId) {
    const row = this.db.approval(original);
    if (row?.decision === "e" && this.editedAs(original) === editId) return;
    const now = Date.now();
    if (row === null || this.viewOf(row, now).state !== "pending" || !this.db.decide(original, "e", now, keyId)) {
      throw new HttpError(409, "not_pending", `the proposal this edits (\`${original}\`) was decided meanwhile; nothing was approved`, "approval_id");
    }
    this.db.appendAudit(now, original, "edited", { approval_id: editId, key_id: keyId });
    this.publish(original);
  },

  /**
   * A person edits pending proposal `id` before deciding: `{ to }` (another of the transitions the skill
   * allows from the node's status now, which must still be the proposed `from`). The edit is a new pending
   * approval whose two lines the guard renders from the edited change; the person approves it like any other
   * (signing exactly it), which settles the proposal it edits.
   */
  async edit(id, request) {
    const body = await readJsonObject(request);
    const view = this.pending(id);
    if (view.edits !== null) throw new HttpError(409, "already_an_edit", `approval \`${id}\` is an edit already: edit the proposal \`${view.edits}\` instead`);
    // A person's pick after a reconfirm is theirs already: they pick another transition on its card.
    if (view.reconfirms !== null) throw new HttpError(409, "not_editable", `approval \`${id}\` is a transition a person picked: pick another on the card it replaces`);
    if (view.proposed_change.type === TOOL_CALL) return this.draftEdit(id, view, await this.editedToolCall(view, body));
    onlyKeys(body, ["to"]);
    const to = requireText(body.to, "to", { max: 512 });
    const facts = await (await this.preview(id)).json();
    if (!facts.matches) {
      throw new HttpError(409, "node_moved", `the node is \`${facts.current_status}\` now, not the proposed \`${view.proposed_change.from}\`: decline it, and the agent proposes again`);
    }
    if (!facts.valid_transitions.some((transition) => transition.status === to)) {
      const offered = facts.valid_transitions.map((transition) => transition.status);
      throw new HttpError(422, "not_a_valid_transition", `\`${to}\` is not one of the transitions the skill offers: ${offered.join(", ") || "none"}`, "to");
    }
    return this.draftEdit(id, view, { ...view.proposed_change, to });
  },

  /**
   * What a person may edit a tool call to: `{ tool, input_schema, arguments }` (the schema as the upstream
   * lists the tool now; null when it gives none), for the inbox's form.
   */
  async editOptions(id) {
    const view = this.pending(id);
    if (view.proposed_change.type !== TOOL_CALL || this.mcp === null) {
      throw new HttpError(409, "not_editable", `approval \`${id}\` is not a tool call: edit it with another transition ({ "to" })`);
    }
    const schema = await this.mcp.toolSchema(view.node_id);
    return json({ tool: view.node_id, input_schema: schema, arguments: readJson(view.proposed_change.to, MAX_BODY_DEPTH) });
  },

  /**
   * The edited change of a tool call: `{ arguments }` (an object) or `{ arguments_json }` (its text, read by
   * the core), as canonical JSON, at most as long as a proposed call, valid against the tool's input schema
   * as the upstream lists it now (a tool the upstream no longer has takes no edit).
   */
  async editedToolCall(view, body) {
    onlyKeys(body, ["arguments", "arguments_json"]);
    if ((body.arguments === undefined) === (body.arguments_json === undefined)) {
      throw new HttpError(400, "invalid_input", "an edit of a tool call is { arguments } or { arguments_json }, one of the two", "arguments");
    }
    let args = body.arguments;
    if (body.arguments_json !== undefined) {
      const text = requireText(body.arguments_json, "arguments_json", { max: 4 * MAX_TOOL_CALL_TEXT });
      try {
        args = readJson(text, MAX_BODY_DEPTH);
      } catch (error) {
        throw new HttpError(400, "invalid_input", `the arguments are not JSON: ${error?.message ?? error}`, "arguments_json");
      }
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) throw new HttpError(400, "invalid_input", "a tool call's arguments are an object", "arguments");
    let made;
    try {
      made = toolCallChange(view.node_id, args);
    } catch (error) {
      throw new HttpError(400, "invalid_input", error?.message ?? String(error), error?.path ?? "arguments");
    }
    if (made.proposed_change.to.length > MAX_TOOL_CALL_TEXT) {
      throw new HttpError(413, "payload_too_large", `a tool call's arguments are at most ${MAX_TOOL_CALL_TEXT} characters as canonical JSON, for a person to read them`, "arguments");
    }
    const problem = await this.mcp.argumentsProblem(view.node_id, args);
    if (problem !== null) throw new HttpError(422, "invalid_arguments", `the arguments do not fit the tool's input schema: ${problem}`, "arguments");
    return made.proposed_change;
  },

  /** The edit of pending proposal `id` to `proposedChange`, drafted as a new pending approval. */
  draftEdit(id, view, proposedChange) {
    if (proposedChange.to === view.proposed_change.to) throw new HttpError(422, "unchanged", "the edit is the proposed change itself: approve it instead", "to");
    // Read again after the Preview's wait: decided meanwhile, or edited meanwhile, it takes no new edit.
    this.pending(id);
    const drafted = this.liveEditOf(id);
    if (drafted !== null) {
      throw new HttpError(409, "already_edited", `approval \`${id}\` has an edit waiting (\`${drafted}\`): approve or decline it first`);
    }
    const previous = this.db.approval(id).proposal;
    const proposal = edition(previous, proposedChange, id);
    const newId = crypto.randomUUID();
    const now = Date.now();
    this.db.insertApproval(newId, now, proposal);
    this.db.appendAudit(now, newId, "edit_proposed", { edits: id, proposed_change: proposedChange, was: view.proposed_change });
    this.db.appendAudit(now, id, "edit_drafted", { approval_id: newId, proposed_change: proposedChange });
    this.publish(newId);
    return json(this.view(newId), 201);
  },
};
