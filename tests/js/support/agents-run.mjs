// One process's part of a run with the OpenAI Agents SDK and agent-governor/openai-agents: restores a saved
// RunState (argv[2]), runs it against the scripted model (MODEL_URL) over the file store (STORE_PATH), and
// prints what the tool did and what it answered. The same agent as adapter-openai-agents.test.mjs.
import { readFileSync } from "node:fs";
import { Agent, OpenAIChatCompletionsModel, RunState, run, setTracingDisabled } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { issueConfirmation } from "agent-governor";
import { governAgentTools } from "agent-governor/openai-agents";
import { fileStore } from "./file-store.mjs";

setTracingDisabled(true);
export const KEYS = { approver: "0123456789abcdef0123456789abcdef-agents" };

/** The agent and its governed tool; `sent` records every email the tool sends. */
export function governedAgent({ modelUrl, store, now, errorFunction }) {
  const sent = [];
  const sendEmail = {
    name: "send_email",
    description: "Sends an email",
    parameters: z.object({ to: z.string(), subject: z.string() }),
    execute: async (input) => {
      if (input.subject === "fails half-way") throw new Error("connection reset after the message was handed over");
      sent.push(input);
      return `sent to ${input.to}`;
    },
  };
  const lookup = { name: "lookup", description: "Looks a word up", parameters: z.object({ word: z.string() }), execute: async ({ word }) => `${word}: found` };
  const governed = governAgentTools([errorFunction === undefined ? sendEmail : { ...sendEmail, errorFunction }, lookup], { store, keys: KEYS, whitelist: ["lookup"], ...(now ? { now } : {}) });
  const client = new OpenAI({ baseURL: modelUrl, apiKey: "scripted" });
  const agent = new Agent({ name: "mailer", instructions: "Send what is asked.", model: new OpenAIChatCompletionsModel(client, "scripted"), tools: governed.tools });
  return { agent, governed, sent };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { agent, governed, sent } = governedAgent({ modelUrl: process.env.MODEL_URL, store: fileStore(process.env.STORE_PATH) });
  const state = await RunState.fromString(agent, readFileSync(process.argv[2], "utf8"));
  if (process.argv[3] === "approve-without-confirmation") state.approve(state.getInterruptions()[0]);
  if (process.argv[3] === "approve-with-a-new-signature") {
    // A person in this process approves the restored interruption: a fresh signature of the same call.
    const [interruption] = state.getInterruptions();
    const confirmation = issueConfirmation(governed.draft(interruption), { keyId: "approver", secret: KEYS.approver });
    await governed.approve(state, interruption, confirmation);
  }
  const result = await run(agent, state);
  const outputs = result.newItems.filter((item) => item.type === "tool_call_output_item").map((item) => item.output);
  console.log(JSON.stringify({ sent, outputs }));
}
