// The graph of adapter-langgraph.test.mjs: one node that sends an email through a governed tool. Run as a
// script, it is another process resuming a thread from the SQLite checkpointer (CHECKPOINTS) with the
// confirmation in argv[2], over the file store (STORE_PATH), and prints what it sent and how it ended.
import { readFileSync } from "node:fs";
import { Annotation, Command, END, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { governGraphTools } from "agent-governor/langgraph";
import { fileStore } from "./file-store.mjs";

export const KEYS = { approver: "0123456789abcdef0123456789abcdef-langgraph" };
const State = Annotation.Root({ email: Annotation(), result: Annotation() });

/** The compiled graph over `checkpointer` and `store`; `sent` records every email the tool sends. */
export function emailGraph({ checkpointer, store, now }) {
  const sent = [];
  const tools = {
    send_email: async (args) => {
      sent.push(args);
      return `sent to ${args.to}`;
    },
    lookup: async ({ word }) => `${word}: found`,
  };
  const governed = governGraphTools(tools, { store, keys: KEYS, whitelist: ["lookup"], ...(now ? { now } : {}) });
  const graph = new StateGraph(State)
    .addNode("send", async (state) => ({ result: await governed.call("send_email", state.email, "email-1") }))
    .addEdge(START, "send")
    .addEdge("send", END)
    .compile({ checkpointer });
  return { graph, governed, sent };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const checkpointer = SqliteSaver.fromConnString(process.env.CHECKPOINTS);
  const { graph, sent } = emailGraph({ checkpointer, store: fileStore(process.env.STORE_PATH) });
  const config = { configurable: { thread_id: process.env.THREAD } };
  let ended;
  try {
    const result = await graph.invoke(new Command({ resume: JSON.parse(readFileSync(process.argv[2], "utf8")) }), config);
    ended = { result: result.result ?? null };
  } catch (error) {
    ended = { code: error.code ?? null, message: error.message };
  }
  console.log(JSON.stringify({ sent, ...ended }));
}
