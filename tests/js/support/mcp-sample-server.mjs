// A sample MCP server (the gateway's upstream): `send_email` appends what it sends to SENT_LOG, one JSON line
// per email; `lookup` reads. Over stdio when run with `stdio`; `startSampleServer()` serves it over Streamable
// HTTP in the calling process.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

export function sampleServer(sentLog) {
  const server = new McpServer({ name: "sample-mail", version: "1" });
  server.registerTool("send_email", { description: "Sends an email", inputSchema: { to: z.string(), subject: z.string() } }, async (args) => {
    appendFileSync(sentLog, `${JSON.stringify(args)}\n`);
    return { content: [{ type: "text", text: `sent to ${args.to}` }] };
  });
  server.registerTool("lookup", { description: "Looks a word up", inputSchema: { word: z.string() } }, async ({ word }) => ({ content: [{ type: "text", text: `${word}: found` }] }));
  return server;
}

/** The sample server over stateless Streamable HTTP on 127.0.0.1: resolves to `{ url, close() }`. */
export async function startSampleServer(sentLog) {
  const http = createServer(async (request, response) => {
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
  return { url: `http://127.0.0.1:${http.address().port}/mcp`, close: () => new Promise((resolve) => http.close(resolve)) };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "stdio") {
  await sampleServer(process.env.SENT_LOG).connect(new StdioServerTransport());
}
