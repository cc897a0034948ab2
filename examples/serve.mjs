// Serves the approval page (www/) and the built package (dist/, under /pkg/) on 127.0.0.1, and relays
// /llm/chat/completions to the configured OpenAI-compatible endpoint, adding its API key on the server side
// so the key never reaches the page. With an edge guard configured, /v1/* (and the /v1/feed WebSocket) is
// relayed to it with the inbox's bearer token added here, for the same reason; approvers need no token (they
// sign). /config.json tells the page which model answers and whether a guard is there; /agent/log is the tail
// of the governed agent's execution log when one runs beside the server (npm start).
// Usage: node examples/serve.mjs [--port N]   (PORT in the environment works too; 0 picks a free port)
import { createServer } from "node:http";
import { connect } from "node:net";
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

/** The guard's HTTP API, with the inbox token added; the answer (status, JSON body) passes through as is. */
async function relayToGuard(guard, request, response, path) {
  if (!guard) {
    response.writeHead(503, { "content-type": "application/json" });
    return response.end(JSON.stringify({ code: "not_configured", message: "no edge guard is configured", path: "" }));
  }
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  try {
    const upstream = await fetch(`${guard.url}${path}`, {
      method: request.method,
      headers: {
        authorization: `Bearer ${guard.inboxToken}`,
        ...(hasBody ? { "content-type": request.headers["content-type"] ?? "application/json" } : {}),
      },
      body: hasBody ? Buffer.concat(chunks) : undefined,
    });
    response.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json", "cache-control": "no-store" });
    response.end(Buffer.from(await upstream.arrayBuffer()));
  } catch (error) {
    response.writeHead(502, { "content-type": "application/json" });
    response.end(JSON.stringify({ code: "guard_unreachable", message: `the edge guard is unreachable: ${error.message}`, path: "" }));
  }
}

/**
 * First-run registration on this machine: a one-time enrollment code from the guard, asked for with the admin
 * token the local server holds, for the first approver only, who has the admin role (the Command UI); every
 * later person is invited by an admin in the inbox. Only a server started with the admin token (npm start's local guard) offers
 * it; a deployment hands codes out to its approvers instead.
 */
