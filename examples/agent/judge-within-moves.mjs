// Narrows the control loop's judgement schema to the moves the skill allows right now: the judge answers
// either one of those moves (node, from, to fixed together, with its note stating it) or `wait`. A model decoding under a schema-derived grammar (the embedded local model) then cannot propose a
// node that does not exist or a transition the skill refuses, and a hosted model's structured output is held
// to the same list. The core still checks every answer against the full judgement contract, so a narrowed
// schema can only make answers stricter, never let one through.

const NULL_FIELDS = ["reply", "setting_key", "setting_value", "whitelist_add", "whitelist_remove"];
const line = (description) => ({ type: "string", description, maxLength: 200 });

function answer(properties) {
  const all = {
    ...properties,
    ...Object.fromEntries(NULL_FIELDS.map((name) => [name, { type: "null" }])),
  };
  return { type: "object", properties: all, required: Object.keys(all), additionalProperties: false };
}

/** The judgement schema for `moves` ([{ node_id, from, to }]) of `actionType`: one of them, or wait. */
export function judgementWithin(moves, actionType) {
  const acts = moves.map(({ node_id, from, to }) =>
    answer({
      decision: { const: "act" },
      action_type: { const: actionType },
      node_id: { const: node_id },
      from: { const: from },
      to: { const: to },
      // The agent's note (the person's two lines are the machine's, rendered from the move): a small
      // model's own prose is not meaningful, and a fixed note costs the choice nothing.
      summary: { const: `Move ${node_id} from ${from} to ${to}` },
      impact_scope: { const: `${node_id} on the board only` },
      reason: { type: "null" },
    }),
  );
  const wait = answer({
    decision: { const: "wait" },
    ...Object.fromEntries(["action_type", "node_id", "from", "to", "summary", "impact_scope"].map((name) => [name, { type: "null" }])),
    reason: line("Why nothing should move now, in one line."),
  });
  return { oneOf: [...acts, wait] };
}

/** A query function that sends the narrowed schema for the judgement and passes every other request as is. */
export function judgeWithinMoves(query, currentMoves, actionType) {
  return (prompt, options) => {
    if (options?.schemaName !== "control_judgement") return query(prompt, options);
    return query(prompt, { ...options, outputSchema: judgementWithin(currentMoves(), actionType) });
  };
}
