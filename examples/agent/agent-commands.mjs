// The privileged commands an admin sends the agent through the edge guard (seed 002's Command UI). Each is
// taken from the guard before it is carried out, so it is carried out at most once, even across a restart;
// the loop logs each developer command as privileged.
//
//   instruction <text>   a person's instruction (it always wins; after a stop it starts the agent again)
//   goal <text>          a new goal (the loop's `<prefix> goal`)
//   discard              drop the task in progress
//   stop / resume        pause the agent (what it was doing is interrupted) / go on
//   reply <text>         a person's words, read at the next judgement (any approver)
//   answer resume|discard   the answer to an interrupted agent's question (any approver)
//   whitelist add|remove <type>, prefix <token>   rule changes, persisted through the loop's storage

/** Separators as either this agent or its loop reads them (Unicode white space and NEL). */
const SEPARATORS = /[\s\u0085\p{Z}]+/u;

/**
 * Carries out one command on `loop`. `agent` is { paused, heldReplies, observeAgain() } of the agent it drives
 * (observing again after a pause also hands the loop the replies held meanwhile). Returns
 * `{ carried_out, detail }`: what the agent reports to the guard (a command the loop refuses is not carried
 * out, and says why).
 */
export function carryOut(loop, agent, command) {
  try {
    const detail = run(loop, agent, command);
    return { carried_out: true, detail };
  } catch (error) {
    return { carried_out: false, detail: String(error?.message ?? error) };
  }
}

function run(loop, agent, { verb, text, approver }) {
  const prefix = loop.state().rules?.privileged_prefix ?? "/dev";
  const mode = loop.status().mode;
  switch (verb) {
    case "instruction": {
      // An instruction is words for the agent, never a developer command in disguise (those have their verbs).
      const first = text.split(SEPARATORS).find((word) => word !== "");
      if (first === prefix) throw new Error(`an instruction may not start with the privileged prefix ${prefix}: use the command for it`);
      agent.paused = false;
      loop.say(text);
      agent.observeAgain();
      return `instruction from ${approver}: ${text}`;
    }
    case "answer":
      // The answer to the question an interrupted loop asks (resume or discard), from the inbox's card; never
      // the resume of an agent an admin paused (that is an admin's command).
      if (agent.paused) throw new Error("the agent is paused by an admin: an admin resumes it");
      if (mode !== "interrupted") throw new Error(`the agent asks nothing now (it is ${mode})`);
      agent.paused = false;
      loop.answer(text);
      agent.observeAgain();
      return `${text === "resume" ? "resumed" : "discarded"} by ${approver}, answering the agent's question`;
    case "reply":
      // A person's words, read at the next judgement: nothing waiting is interrupted, and no verb is read in it.
      // A paused agent judges nothing: the reply waits for the resume.
      if (agent.paused) {
        (agent.heldReplies ??= []).push(text);
        return `reply from ${approver}, held until the agent is resumed: ${text}`;
      }
      loop.reply(text);
      return `reply from ${approver}: ${text}`;
    case "goal":
      agent.paused = false;
      loop.say(`${prefix} goal ${text}`);
      if (mode === "stopped") loop.say(`${prefix} resume`);
      agent.observeAgain();
      return `new goal from ${approver}: ${text}`;
    case "discard":
      loop.say(`${prefix} discard`);
      return `task discarded by ${approver}`;
    case "whitelist":
    case "prefix":
      loop.say(`${prefix} ${verb} ${text}`);
      return `rule change by ${approver}: ${verb} ${text}`;
    case "stop":
      agent.paused = true;
      // A judgement or a wait for a person is interrupted (an Apply already sent still finishes).
      if (["judging", "awaiting_approval"].includes(mode)) loop.say(`Stop: ${approver} paused the agent.`);
      return `paused by ${approver}`;
    case "resume":
      agent.paused = false;
      if (mode === "interrupted") loop.answer("resume");
      else if (mode === "stopped") loop.say(`${prefix} resume`);
      agent.observeAgain();
      return `resumed by ${approver}`;
    default:
      throw new Error(`unknown command ${verb}`);
  }
}

/**
 * Follows the guard's command channel for `agentId`: every `pollMs`, the untaken commands, oldest first,
 * each taken (POST .../commands/{seq}) before `onCommand` runs it, then its result (`{ carried_out, detail }`,
 * what `onCommand` returns) reported. `guard(method, path, body)` answers `{ status, body }`. Returns { stop() }.
 */
export function followCommands({ guard, agentId, pollMs = 1000, onCommand, onError = () => {} }) {
  let stopped = false;
  let running = false;
  const base = `/v1/agents/${encodeURIComponent(agentId)}/commands`;
  async function poll() {
    if (stopped || running) return;
    running = true;
    try {
      const listed = await guard("GET", `${base}?untaken=true`);
      if (listed.status !== 200) throw new Error(listed.body?.message ?? `HTTP ${listed.status}`);
      for (const command of listed.body.commands) {
        if (stopped) break;
        const taken = await guard("POST", `${base}/${command.seq}`, {});
        if (taken.status !== 200) continue;
        let result;
        try {
          result = await onCommand(command);
        } catch (error) {
          onError(error, command);
          result = { carried_out: false, detail: String(error?.message ?? error) };
        }
        // What became of it, for the person who sent it (a report that fails leaves it "taken, outcome unknown").
        await guard("POST", `${base}/${command.seq}`, { result }).catch((error) => onError(error, command));
      }
    } catch (error) {
      onError(error, null);
    } finally {
      running = false;
    }
  }
  const timer = setInterval(poll, pollMs);
  poll();
  return {
    poll,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
