// `npm start`: on 127.0.0.1, the embedded local model (or LLM_BASE_URL, LLM_MODEL and LLM_API_KEY for any
// other OpenAI-compatible endpoint), the demo task board (the upstream skill), the edge guard service under
// `wrangler dev` (its Durable Object state kept in .wrangler/ between runs, or in GUARD_STATE), the pages (the
// approval inbox and the component showcase), and a governed agent: the control loop judging the board with the
// model and proposing each change to the guard. Ctrl-C stops everything.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./serve.mjs";
import { freePort, startEdgeWorker } from "../scripts/wrangler-dev.mjs";
import { startTaskBoard } from "./task-board.mjs";
import { startGovernedAgent } from "./agent/agent.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const port = Number(process.env.PORT ?? 8080);
// The demo tokens of edge/service/wrangler.toml: local only (a deployment sets secrets).
const TOKENS = { agent: "agent-demo-token", inbox: "inbox-demo-token", admin: "admin-demo-token" };

const stops = [];
let stopping = false;
/** How long each part may take to stop before the next is stopped anyway (Ctrl-C ends everything within 2 s). */
const STOP_EACH_MS = 600;
async function stopAll(code = 0) {
  if (stopping) return;
  stopping = true;
  // The page server first (it closes open tabs' connections), then the agent, the guard, the board, the model.
  await Promise.all(
    stops.reverse().map((stop) =>
      Promise.race([Promise.resolve().then(stop), new Promise((resolve) => setTimeout(resolve, STOP_EACH_MS))]).catch(() => {}),
    ),
  );
  process.exit(code);
}
process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

try {
  let llm;
  if (process.env.LLM_BASE_URL) {
    llm = { url: process.env.LLM_BASE_URL, model: process.env.LLM_MODEL ?? "gpt-4o-mini", apiKey: process.env.LLM_API_KEY };
    console.log(`model: ${llm.model} at ${llm.url}`);
  } else {
    const { startModelServer } = await import("./local-llm/server.mjs");
    // Every core for the model (LLM_THREADS to choose): its judgement and the two reviews come one after another.
    const threads = Number(process.env.LLM_THREADS ?? availableParallelism());
    const local = await startModelServer({ port: Number(process.env.LLM_PORT ?? 0), threads });
    llm = { url: local.url, model: local.model, label: `local ${local.model}` };
    console.log(`model: embedded ${local.model}, OpenAI-compatible at ${local.url}`);
  }

  const state = process.env.GUARD_STATE ?? join(root, ".wrangler", "guard-state");
  mkdirSync(state, { recursive: true });
  // The board is kept beside the guard's state: both survive a restart together (delete the directory to reset both).
  const board = await startTaskBoard({
    port: Number(process.env.BOARD_PORT ?? 0),
    nodes: { "task-1": "todo", "task-2": "in_progress", "task-3": "in_review" },
    file: join(state, "task-board.json"),
  });
  stops.push(() => board.close());
  console.log(`task board (the upstream skill): ${board.url}/board`);

  const pagePort = port === 0 ? await freePort() : port;
  const origins = [`http://localhost:${pagePort}`, `http://127.0.0.1:${pagePort}`].join(",");
  const guard = await startEdgeWorker(
    { SKILLS: JSON.stringify({ status_change: board.url }), ORIGINS: origins, RP_ID: "localhost" },
    { dir: "edge/service", persistTo: state },
  );
  stops.push(() => guard.stop(400));
  console.log(`edge guard (wrangler dev): ${guard.url}/`);

  const server = await startServer(pagePort, {
    llm,
    guard: { url: guard.url, inboxToken: TOKENS.inbox, adminToken: TOKENS.admin, rpId: "localhost" },
    board: { url: board.url },
  });
  stops.push(() => server.shutdown());
  console.log(`approval inbox: http://localhost:${pagePort}/inbox.html`);
  console.log(`task board, live: http://localhost:${pagePort}/board.html`);
  console.log(`component playground: http://localhost:${pagePort}/`);

  // The loop's rules (whitelist, privileged prefix) changed by an admin's signed command survive a restart.
  const rulesFile = join(state, "agent-rules.json");
  const rules = {
    save: (value) => writeFileSync(rulesFile, JSON.stringify(value)),
    load: () => (existsSync(rulesFile) ? JSON.parse(readFileSync(rulesFile, "utf8")) : null),
  };
  const agent = await startGovernedAgent({
    rules,
    guardUrl: guard.url,
    agentToken: TOKENS.agent,
    boardUrl: board.url,
    llm,
    // The embedded model decodes under a grammar: its judgement is held to the moves the board allows.
    narrowJudgement: !process.env.LLM_BASE_URL,
    log: (line) => console.log(line),
  });
  stops.push(() => agent.stop());
  server.setAgent(agent);
  console.log("agent: judging the board; its proposals arrive in the inbox");
} catch (error) {
  console.error(`npm start failed: ${error.message}`);
  await stopAll(1);
}
