// The embedded default model: SmolLM2-135M-Instruct run by node-llama-cpp (CPU, one thread) behind a small
// OpenAI-compatible server on 127.0.0.1, so a browser, Node or workerd reach it with fetch like any provider.
//
//   POST /v1/chat/completions   messages, max_tokens, temperature, response_format (json_schema | json_object),
//                               tools (function tools; `tool_choice` "none" turns them off): when the last
//                               message is not a tool's result, the answer is one call of one of the tools,
//                               its arguments held to the tool's parameters by a grammar
//   GET  /v1/models
//
// Usage: node examples/local-llm/server.mjs [--port N] [--model PATH]   (prints "listening on URL" when ready)
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { getLlama, LlamaChatSession } from "node-llama-cpp";

const MODEL_NAME = "smollm2-135m-instruct";
const defaultModelPath = fileURLToPath(new URL("../../.cache/model/SmolLM2-135M-Instruct.Q4_1.gguf", import.meta.url));
const MAX_BODY_BYTES = 1 << 20;
// A 135M model falls into repeating one token inside a string until the token limit, fills every array to
// its cap, and leaves strings empty; tightening the grammar (not the schema the library sends, which stays
// valid for any provider) keeps its answers whole and within what the library's parser accepts.
const MAX_STRING_LENGTH = 160;
const MAX_GRAMMAR_ITEMS = 3;
const CONFIDENCES = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** A copy of `schema` in which every string is 1 to 160 characters, every array holds at most 3 items and
 * every number is a tenth between 0 and 1. */
function withCappedStrings(schema) {
  if (Array.isArray(schema)) return schema.map(withCappedStrings);
  if (!schema || typeof schema !== "object") return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === "enum" || key === "const" ? value : withCappedStrings(value)]));
  const types = Array.isArray(copy.type) ? copy.type : [copy.type];
  if (types.includes("string") && copy.enum === undefined) {
    copy.maxLength ??= MAX_STRING_LENGTH;
    copy.minLength ??= 1;
  }
  if (types.includes("array")) copy.maxItems = Math.min(copy.maxItems ?? MAX_GRAMMAR_ITEMS, MAX_GRAMMAR_ITEMS);
  // The library's only numbers are confidences in [0, 1], which its parser enforces; the grammar offers tenths.
  if (types.includes("number") && copy.enum === undefined) copy.enum = CONFIDENCES;
  return copy;
}

/**
 * The JSON schema of one call of one of `tools` (OpenAI function tools): `{ name, arguments }`, the arguments
 * held to that tool's parameters. Keys a grammar has no use for (`$schema`, descriptions) are dropped.
 */
function toolCallSchema(tools) {
  const strip = (value) => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== "object") return value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => !["$schema", "description", "title"].includes(key)).map(([key, item]) => [key, strip(item)]));
  };
  const choices = tools.map((tool) => ({
    type: "object",
    properties: { name: { const: tool.function.name }, arguments: strip(tool.function.parameters ?? { type: "object", properties: {} }) },
    required: ["name", "arguments"],
    additionalProperties: false,
  }));
  return choices.length === 1 ? choices[0] : { oneOf: choices };
}

/** The function tools a request offers, checked; an empty list when none is offered or `tool_choice` is "none". */
function offeredTools(body) {
  if (body.tools === undefined || body.tool_choice === "none") return [];
  if (!Array.isArray(body.tools) || body.tools.length > 64 || !body.tools.every((tool) => tool?.type === "function" && typeof tool.function?.name === "string")) {
    throw Object.assign(new Error("tools must be a list of at most 64 function tools"), { status: 400 });
  }
  return body.tools;
}

function argument(name, fallback) {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : fallback;
}

const corsHeaders = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, authorization",
};

function send(response, status, body) {
  response.writeHead(status, { "content-type": "application/json", ...corsHeaders });
  response.end(JSON.stringify(body));
}

function openAIError(response, status, message, type = "invalid_request_error") {
  send(response, status, { error: { message, type } });
}

async function readBody(request) {
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error("request body too large"), { status: 413 });
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw Object.assign(new Error("request body is not JSON"), { status: 400 });
  }
}