async function enrollHere(guard, request, response) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  if (!guard?.adminToken) {
    response.writeHead(503, { "content-type": "application/json" });
    return response.end(JSON.stringify({ code: "not_configured", message: "ask your admin for an enrollment code", path: "" }));
  }
  let approver;
  try {
    ({ approver } = JSON.parse(Buffer.concat(chunks).toString("utf8")));
  } catch {
    response.writeHead(400, { "content-type": "application/json" });
    return response.end(JSON.stringify({ code: "invalid_input", message: "the body must be JSON: { approver }", path: "" }));
  }
  try {
    // Only the first person to register on this machine's guard enrols without a code: they are its admin
    // (the Command UI is theirs). Everyone after, here too, is invited by an admin, who gives them a code.
    const state = await fetch(`${guard.url}/v1/enrollments`, { headers: { authorization: `Bearer ${guard.inboxToken}` } });
    if (!state.ok || (await state.json()).has_approvers !== false) {
      response.writeHead(403, { "content-type": "application/json" });
      return response.end(JSON.stringify({ code: "forbidden", message: "this inbox has approvers already: ask an admin to invite you, and enter the code they give you", path: "enrollment_code" }));
    }
    const upstream = await fetch(`${guard.url}/v1/enrollments`, {
      method: "POST",
      headers: { authorization: `Bearer ${guard.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ approver, roles: ["admin"] }),
    });
    response.writeHead(upstream.status, { "content-type": "application/json", "cache-control": "no-store" });
    response.end(Buffer.from(await upstream.arrayBuffer()));
  } catch (error) {
    response.writeHead(502, { "content-type": "application/json" });
    response.end(JSON.stringify({ code: "guard_unreachable", message: error.message, path: "" }));
  }
}

/** The feed's WebSocket upgrade, piped to the guard with the inbox token in the Authorization header (never in a URL). */
function relayFeed(guard, request, socket, head) {
  const url = new URL(request.url, "http://localhost");
  if (!guard || url.pathname !== "/v1/feed") return socket.destroy();
  const target = new URL(guard.url);
  const upstream = connect(Number(target.port || 80), target.hostname, () => {
    const headers = Object.entries(request.headers)
      .filter(([name]) => !["host", "authorization"].includes(name))
      .map(([name, value]) => `${name}: ${value}`);
    upstream.write(
      [`GET /v1/feed HTTP/1.1`, `host: ${target.host}`, `authorization: Bearer ${guard.inboxToken}`, ...headers, "", ""].join("\r\n"),
    );
    if (head?.length) upstream.write(head);
    upstream.pipe(socket);
    socket.pipe(upstream);
  });
  const close = () => {
    upstream.destroy();
    socket.destroy();
  };
  upstream.on("error", close);
  socket.on("error", close);
  socket.on("close", close);
}

/**
 * Whether a request comes from this server's own pages: its Host is this server (a name another site
 * rebinds to 127.0.0.1 is refused) and, when the browser says where the page came from, its Origin is this
 * server too. The relays add tokens: no other site's page may use them.
 */
function fromOwnPage(server, request) {
  const port = server.address()?.port;
  const hosts = [`localhost:${port}`, `127.0.0.1:${port}`];
  if (!hosts.includes(request.headers.host ?? "")) return false;
  const origin = request.headers.origin;
  return origin === undefined || hosts.some((host) => origin === `http://${host}`);
}

/** The demo task board's state (GET {board}/board), for /board.html; 503 when no board runs beside this server. */
async function boardState(board, response) {
  const send = (status, body) => {
    response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
    response.end(JSON.stringify(body));
  };
  if (!board) return send(503, { code: "not_configured", message: "no task board runs beside this server", path: "" });
  try {
    return send(200, await (await fetch(`${board.url}/board`)).json());
  } catch (error) {
    return send(502, { code: "board_unreachable", message: `the task board is unreachable: ${error.message}`, path: "" });
  }
}

/** The agent's execution log tail as `{ records }`, or 503 when no agent runs beside this server. */
async function agentLog(agent, response) {
  const send = (status, body) => {
    response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
    response.end(JSON.stringify(body));
  };
  if (!agent) return send(503, { code: "not_configured", message: "no agent runs beside this server", path: "" });
  try {
    return send(200, { records: await agent.logTail() });
  } catch (error) {
    return send(500, { code: "log_unreadable", message: `the agent's log could not be read: ${error.message}`, path: "" });
  }
}

/**
 * `llm`: { url, model, apiKey? } of the endpoint the page's model demos ask, or null. `guard`: { url,
 * inboxToken, adminToken?, rpId } of the edge guard service the inbox talks to, or null. `agent`: { logTail() }
 * of the governed agent running beside the server, or null; it may be set later with `server.setAgent`.
 * `board`: { url } of the demo task board, served to /board.html as /board/state. `server.shutdown()` closes
 * every connection (open tabs included) and resolves once the server has stopped.
 */
export async function startServer(port = 0, { llm = null, guard = null, agent = null, board = null } = {}) {
  let currentAgent = agent;
  // Every open connection (the feed's WebSocket relays among them), so that a stop closes them all at once.
  const sockets = new Set();
  const server = createServer(async (request, response) => {
    const url = new URL(request.url, "http://localhost");
    const urlPath = url.pathname;
    // What acts with the server's tokens answers only this server's own pages (see `fromOwnPage`).
    if ((urlPath.startsWith("/v1/") || urlPath === "/inbox/enrollment" || urlPath.startsWith("/llm/")) && !fromOwnPage(server, request)) {
      response.writeHead(403, { "content-type": "application/json" });
      return response.end(JSON.stringify({ code: "forbidden", message: "only this server's own pages may use it (Host and Origin must be this server)", path: "" }));
    }
    if (request.method === "POST" && urlPath === "/llm/chat/completions") return relayToModel(llm, request, response);
    if (urlPath.startsWith("/v1/")) return relayToGuard(guard, request, response, `${urlPath}${url.search}`);
    if (request.method === "POST" && urlPath === "/inbox/enrollment") return enrollHere(guard, request, response);
    if (request.method === "GET" && urlPath === "/agent/log") return agentLog(currentAgent, response);
    if (request.method === "GET" && urlPath === "/board/state") return boardState(board, response);
    if (urlPath === "/config.json") {
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      return response.end(
        JSON.stringify({
          llm: llm ? { model: llm.model, endpoint: llm.label ?? llm.url } : null,
          guard: guard ? { rpId: guard.rpId ?? "localhost" } : null,
          // The agent this server runs beside (npm start): the inbox shows and commands it.
          agent: currentAgent?.id ? { id: currentAgent.id } : null,
        }),
      );
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
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("upgrade", (request, socket, head) => {
    if (!fromOwnPage(server, request)) return socket.destroy();
    relayFeed(guard, request, socket, head);
  });
  /** Stops listening and closes every connection now, open tabs' feeds included. */
  server.shutdown = () =>
    new Promise((resolveClose) => {
      server.close(() => resolveClose());
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections?.();
    });
  server.setAgent = (next) => {
    currentAgent = next;
  };
  // A port in use (EADDRINUSE) rejects, so `npm start` says so and stops instead of waiting forever.
  await new Promise((resolveListen, rejectListen) => {
    server.once("error", rejectListen);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", rejectListen);
      resolveListen();
    });
  });
  return server;
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
