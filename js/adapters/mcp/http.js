// Serving an MCP gateway over Streamable HTTP in Node (`agent-governor/mcp/http`): stateful by default, one
// session per client with its own server (and its own upstream session with `connectUpstream`), resumable
// (a client that lost its stream reconnects with `Last-Event-ID` and gets what it missed, from a bounded
// memory of events); or stateless, a server per request, where a pending approval is continued with its
// `requestState` (URL-mode elicitation needs a session). A session unknown here (after a restart) is a 404,
// which tells the client to initialize again; its pending approvals are in the gateway's store.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { typedError } from "../approver/errors.js";
import { readOptions } from "../approver/options.js";

const SERVE_OPTIONS = {
  port: "number",
  host: "string",
  path: "string",
  stateless: "boolean",
  maxEvents: "number",
  maxSessions: "number",
  sessionIdleMs: "number",
  authenticate: "function",
  allowedHosts: "array",
};
/** Whether `host` is a loopback address: a gateway listening on one answers only requests addressed to one. */
const isLoopback = (host) => host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
/** The most events kept per session for a client that reconnects (the oldest are forgotten first). */
const MAX_EVENTS = 1_000;
/** A session no request has used for this long is closed (its client initializes again if it comes back). */
const SESSION_IDLE_MS = 30 * 60 * 1000;
/** The most sessions open at once: a new client beyond is refused (503), an old one is never dropped for it. */
const MAX_SESSIONS = 1_000;

/**
 * Events kept for resumption, in memory, the newest `limit` across every stream of one session (each session
 * has its own: a client resuming is never replayed another session's messages).
 */
export function memoryEventStore(limit = MAX_EVENTS) {
  const events = new Map();
  return {
    async storeEvent(streamId, message) {
      const eventId = `${streamId}_${randomUUID()}`;
      events.set(eventId, { streamId, message });
      while (events.size > limit) events.delete(events.keys().next().value);
      return eventId;
    },
    async getStreamIdForEventId(eventId) {
      return events.get(eventId)?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const last = events.get(lastEventId);
      if (last === undefined) return "";
      let after = false;
      for (const [eventId, event] of events) {
        if (after && event.streamId === last.streamId) await send(eventId, event.message);
        if (eventId === lastEventId) after = true;
      }
      return last.streamId;
    },
  };
}

const jsonRpcError = (response, status, code, message) => {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
};

/**
 * Serves `gateway` (from `createMcpGateway`) at `http://host:port/path`. Options: `port` (0: any free one),
 * `host` ("127.0.0.1"), `path` ("/mcp"), `stateless` (false), `allowedHosts` (the Host headers answered: on a
 * loopback address, by default, only localhost, 127.0.0.1, [::1] and the host; required on any other),
 * `sessionIdleMs` (30 min: an idle session is closed), `maxEvents` and `maxSessions` (the bounds of what
 * is kept in memory), `authenticate(request)` (the caller's `{ clientId, token, scopes }`, or null for 401;
 * the gateway joins an authenticated client's retries across connections). Resolves to `{ url, sessions(),
 * close() }`.
 */
