// A run with agent-governor/openai-agents, type-checked against the real @openai/agents declarations.
import { Agent, run } from "@openai/agents";
import { z } from "zod";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { governAgentTools } from "agent-governor/openai-agents";

const sendEmail = { name: "send_email", description: "Sends", parameters: z.object({ to: z.string() }), execute: async ({ to }: { to: string }) => to };
const governed = governAgentTools([sendEmail], { store: new MemoryStore(), keys: { a: "x".repeat(32) } });
const agent = new Agent({ name: "mailer", tools: governed.tools });
const result = await run(agent, "Email Bob");
for (const interruption of result.interruptions) {
  const lines: [string, string] = governed.lines(interruption);
  await governed.approve(result.state, interruption, issueConfirmation(governed.draft(interruption), { keyId: "a", secret: "x".repeat(32) }));
  console.log(lines);
}

// A misspelt option is a type error as well as a typed error at run time.
// @ts-expect-error `audiance` is not an option (`audience` is)
governAgentTools([], { store: new MemoryStore(), keys: {}, audiance: "inbox" });
