// A demonstration of the full package in workerd (the Executor, the check, the Closer over HTTP). It keeps no
// state: `/check` verifies only what the request carries, so it cannot know whether an approval was used
// already. The service that enforces exactly-once Applies, with approvals kept in a Durable Object and
// signed by the approver's own key, is edge/service/.
//
//   POST /check  body: CheckInput without `keys`  -> the pure confirmation check against the worker's key
//   POST /smoke                                  -> issue, save, execute twice in this isolate
//   POST /closer body: CloserInput               -> a Closer check against the model at LLM_BASE_URL
//
// The approval key comes from the environment (APPROVER_KEY_ID, APPROVER_SECRET), never from a request; so do
// the model endpoint and its key (LLM_BASE_URL, LLM_MODEL, LLM_API_KEY).
import {
  Closer,
  Executor,
  MemoryStore,
  checkConfirmation,
  issueConfirmation,
  openAICompatible,
  requestFor,
  saveConfirmation,
} from "agent-governor";

const json = (value, status = 200) =>
  new Response(JSON.stringify(value, null, 2), { status, headers: { "content-type": "application/json" } });

function keysOf(env) {
  return { [env.APPROVER_KEY_ID]: env.APPROVER_SECRET };
}

async function check(request, env) {
  let input;
  try {
    input = await request.json();
  } catch {
    return json({ code: "invalid_input", path: "", message: "the body is not JSON" }, 400);
  }
  try {
    return json(checkConfirmation({ ...input, keys: keysOf(env), now: Date.now() }));
  } catch (error) {
    return json({ code: error.code, path: error.path, message: error.message }, 400);
  }
}

async function smoke(env) {
  const signer = { keyId: env.APPROVER_KEY_ID, secret: env.APPROVER_SECRET };
  const confirmation = issueConfirmation(
    {
      node_id: "edge-node",
      proposed_change: { type: "status_change", from: "open", to: "closed" },
      intent: "close the resolved ticket",
      reason: "resolution verified",
      ui_action: "approve_button",
    },
    signer,
  );
  const store = new MemoryStore();
  await saveConfirmation(store, confirmation);
  const node = { status: "open", applies: 0 };
  const executor = new Executor({
    store,
    keys: keysOf(env),
    skill: {
      preview: async () => ({ current_status: node.status }),
      apply: async (applyRequest) => {
        node.applies += 1;
        node.status = applyRequest.confirm_status;
        return { status: 200, body: { applied: true } };
      },
    },
  });
  const first = await executor.execute(requestFor(confirmation));
  const second = await executor.execute(requestFor(confirmation));
  return json({ first, second, applies: node.applies });
}

async function closerCheck(request, env) {
  if (!env.LLM_BASE_URL) return json({ code: "not_configured", message: "LLM_BASE_URL is not set" }, 503);
  let input;
  try {
    input = await request.json();
  } catch {
    return json({ code: "invalid_input", path: "", message: "the body is not JSON" }, 400);
  }
  const query = openAICompatible({ baseUrl: env.LLM_BASE_URL, model: env.LLM_MODEL ?? "default", apiKey: env.LLM_API_KEY });
  try {
    return json(await new Closer({ workingDir: "", agentId: "edge" }).check(input, query));
  } catch (error) {
    return json({ code: error.code, path: error.path, message: error.message }, 400);
  }
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (request.method === "POST" && pathname === "/check") return check(request, env);
    if (request.method === "POST" && pathname === "/smoke") return smoke(env);
    if (request.method === "POST" && pathname === "/closer") return closerCheck(request, env);
    return json({ code: "not_found", message: `no route ${request.method} ${pathname}` }, 404);
  },
};
