// Serves the approval page (www/) and the built package (dist/, under /pkg/) on 127.0.0.1, and relays
// /llm/chat/completions to the configured OpenAI-compatible endpoint, adding its API key on the server side
// so the key never reaches the page. /config.json tells the page which model answers.
// Usage: node scripts/serve.mjs [--port N]   (PORT in the environment works too; 0 picks a free port)
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const mounts = [
  ["/pkg/", join(root, "dist")],
  ["/", join(root, "www")],
];
const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".ts": "text/plain; charset=utf-8",
};

function locate(urlPath) {
  for (const [prefix, directory] of mounts) {
    if (!urlPath.startsWith(prefix)) continue;
    const relative = normalize(decodeURIComponent(urlPath.slice(prefix.length)) || "index.html");
    if (relative.startsWith("..")) return null;
    return join(directory, relative);
  }
  return null;
}

async function relayToModel(llm, request, response) {
  if (!llm) {
    response.writeHead(503, { "content-type": "application/json" });
    return response.end(JSON.stringify({ error: { message: "no model is configured" } }));
  }
  let body = "";
  for await (const chunk of request) body += chunk;
  const headers = { "content-type": "application/json" };
  if (llm.apiKey) headers.authorization = `Bearer ${llm.apiKey}`;
  try {
    const upstream = await fetch(`${llm.url.replace(/\/+$/, "")}/chat/completions`, { method: "POST", headers, body });
    response.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
    response.end(Buffer.from(await upstream.arrayBuffer()));
  } catch (error) {
    response.writeHead(502, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: `the model endpoint is unreachable: ${error.message}` } }));
  }
}

/** `llm`: { url, model, apiKey? } of the endpoint the page's Closer demo asks, or null. */
export function startServer(port = 0, { llm = null } = {}) {
  const server = createServer(async (request, response) => {
    const urlPath = new URL(request.url, "http://localhost").pathname;
    if (request.method === "POST" && urlPath === "/llm/chat/completions") return relayToModel(llm, request, response);
    if (urlPath === "/config.json") {
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      return response.end(JSON.stringify({ llm: llm ? { model: llm.model, endpoint: llm.label ?? llm.url } : null }));
    }
    const path = locate(urlPath);
    try {
      if (!path || !(await stat(path)).isFile()) throw new Error("not a file");
      const body = await readFile(path);
      response.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream", "cache-control": "no-store" });
      response.end(body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain" });
      response.end("not found\n");
    }
  });
  return new Promise((resolvePort) => server.listen(port, "127.0.0.1", () => resolvePort(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf("--port");
  const port = Number(flag > 0 ? process.argv[flag + 1] : (process.env.PORT ?? 8080));
  const llm = process.env.LLM_BASE_URL
    ? { url: process.env.LLM_BASE_URL, model: process.env.LLM_MODEL ?? "default", apiKey: process.env.LLM_API_KEY }
    : null;
  const server = await startServer(port, { llm });
  console.log(`agent-governor approval page: http://127.0.0.1:${server.address().port}/`);
}
