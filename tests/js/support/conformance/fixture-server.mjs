// The MCP conformance suite's fixture server, for the server scenarios of @modelcontextprotocol/conformance
// 0.1.16: the tools, resources, prompts and answers its scenarios call, as the suite's own reference server
// (examples/servers/typescript/everything-server.ts in github.com/modelcontextprotocol/conformance, MIT /
// Apache-2.0) defines them, written again in plain JavaScript over the SDK, served over Streamable HTTP with
// sessions and with the SDK's localhost Host check (DNS rebinding protection).
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ElicitResultSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const AUDIO = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" }, contactMethod: { type: "string", enum: ["phone", "email"] }, phone: { type: "string" }, email: { type: "string" } },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

const text = (value) => ({ content: [{ type: "text", text: value }] });
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One server (one per session), with everything the suite's server scenarios ask for. */
export function fixtureServer({ transports }) {
  const mcp = new McpServer({ name: "mcp-conformance-test-server", version: "1.0.0" }, { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, logging: {}, completions: {} } });
  const log = (level, data) => mcp.server.sendLoggingMessage({ level, data }).catch(() => {});

  mcp.registerTool("test_simple_text", { description: "Tests simple text content response" }, async () => text("This is a simple text response for testing."));
  mcp.registerTool("test_image_content", { description: "Tests image content response" }, async () => ({ content: [{ type: "image", data: IMAGE, mimeType: "image/png" }] }));
  mcp.registerTool("test_audio_content", { description: "Tests audio content response" }, async () => ({ content: [{ type: "audio", data: AUDIO, mimeType: "audio/wav" }] }));
  mcp.registerTool("test_embedded_resource", { description: "Tests embedded resource content response" }, async () => ({
    content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }],
  }));
  mcp.registerTool("test_multiple_content_types", { description: "Tests response with multiple content types" }, async () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: IMAGE, mimeType: "image/png" },
      { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
    ],
  }));
  mcp.registerTool("test_tool_with_logging", { description: "Tests tool that emits log messages during execution", inputSchema: {} }, async (_args, { sendNotification }) => {
    for (const [index, data] of ["Tool execution started", "Tool processing data", "Tool execution completed"].entries()) {
      if (index > 0) await pause(50);
      await sendNotification({ method: "notifications/message", params: { level: "info", data } });
    }
    return text("Tool with logging executed successfully");
  });
  mcp.registerTool("test_tool_with_progress", { description: "Tests tool that reports progress notifications", inputSchema: {} }, async (_args, { sendNotification, _meta }) => {
    const progressToken = _meta?.progressToken ?? 0;
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await pause(50);
      await sendNotification({ method: "notifications/progress", params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` } });
    }
    return text(String(progressToken));
  });
  mcp.registerTool("test_error_handling", { description: "Tests error response handling" }, async () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  mcp.registerTool("test_reconnection", { description: "Closes the SSE stream mid-call (SEP-1699)", inputSchema: {} }, async (_args, { sessionId, requestId }) => {
    const transport = sessionId ? transports.get(sessionId) : undefined;
    if (transport && requestId !== undefined) transport.closeSSEStream?.(requestId);
    await pause(100);
    return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.");
  });
  mcp.registerTool("test_sampling", { description: "Tests server-initiated sampling", inputSchema: { prompt: z.string() } }, async ({ prompt }, { sendRequest }) => {
    try {
      const result = await sendRequest({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 } }, z.object({}).passthrough());
      return text(`LLM response: ${result.content?.text ?? result.message?.content?.text ?? "No response"}`);
    } catch (error) {
      return text(`Sampling not supported or error: ${error.message}`);
    }
  });
  const elicit = (message, requestedSchema) => async (_args, { sendRequest }) => {
    try {
      const result = await sendRequest({ method: "elicitation/create", params: { message, requestedSchema } }, ElicitResultSchema);
      return text(`Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
    } catch (error) {
      return text(`Elicitation not supported or error: ${error.message}`);
    }
  };
  mcp.registerTool("test_elicitation", { description: "Tests server-initiated elicitation", inputSchema: { message: z.string() } }, async ({ message }, extra) =>
    elicit(message, { type: "object", properties: { response: { type: "string", description: "User's response" } }, required: ["response"] })({}, extra),
  );
  mcp.registerTool(
    "test_elicitation_sep1034_defaults",
    { description: "Tests elicitation with default values per SEP-1034", inputSchema: {} },
    elicit("Please review and update the form fields with defaults", {
      type: "object",
      properties: {
        name: { type: "string", description: "User name", default: "John Doe" },
        age: { type: "integer", description: "User age", default: 30 },
        score: { type: "number", description: "User score", default: 95.5 },
        status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
        verified: { type: "boolean", description: "Verification status", default: true },
      },
      required: [],
    }),
  );
  mcp.registerTool(
    "test_elicitation_sep1330_enums",
    { description: "Tests elicitation with enum schema improvements per SEP-1330", inputSchema: {} },
    elicit("Please select options from the enum fields", {
      type: "object",
      properties: {
        untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
        titledSingle: { type: "string", description: "Select one option with titles", oneOf: [{ const: "value1", title: "First Option" }, { const: "value2", title: "Second Option" }, { const: "value3", title: "Third Option" }] },
        legacyEnum: { type: "string", description: "Select one option (legacy)", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
        untitledMulti: { type: "array", description: "Select multiple options", minItems: 1, maxItems: 3, items: { type: "string", enum: ["option1", "option2", "option3"] } },
        titledMulti: { type: "array", description: "Select multiple options with titles", minItems: 1, maxItems: 3, items: { anyOf: [{ const: "value1", title: "First Choice" }, { const: "value2", title: "Second Choice" }, { const: "value3", title: "Third Choice" }] } },
      },
      required: [],
    }),
  );
  mcp.registerTool("json_schema_2020_12_tool", { description: "Tool with JSON Schema 2020-12 features (SEP-1613)", inputSchema: { name: z.string().optional(), address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional() } }, async (args) =>
    text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );

  mcp.registerResource("static-text", "test://static-text", { title: "Static Text Resource", description: "A static text resource for testing", mimeType: "text/plain" }, async () => ({
    contents: [{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }],
  }));
  mcp.registerResource("static-binary", "test://static-binary", { title: "Static Binary Resource", description: "A static binary resource (image) for testing", mimeType: "image/png" }, async () => ({
    contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: IMAGE }],
  }));
  mcp.registerResource("template", new ResourceTemplate("test://template/{id}/data", { list: undefined }), { title: "Resource Template", description: "A resource template with parameter substitution", mimeType: "application/json" }, async (uri, { id }) => ({
    contents: [{ uri: uri.toString(), mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
  }));
  mcp.registerResource("watched-resource", "test://watched-resource", { title: "Watched Resource", description: "A resource that auto-updates", mimeType: "text/plain" }, async () => ({
    contents: [{ uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content" }],
  }));
  const subscriptions = new Set();
  mcp.server.setRequestHandler(z.object({ method: z.literal("resources/subscribe") }).passthrough(), async (request) => {
    subscriptions.add(request.params.uri);
    log("info", `Subscribed to resource: ${request.params.uri}`);
    return {};
  });
  mcp.server.setRequestHandler(z.object({ method: z.literal("resources/unsubscribe") }).passthrough(), async (request) => {
    subscriptions.delete(request.params.uri);
    log("info", `Unsubscribed from resource: ${request.params.uri}`);
    return {};
  });

  mcp.registerPrompt("test_simple_prompt", { title: "Simple Test Prompt", description: "A simple prompt without arguments" }, async () => ({
    messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
  }));
  mcp.registerPrompt("test_prompt_with_arguments", { title: "Prompt With Arguments", description: "A prompt with required arguments", argsSchema: { arg1: z.string(), arg2: z.string() } }, async ({ arg1, arg2 }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
  }));
  mcp.registerPrompt("test_prompt_with_embedded_resource", { title: "Prompt With Embedded Resource", description: "A prompt that includes an embedded resource", argsSchema: { resourceUri: z.string() } }, async ({ resourceUri }) => ({
    messages: [
      { role: "user", content: { type: "resource", resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } } },
      { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
    ],
  }));
  mcp.registerPrompt("test_prompt_with_image", { title: "Prompt With Image", description: "A prompt that includes image content" }, async () => ({
    messages: [
      { role: "user", content: { type: "image", data: IMAGE, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  }));

  mcp.server.setRequestHandler(z.object({ method: z.literal("logging/setLevel") }).passthrough(), async (request) => {
    log("info", `Log level set to: ${request.params.level}`);
    return {};
  });
  mcp.server.setRequestHandler(z.object({ method: z.literal("completion/complete") }).passthrough(), async () => ({ completion: { values: [], total: 0, hasMore: false } }));
  // tools/list with the 2020-12 tool's schema exactly as written (the SDK would rewrite it from zod).
  const listTools = mcp.server._requestHandlers.get("tools/list");
  mcp.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const listed = await listTools(request, extra);
    return { ...listed, tools: listed.tools.map((tool) => (tool.name === "json_schema_2020_12_tool" ? { ...tool, inputSchema: JSON_SCHEMA_2020_12 } : tool)) };
  });
  return mcp;
}

/** Only a localhost Host header reaches a server listening on localhost (DNS rebinding protection). */
export function localHost(request, port) {
  const host = request.headers.host ?? "";
  return [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`].includes(host);
}

/** Serves the fixture at `http://localhost:<port>/mcp`, one session per client. Resolves to `{ url, close() }`. */
export async function startFixtureServer() {
  const transports = new Map();
  let port = 0;
  const http = createServer(async (request, response) => {
    if (!localHost(request, port)) {
      response.writeHead(403, { "content-type": "application/json" });
      return response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Invalid Host header" }, id: null }));
    }
    const id = request.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (typeof id === "string" && !transport) {
      response.writeHead(404, { "content-type": "application/json" });
      return response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
    }
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (sessionId) => transports.set(sessionId, transport) });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await fixtureServer({ transports }).connect(transport);
    }
    await transport.handleRequest(request, response);
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  port = http.address().port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const transport of transports.values()) await transport.close().catch(() => {});
      http.closeAllConnections?.();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
