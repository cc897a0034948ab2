// A guard-only edge worker: it imports `agent-governor/guard` (the small module: confirmations and the
// Executor, no model-facing components) and checks Applies against the approver's key. Stateless: it checks
// the confirmation it is given; edge/service/ is the guard that keeps approvals and applies each once.
//
//   POST /check  body: { confirmation, request, current_status? }  -> CheckVerdict (Guard.check)
//
// The key comes from the environment (APPROVER_KEY_ID, APPROVER_SECRET), never from a request. The Guard is
// built once per isolate: its keys are read and their HMAC state computed on the first request.
import { Guard } from "agent-governor/guard";

const json = (value, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

let guard;
function guardFor(env) {
  guard ??= new Guard({ keys: { [env.APPROVER_KEY_ID]: env.APPROVER_SECRET } });
  return guard;
}

async function check(request, env) {
  let body;
  try {
    body = await request.json();
  } catch {
    return json({ code: "invalid_input", path: "", message: "the body is not JSON" }, 400);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return json({ code: "invalid_input", path: "", message: "the body must be an object" }, 400);
  }
  try {
    const options = body.current_status === undefined ? {} : { currentStatus: body.current_status };
    return json(guardFor(env).check(body.confirmation ?? null, body.request, options));
  } catch (error) {
    return json({ code: error.code ?? "internal", path: error.path ?? "", message: error.message }, 400);
  }
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method === "POST" && pathname === "/check") return check(request, env);
    return json({ service: "agent-governor guard", routes: ["POST /check"] });
  },
};
