// An OpenAI-compatible endpoint for the agent tests: it answers each structured-output request with what
// `answerFor(name, schema)` returns (it may be async), so a test asserts what the agent sends and does, never a
// model's verdict. The reviews' usual answers are here too.
import { createServer } from "node:http";

/** The first choice of a oneOf, with each const as its value and each free string filled in. */
export function firstChoice(schema) {
  const choice = schema.oneOf[0];
  return Object.fromEntries(
    Object.entries(choice.properties).map(([name, field]) => [name, "const" in field ? field.const : field.type === "null" ? null : `a ${name}`]),
  );
}

/** A Watcher verdict that passes, in the contract's shape. */
export const PASSING_VERDICT = { pass: true, issues: [], inspection_log: "1. read", blindspots_covered: ["a"], misclassification_detected: false, reclassification_suggestion: null, trade_offs_acknowledged: true };

/** A Closer answer that finds the step complete. */
export function completeChecklist(description = "the move is one the board allows") {
  return { checklist: [{ id: "moves", description, completed: true, evidence: "preview" }], allComplete: true, summary: "ok", pendingActions: [], confidence: 0.9 };
}

/**
 * The answer to a request that offers tools: the call `toolCallFor(body)` returns (`{ name, arguments }`),
 * or, once a tool's result is in the conversation, a short text.
 */
function toolAnswer(body, toolCallFor) {
  const last = body.messages.at(-1);
  if (last?.role === "tool") return { finish_reason: "stop", message: { role: "assistant", content: "Done." } };
  const call = toolCallFor(body);
  const tool_calls = [{ id: `call_${body.messages.length}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }];
  return { finish_reason: "tool_calls", message: { role: "assistant", content: null, tool_calls } };
}

/**
 * Starts the endpoint on 127.0.0.1; resolves to the http.Server (its `/v1` is the base URL). A request that
 * offers tools is answered by `toolCallFor` (see `toolAnswer`).
 */
export function startScriptedModel(answerFor, { toolCallFor } = {}) {
  const server = createServer(async (request, response) => {
    let raw = "";
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw);
    let choice;
    if (Array.isArray(body.tools) && toolCallFor) {
      choice = toolAnswer(body, toolCallFor);
    } else {
      const { name, schema } = body.response_format.json_schema;
      choice = { finish_reason: "stop", message: { role: "assistant", content: JSON.stringify(await answerFor(name, schema, body)) } };
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ id: "scripted", object: "chat.completion", created: 1_700_000_000, model: body.model, choices: [{ index: 0, ...choice }] }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** The endpoint's base URL, as the agent's `llm.url`. */
export const modelUrl = (server) => `http://127.0.0.1:${server.address().port}/v1`;
