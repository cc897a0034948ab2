// An OpenAI-compatible chat completions endpoint that answers with scripted tool calls or text, streamed or
// not, so an adapter's test drives the framework's real provider over HTTP and asserts what the tools did.
import { createServer } from "node:http";

/**
 * Starts the endpoint on 127.0.0.1. `answer(body, requests)` returns `{ toolCalls: [{ id, name, arguments }] }`
 * (arguments as the model's JSON text) or `{ text }`. Resolves to `{ url, requests, close() }`: `url` is the
 * base URL (ending in /v1), `requests` every request body received.
 */
export async function startToolCallingModel(answer) {
  const requests = [];
  const server = createServer(async (request, response) => {
    let raw = "";
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw);
    requests.push(body);
    const { toolCalls = [], text = null } = await answer(body, requests);
    const calls = toolCalls.map((call, index) => ({ index, id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }));
    const finish_reason = calls.length > 0 ? "tool_calls" : "stop";
    const message = { role: "assistant", content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
    const base = { id: `chatcmpl-${requests.length}`, created: 1_700_000_000, model: body.model };
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (!body.stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, finish_reason, message }], usage }));
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream" });
    const send = (delta, finish = null, extra = {}) =>
      response.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
    send({ role: "assistant", ...(text === null ? {} : { content: text }) });
    for (const call of calls) send({ tool_calls: [call] });
    send({}, finish_reason, { usage });
    response.end("data: [DONE]\n\n");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
