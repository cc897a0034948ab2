// `npm start`: the approval page on 127.0.0.1 with a model for its Closer demo. By default the embedded
// local model (SmolLM2-135M-Instruct on node-llama-cpp) starts on a free port; LLM_BASE_URL, LLM_MODEL and
// LLM_API_KEY select any other OpenAI-compatible endpoint instead.
import { startServer } from "./serve.mjs";

const port = Number(process.env.PORT ?? 8080);
let llm;
if (process.env.LLM_BASE_URL) {
  llm = { url: process.env.LLM_BASE_URL, model: process.env.LLM_MODEL ?? "gpt-4o-mini", apiKey: process.env.LLM_API_KEY };
  console.log(`model: ${llm.model} at ${llm.url}`);
} else {
  const { startModelServer } = await import("./local-llm/server.mjs");
  const local = await startModelServer({ port: Number(process.env.LLM_PORT ?? 0) });
  llm = { url: local.url, model: local.model, label: `local ${local.model}` };
  console.log(`model: embedded ${local.model}, OpenAI-compatible at ${local.url}`);
}
const server = await startServer(port, { llm });
console.log(`agent-governor approval page: http://127.0.0.1:${server.address().port}/`);