/** `threads`: CPU threads for generation (1 in tests, beside other work; `npm start` uses every core it has). */
export async function startModelServer({ port = 0, modelPath = defaultModelPath, threads = 1 } = {}) {
  const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: 4096, threads });
  const grammars = new Map();
  let queue = Promise.resolve();

  async function grammarFor(responseFormat) {
    if (!responseFormat || responseFormat.type === "text") return undefined;
    if (responseFormat.type === "json_object") return llama.getGrammarFor("json");
    if (responseFormat.type === "json_schema") {
      const schema = responseFormat.json_schema?.schema;
      if (!schema || typeof schema !== "object") throw Object.assign(new Error("json_schema.schema is required"), { status: 400 });
      const key = JSON.stringify(schema);
      if (!grammars.has(key)) grammars.set(key, await llama.createGrammarForJsonSchema(withCappedStrings(schema)));
      return grammars.get(key);
    }
    throw Object.assign(new Error(`unsupported response_format type ${responseFormat.type}`), { status: 400 });
  }

  async function complete(body) {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const last = messages.at(-1);
    if (!last || typeof last.content !== "string") throw Object.assign(new Error("messages must end with a text message"), { status: 400 });
    const system = messages.filter((m) => m.role === "system").map((m) => m.content).join("\n") || undefined;
    // Offered tools and not answering a tool's result: the answer is a call.
    const tools = last.role === "tool" ? [] : offeredTools(body);
    const grammar = tools.length > 0 ? await grammarFor({ type: "json_schema", json_schema: { schema: toolCallSchema(tools) } }) : await grammarFor(body.response_format);
    const sequence = context.getSequence();
    try {
      const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system });
      const maxTokens = Math.min(Number(body.max_tokens ?? body.max_completion_tokens ?? 512), 4096);
      const { responseText, stopReason } = await session.promptWithMeta(last.content, {
        grammar,
        maxTokens,
        temperature: Number(body.temperature ?? 0),
        repeatPenalty: { lastTokens: 64, penalty: 1.1 },
      });
      const completionTokens = model.tokenize(responseText).length;
      if (tools.length > 0 && stopReason !== "maxTokens") {
        const call = JSON.parse(responseText);
        const toolCalls = [{ id: `call_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }];
        return { content: null, toolCalls, finishReason: "tool_calls", completionTokens };
      }
      const finishReason = stopReason === "maxTokens" ? "length" : "stop";
      return { content: responseText, finishReason, completionTokens };
    } finally {
      sequence.dispose();
    }
  }

  const server = createServer(async (request, response) => {
    try {
      if (request.method === "OPTIONS") {
        response.writeHead(204, corsHeaders);
        return response.end();
      }
      const path = new URL(request.url, "http://localhost").pathname.replace(/\/+$/, "");
      if (request.method === "GET" && path === "/v1/models") {
        return send(response, 200, { object: "list", data: [{ id: MODEL_NAME, object: "model", owned_by: "local" }] });
      }
      if (request.method !== "POST" || path !== "/v1/chat/completions") {
        return openAIError(response, 404, `no route ${request.method} ${path}`);
      }
      const body = await readBody(request);
      // One generation at a time: the model runs on one thread.
      const run = queue.then(() => complete(body));
      queue = run.catch(() => {});
      const { content, toolCalls, finishReason, completionTokens } = await run;
      send(response, 200, {
        id: `chatcmpl-${Date.now().toString(36)}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: MODEL_NAME,
        choices: [{ index: 0, message: { role: "assistant", content, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: finishReason }],
        usage: { completion_tokens: completionTokens },
      });
    } catch (error) {
      openAIError(response, error.status ?? 500, error.message, error.status ? "invalid_request_error" : "server_error");
    }
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  return {
    url,
    model: MODEL_NAME,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await context.dispose();
      await model.dispose();
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startModelServer({ port: Number(argument("--port", 8081)), modelPath: argument("--model", defaultModelPath) });
  console.log(`local model ${server.model} listening on ${server.url}`);
}
