// A sample MCP server (the gateway's upstream): `send_email` appends what it sends to SENT_LOG, one JSON line
// per email, and the idempotency key it was given (the request's `_meta`) to SENT_LOG.keys; `lookup` reads.
// Over stdio when run with `stdio`; `startSampleServer()` serves it over Streamable HTTP in the calling process,
// stateless, or `{ stateful: true }` with sessions that `restart()` forgets (as an upstream that restarted).
import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export function sampleServer(sentLog) {
  const server = new McpServer({ name: "sample-mail", version: "1" }, { capabilities: { logging: {} } });
  // Beside its tools, a resource and a prompt (what a gateway must pass through untouched).
  server.registerResource("signature", "mail://signature", { mimeType: "text/plain" }, async (uri) => ({ contents: [{ uri: uri.href, text: "-- the sample mail server" }] }));
  server.registerPrompt("compose", { argsSchema: { to: z.string() } }, ({ to }) => ({ messages: [{ role: "user", content: { type: "text", text: `Write to ${to}` } }] }));
  server.registerTool("send_email", { description: "Sends an email", inputSchema: { to: z.string(), subject: z.string() } }, async (args, extra) => {
    appendFileSync(sentLog, `${JSON.stringify(args)}\n`);
    appendFileSync(`${sentLog}.keys`, `${JSON.stringify(extra?._meta?.["agent-governor/idempotency_key"] ?? null)}\n`);
    return { content: [{ type: "text", text: `sent to ${args.to}` }] };
  });
  // Looking up reports its progress (with a progress token) and logs what it looks up, on the call's stream.
  server.registerTool("lookup", { description: "Looks a word up", inputSchema: { word: z.string() } }, async ({ word }, extra) => {
    const token = extra?._meta?.progressToken;
    if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: 1, total: 1 } });
    await extra.sendNotification({ method: "notifications/message", params: { level: "info", data: `looking up ${word}` } });
    return { content: [{ type: "text", text: `${word}: found` }] };
  });
  return server;
}

/** The sample server over Streamable HTTP on 127.0.0.1: resolves to `{ url, close(), restart() }`. */
export async function startSampleServer(sentLog, { stateful = false } = {}) {
  const sessions = new Map();
  const http = createServer(async (request, response) => {
    if (stateful) {
      const id = request.headers["mcp-session-id"];
      if (id !== undefined) {
        const transport = sessions.get(id);
        // A session this server does not know (it restarted): 404, as the specification says.
        if (transport === undefined) return void response.writeHead(404).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return void (await transport.handleRequest(request, response));
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sessionId) => sessions.set(sessionId, transport) });
      await sampleServer(sentLog).connect(transport);
      return void (await transport.handleRequest(request, response));
    }
    const server = sampleServer(sentLog);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${http.address().port}/mcp`,
    /** Forgets every session, as an upstream that restarted. */
    restart: () => sessions.clear(),
    close: () => {
      for (const transport of sessions.values()) transport.close();
      http.closeAllConnections?.();
      return new Promise((resolve) => http.close(resolve));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "stdio") {
  await sampleServer(process.env.SENT_LOG).connect(new StdioServerTransport());
}