export async function serveMcpGateway(gateway, options = {}) {
  const given = readOptions("serveMcpGateway", "options", options, SERVE_OPTIONS);
  if (typeof gateway?.createServer !== "function") throw typedError("invalid_input", "gateway", "gateway must be what createMcpGateway resolved to");
  const { port = 0, host = "127.0.0.1", path = "/mcp", stateless = false, maxEvents = MAX_EVENTS, maxSessions = MAX_SESSIONS, sessionIdleMs = SESSION_IDLE_MS, authenticate, allowedHosts } = given;
  if (allowedHosts !== undefined && !allowedHosts.every((name) => typeof name === "string" && name !== "")) {
    throw typedError("invalid_input", "options.allowedHosts", "allowedHosts must list host names (strings, with or without a port)");
  }
  for (const [name, value] of [["port", port], ["maxEvents", maxEvents], ["maxSessions", maxSessions], ["sessionIdleMs", sessionIdleMs]]) {
    if (!Number.isSafeInteger(value) || value < 0) throw typedError("invalid_input", `options.${name}`, `${name} must be a whole number, 0 or more`);
  }
  if (!path.startsWith("/")) throw typedError("invalid_input", "options.path", "path must start with /");
  // Every interface, or a name of this machine: which Host headers are its own only the caller knows.
  if (!isLoopback(host) && allowedHosts === undefined) {
    throw typedError("invalid_input", "options.allowedHosts", `listening on ${host} needs allowedHosts, the Host headers this gateway answers (a loopback host checks them itself)`);
  }
  const sessions = new Map();
  // Sessions idle for `sessionIdleMs` are closed (a client that comes back initializes again).
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (now - session.usedAt > sessionIdleMs) {
        sessions.delete(id);
        session.transport.close().catch(() => {});
      }
    }
  }, Math.max(1000, Math.min(sessionIdleMs, 60_000)));
  sweep.unref?.();

  // The Host headers answered: `allowedHosts`, or on a loopback address the loopback names (a web page
  // elsewhere cannot reach the gateway by rebinding its own name to 127.0.0.1); otherwise any.
  const hostsAllowed = allowedHosts ?? ["localhost", "127.0.0.1", "[::1]", host];
  const hostAllowed = (header) => {
    if (typeof header !== "string") return false;
    const name = header.replace(/:\d+$/, "").toLowerCase();
    return hostsAllowed.some((allowed) => allowed.toLowerCase() === header.toLowerCase() || allowed.toLowerCase() === name);
  };

  async function handle(request, response) {
    if (!hostAllowed(request.headers.host)) return jsonRpcError(response, 403, -32000, "the Host header names no host this gateway answers (allowedHosts)");
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== path) return jsonRpcError(response, 404, -32601, `not found: the gateway is at ${path}`);
    if (authenticate) {
      const auth = await authenticate(request);
      if (auth === null || auth === undefined) return jsonRpcError(response, 401, -32001, "unauthorized");
      request.auth = auth;
    }
    if (stateless) {
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = gateway.createServer();
      response.on("close", () => {
        transport.close().catch(() => {});
        server.close().catch(() => {});
      });
      await server.connect(transport);
      return transport.handleRequest(request, response);
    }
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      // Unknown (this process restarted, or the session ended): the client initializes again.
      if (session === undefined) return jsonRpcError(response, 404, -32001, "session not found: initialize a new one");
      session.usedAt = Date.now();
      return session.transport.handleRequest(request, response);
    }
    if (request.method !== "POST") return jsonRpcError(response, 400, -32000, "no session: a client starts with an initialize request (POST)");
    if (sessions.size >= maxSessions) return jsonRpcError(response, 503, -32000, `the gateway has ${maxSessions} sessions open: try again later`);
    const server = gateway.createServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: memoryEventStore(maxEvents),
      onsessioninitialized: (id) => sessions.set(id, { transport, server, usedAt: Date.now() }),
      onsessionclosed: (id) => sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      server.close().catch(() => {});
    };
    await server.connect(transport);
    await transport.handleRequest(request, response);
    // Not an initialize (refused by the transport): nothing of it is kept.
    if (!transport.sessionId) await transport.close().catch(() => {});
  }

  const http = createServer((request, response) => {
    handle(request, response).catch((error) => {
      if (!response.headersSent) jsonRpcError(response, 500, -32603, `the gateway failed: ${error?.message ?? error}`);
      else response.end();
    });
  });
  await new Promise((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, resolve);
  });
  const address = http.address();
  return {
    url: new URL(`http://${host.includes(":") ? `[${host}]` : host}:${address.port}${path}`),
    /** The ids of the sessions open now. */
    sessions: () => [...sessions.keys()],
    /** Stops serving: every session is closed and every connection ended. */
    async close() {
      clearInterval(sweep);
      for (const { transport } of sessions.values()) await transport.close().catch(() => {});
      sessions.clear();
      http.closeAllConnections?.();
      await new Promise((resolve) => http.close(() => resolve()));
    },
  };
}
