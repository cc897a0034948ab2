// The text fields of an agent's presence report and the longest text the guard keeps for each: the guard
// refuses longer (agent-channel.js), and the agent cuts its reports to fit (examples/agent/agent-presence.mjs).
export const STATUS_TEXT_LIMITS = { step: 200, approval_id: 128, what: 1000, goal: 4000, last_message: 4000, board_change: 1000 };
/** The longest `halt.reason`. */
export const HALT_REASON_LIMIT = 1000;
