// A typical AI SDK server turn with agent-governor/ai, type-checked against the real `ai` declarations.
import { generateText, stepCountIs, tool, type LanguageModel, type ModelMessage } from "ai";
import { z } from "zod";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { governTools } from "agent-governor/ai";

const sendEmail = tool({ inputSchema: z.object({ to: z.string() }), execute: async ({ to }) => ({ to }) });
const governed = governTools({ sendEmail }, { store: new MemoryStore(), keys: { a: "x".repeat(32) }, whitelist: [] });
declare const model: LanguageModel;
const messages: ModelMessage[] = [];
const result = await generateText({ model, tools: governed.tools, toolApproval: governed.toolApproval, messages, stopWhen: stepCountIs(2) });
for (const part of result.content) {
  if (part.type === "tool-approval-request") {
    const lines: [string, string] = governed.lines(part);
    const response = await governed.approve(part, issueConfirmation(governed.draft(part), { keyId: "a", secret: "x".repeat(32) }));
    messages.push({ role: "tool", content: [response] });
    console.log(lines);
  }
}

// A misspelt option is a type error as well as a typed error at run time.
// @ts-expect-error `whiteList` is not an option (`whitelist` is)
governTools({ sendEmail }, { store: new MemoryStore(), keys: {}, whiteList: [] });
