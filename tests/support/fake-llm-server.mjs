// A scripted OpenAI-compatible endpoint for client tests: the path prefix picks the behaviour.
//   /ok       a valid Closer (or, for the watcher_verdict schema, Watcher) answer reporting what the request carried
//   /prose    content with no JSON       /refusal  a refusal      /http500  an HTTP 500
//   /notjson  a 200 with an HTML body    /slow     answers after 3 s (for timeouts)
//   /cut      the /ok answer, complete-looking, with finish_reason "length" (stopped at the token limit)
//   /thinking no content, the /ok answer in `reasoning_content`, finish_reason "length"
// Run directly, it prints its base URL on the first line and serves until killed.
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";

const cors = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "content-type, authorization, x-extra",
};

function completion(message, finishReason = "stop") {
  return JSON.stringify({ id: "fake", object: "chat.completion", choices: [{ index: 0, message, finish_reason: finishReason }] });
}

function watcherAnswer(summary) {
  return JSON.stringify({
    pass: true,
    issues: [],
    inspection_log: `1. artifacts present\n2. matches the request\n(${summary})`,
    blindspots_covered: ["future change: checked"],
    misclassification_detected: false,
    reclassification_suggestion: null,
    approval_criteria: { no_critical_issues: true, acknowledged_trade_offs: true },
  });
}

/** The control loop's judge: move T-1 to done while nothing has been done yet, then wait. */
function judgeAnswer(body) {
  const prompt = (body.messages ?? []).map((message) => message.content).join("\n");
  const nulls = { reply: null, action_type: null, summary: null, impact_scope: null, node_id: null, from: null, to: null, setting_key: null, setting_value: null, whitelist_add: null, whitelist_remove: null, reason: null };
  if (!prompt.includes("(none yet)")) return JSON.stringify({ ...nulls, decision: "wait" });
  return JSON.stringify({
    ...nulls, decision: "act", action_type: "status_change", summary: "move T-1 from review to done",
    impact_scope: "ticket T-1 on the demo board", node_id: "T-1", from: "review", to: "done",
  });
}

function closerAnswer(request, body) {
  const strict = body.response_format?.json_schema?.strict;
  const hasSchema = typeof body.response_format?.json_schema?.schema?.properties?.checklist === "object";
  const summary = `model=${body.model};strict=${strict};schema=${hasSchema};auth=${request.headers.authorization ?? ""};extra=${request.headers["x-extra"] ?? ""}`;
  if (body.response_format?.json_schema?.name === "watcher_verdict") return watcherAnswer(summary);
  if (body.response_format?.json_schema?.name === "control_judgement") return judgeAnswer(body);
  if (body.response_format?.json_schema?.name === "reflection") {
    return JSON.stringify({
      insights: [{ reasoning: summary, error_identification: "stopped at page 1", root_cause_analysis: "no pagination", correct_approach: "read every page", key_insight: "Read every page of a list before summing." }],
      bullet_evaluations: [{ bullet_id: "b-0001", tag: "neutral", reason: "not the issue" }, { bullet_id: "b-0002", tag: "harmful", reason: "caused the wrong total" }],
    });
  }
  return JSON.stringify({
    checklist: [{ id: "impl", description: "implementation", completed: true, evidence: "seen" }],
    allComplete: true,
    summary,
    pendingActions: [],
    confidence: 0.9,
  });
}

export function startFakeLlm(port = 0) {
  const server = createServer(async (request, response) => {
    if (request.method === "OPTIONS") {
      response.writeHead(204, cors);
      return response.end();
    }
    let raw = "";
    for await (const chunk of request) raw += chunk;
    let body = {};
    try {
      body = JSON.parse(raw);
    } catch {}
    const scenario = new URL(request.url, "http://localhost").pathname.split("/")[1];
    const json = { "content-type": "application/json", ...cors };
    switch (scenario) {
      case "ok":
        response.writeHead(200, json);
        return response.end(completion({ role: "assistant", content: closerAnswer(request, body) }));
      case "cut":
        response.writeHead(200, json);
        return response.end(completion({ role: "assistant", content: closerAnswer(request, body) }, "length"));
      case "thinking":
        response.writeHead(200, json);
        return response.end(completion({ role: "assistant", content: null, reasoning_content: closerAnswer(request, body) }, "length"));
      case "prose":
        response.writeHead(200, json);
        return response.end(completion({ role: "assistant", content: "It all looks complete to me." }));
      case "refusal":
        response.writeHead(200, json);
        return response.end(completion({ role: "assistant", content: null, refusal: "I cannot help with that." }));
      case "http500":
        response.writeHead(500, json);
        return response.end(JSON.stringify({ error: { message: "the model crashed", type: "server_error" } }));
      case "notjson":
        response.writeHead(200, { "content-type": "text/html", ...cors });
        return response.end("<html>gateway page</html>");
      case "slow":
        setTimeout(() => {
          response.writeHead(200, json);
          response.end(completion({ role: "assistant", content: closerAnswer(request, body) }));
        }, 3000);
        return;
      default:
        response.writeHead(404, json);
        return response.end(JSON.stringify({ error: { message: `unknown scenario ${scenario}` } }));
    }
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startFakeLlm(Number(process.argv[2] ?? 0));
  console.log(`http://127.0.0.1:${server.address().port}`);
}
