// A graph with agent-governor/langgraph, type-checked against the real @langchain/langgraph declarations.
import { Annotation, Command, END, MemorySaver, START, StateGraph } from "@langchain/langgraph";
import { MemoryStore, issueConfirmation } from "agent-governor";
import { governGraphTools, type ApprovalInterrupt } from "agent-governor/langgraph";

const governed = governGraphTools({ send_email: async (args: { to: string }) => `sent to ${args.to}` }, { store: new MemoryStore(), keys: { a: "x".repeat(32) } });
const State = Annotation.Root({ to: Annotation<string>(), result: Annotation<string>() });
const graph = new StateGraph(State)
  .addNode("send", async (state) => ({ result: await governed.call("send_email", { to: state.to }, "email-1") }))
  .addEdge(START, "send")
  .addEdge("send", END)
  .compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "t" } };
const first = await graph.invoke({ to: "bob@example.com" }, config);
const pending = (first as { __interrupt__?: { value: ApprovalInterrupt }[] }).__interrupt__?.[0]?.value;
if (pending) {
  const lines: [string, string] = pending.lines;
  const done = await graph.invoke(new Command({ resume: issueConfirmation(pending.draft, { keyId: "a", secret: "x".repeat(32) }) }), config);
  const result: string = done.result;
  console.log(lines, result);
}

// A misspelt option is a type error as well as a typed error at run time; `keepOutputs` is always on here.
// @ts-expect-error `sealkey` is not an option (`sealKey` is)
governGraphTools({}, { store: new MemoryStore(), keys: {}, sealkey: "x" });
// @ts-expect-error every run's output is kept: `keepOutputs` is not an option
governGraphTools({}, { store: new MemoryStore(), keys: {}, keepOutputs: false });
