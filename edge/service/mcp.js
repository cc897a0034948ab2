// The MCP gateway inside the edge guard: `POST /v1/mcp` (the agent's token) is an MCP server (Streamable
// HTTP, stateless: a server per request, answering over SSE) in front of the MCP server at MCP_UPSTREAM_URL,
// with one session to it per inbox. Everything but a governed call passes through (agent-governor/mcp/relay):
// resources, prompts, completion, logging, progress, cancellation, pings, and the upstream's requests and
// messages during a client's request (sampling, elicitation, roots, logs), which go to that request's stream
// when it is the only one in flight (never to another agent's). Whether a name is governed is decided per
// call against the upstream's tool list as it is now. A `tools/call`
// of a tool not in MCP_WHITELIST becomes an approval in this inbox (a `tool_call` change: the tool and its
// arguments as canonical JSON), which people approve like any other, with their keys or passkeys. The answer
// carries the approval's lines, its link and a `requestState` naming it; the client calls again with that
// request state, and once the approval is signed the call is applied by the inbox's Executor (the upstream's
// `tools/call` with the approved arguments), once, with its receipt in the inbox's chain.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, CallToolResultSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { readJson, toolCallChange } from "agent-governor/guard";
import { liveToolList, protocolError, relayFromClient, relayFromUpstream, relayLoggingLevel, relayOptions, relayed, relayedCapabilities, requestsInFlight, upstreamMeta } from "agent-governor/mcp/relay";
import { HttpError, MAX_BODY_DEPTH } from "./http.js";

/** How many applied calls' answers are kept for the requests that applied them, at most. */
const MAX_ANSWERS_KEPT = 100;

/** The change type of a tool call, and the prefix of a request state (then the approval's id). */
export const TOOL_CALL = "tool_call";
const STATE_PREFIX = "ag1.";
const SERVER_INFO = { name: "agent-governor-edge-guard", version: "1" };
/** Where the gateway puts the pending approval and the receipt: the result's `_meta`. */
const APPROVAL_META = "agent-governor/approval";
const RECEIPT_META = "agent-governor/receipt";
/** What became of a governed call (the library gateway's and `refusalOf`'s vocabulary): "ran", "may_have_run", "not_run". */
const RAN_META = "agent-governor/ran";
/** Where a governed call forwarded to the upstream carries its idempotency key: the request's `_meta`. */
const IDEMPOTENCY_KEY_META = "agent-governor/idempotency_key";

/**
 * A governed call's answer that is not its result, with what became of the call in `_meta[RAN_META]`: "ran"
 * (before), "may_have_run" (unknown: a person reconciles) or "not_run" (the default).
 */
const errorResult = (text, meta, ran = "not_run") => ({ content: [{ type: "text", text }], isError: true, _meta: { ...(meta ?? {}), [RAN_META]: ran } });

/** The upstream MCP server (MCP_UPSTREAM_URL): its client, connected once per inbox object, and its skill. */
export class McpUpstream {
  constructor(env) {
    this.url = new URL(env.MCP_UPSTREAM_URL);
    this.whitelist = new Set((env.MCP_WHITELIST ?? "").split(",").map((name) => name.trim()).filter(Boolean));
    this.client = null;
    // What each applied call answered, by its approval's id, until the request that applied it reads it.
    this.answers = new Map();
    this.validator = new CfWorkerJsonSchemaValidator();
    // The upstream's tools as it lists them now, and the clients' requests in flight through this gateway.
    this.tools = liveToolList((cursor) => this.again((client) => client.listTools(cursor === undefined ? {} : { cursor })));
    this.inFlight = requestsInFlight();
  }

  /**
   * Tool `name`'s input schema as the upstream lists it now (listed again: a person's edit is rare and must
   * fit the tool as it is), or null when it gives none; 404 when it has no such tool now.
   */
  async toolSchema(name) {
    await this.tools.refresh();
    if (!this.tools.names().includes(name)) throw new HttpError(404, "not_found", `the upstream has no tool ${JSON.stringify(name)} now`);
    return this.tools.schema(name);
  }

  /** Why `args` do not fit tool `name`'s input schema, in words; null when they do (or it gives none). */
  async argumentsProblem(name, args) {
    const schema = await this.toolSchema(name);
    if (schema === null) return null;
    let check;
    try {
      check = this.validator.getValidator(schema)(args);
    } catch (error) {
      return `the tool's schema cannot be used (${error?.message ?? error})`;
    }
    return check.valid ? null : (check.errorMessage ?? "not valid");
  }

  /** Whether the upstream has tool `name` now (listed again on a list change, and for an unknown name at most every 10 s). */
  hasTool(name) {
    return this.tools.has(name);
  }

  /**
   * `read(client)`, again once with a new session when it fails (the upstream restarted and forgot ours).
   * Only for requests that change nothing upstream (listing, pinging): a tool call is never sent twice.
   */
  async again(read) {
    try {
      return await read(await this.connected());
    } catch (error) {
      // The upstream answered (a bad cursor, an unknown method): its session is fine, and shared.
      if (error instanceof McpError) throw error;
      await this.reconnect();
      return read(await this.connected());
    }
  }

  /** Drops the upstream client (its session is gone); the next use initializes a new one. */
  async reconnect() {
    const stale = this.client;
    this.client = null;
    try {
      await (await stale)?.close();
    } catch {
      // Already closed, or never connected.
    }
  }

  connected() {
    this.client ??= (async () => {
      // Ajv compiles schemas to code, which workerd does not run: the SDK's validator for Workers instead.
      // The clients are many and stateless here: the session declares what an agent's client may be asked
      // (each such request goes to the request in flight, whose client answers or refuses it).
      const client = new Client(SERVER_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator(), capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} } });
      relayFromUpstream(client, this.inFlight, () => [], {
        onlyWhenAlone: true,
        onNotification: (notification) => notification.method === "notifications/tools/list_changed" && this.tools.changed(),
      });
      await client.connect(new StreamableHTTPClientTransport(this.url));
      return client;
    })();
    this.client.catch(() => {
      this.client = null;
    });
    return this.client;
  }

  /**
   * The skill the Executor applies `tool_call` changes through: the upstream's `tools/call` with the approved
   * arguments, read from the confirmation itself. A call that fails or never answers leaves the approval in
   * flight (its outcome is unknown: it may have acted) for a person to reconcile.
   */
  skill() {
    return {
      // Reached before the Apply is reserved: an upstream that cannot be reached leaves the approval usable
      // (nothing was sent), rather than in flight with an unknown outcome.
      // A lost upstream session (the upstream restarted: its answer to our session id is 404 or 400, or the
      // connection was reset) is established again, once, before the Apply is refused.
      preview: async () => {
        await this.again((client) => client.ping());
        return { current_status: "" };
      },
      // The call carries its action's idempotency key, the same on every attempt of this approval's call.
      apply: async ({ confirmation, idempotency_key: idempotencyKey }) => {
        const client = await this.connected();
        const params = { name: confirmation.node_id, arguments: JSON.parse(confirmation.proposed_change.to), _meta: { [IDEMPOTENCY_KEY_META]: idempotencyKey } };
        const answer = await client.callTool(params);
        this.answers.set(confirmation.confirmation_id, answer);
        // Read by the request that applied it; one applied through /v1/apply is never read: the oldest go.
        while (this.answers.size > MAX_ANSWERS_KEPT) this.answers.delete(this.answers.keys().next().value);
        return { status: 200, body: { applied: true } };
      },
    };
  }
}

/** What the client is told while a person has not approved the call yet. */
function pendingAnswer(view, env) {
  const link = env.INBOX_URL ? `${env.INBOX_URL.replace(/#.*$/, "")}#approval-${encodeURIComponent(view.approval_id)}` : null;
  const approval = { approvalId: view.approval_id, requestState: `${STATE_PREFIX}${view.approval_id}`, lines: [view.request.what, view.request.impact], state: view.state, url: link };
  const text = `${view.request.what}\n${view.request.impact}\nA person must approve this call in the inbox${link ? ` (${link})` : ""}; call again with _meta.requestState.`;
  return errorResult(text, { [APPROVAL_META]: approval });
}

/**
 * Who asks: the agent a bound agent token acts for (`agent:<id>`), or `mcp` for a token bound to none. An
 * approval is used only by the one who asked for it.
 */
function askerOf(roles) {
  const bound = [...roles].find((role) => role.startsWith("agent:"));
  return bound === undefined ? UNBOUND_ASKER : bound.slice("agent:".length);
}

/** The asker of a token bound to no agent: never covered by a standing approval (nothing proves who it is). */
const UNBOUND_ASKER = "mcp";

/**
 * The approval a client's call asked for (the proposal, when `view` is a person's edit of it) and the one that
 * decides it (a person's edit, when they edited the arguments before approving; else the same).
 */
function askedAndDeciding(inbox, view) {
  if (view.edits) return { asked: inbox.view(view.edits), deciding: view };
  if (view.state === "edited" && typeof view.edited_as === "string") return { asked: view, deciding: inbox.view(view.edited_as) };
  return { asked: view, deciding: view };
}

/** Where the answer of a call a person edited says so: the arguments that ran instead of the ones asked. */
const EDITED_META = "agent-governor/edited";

/** `tools/call`: forwarded (whitelisted), proposed (new), or applied once its approval is signed. */
async function callTool(inbox, upstream, callRequest, extra, asker) {
  const { name, arguments: args = {}, _meta: meta = {} } = callRequest.params;
  // A call runs as a plain call: as a task, its result would reach the client only after it ran, refused.
  if (callRequest.params.task !== undefined) throw protocolError(ErrorCode.InvalidParams, "this gateway runs tool calls as plain calls, not as tasks");
  // Nothing is proposed for a tool the upstream does not have.
  if (!(await upstream.hasTool(name))) throw protocolError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}`);
  if (upstream.whitelist.has(name)) {
    const client = await upstream.connected();
    const answer = await relayed(() => client.request({ method: "tools/call", params: callRequest.params }, CallToolResultSchema, relayOptions(callRequest, extra)));
    return { ...answer, _meta: upstreamMeta(answer?._meta) };
  }
  let change;
  try {
    change = toolCallChange(name, args);
  } catch (error) {
    throw protocolError(ErrorCode.InvalidParams, error.message);
  }
  const state = meta.requestState;
  let view;
  if (state === undefined) {
    try {
      // A retry of a call this agent already asked for joins its approval (pending, or approved and unused).
      view = inbox.proposeToolCall(change, asker);
    } catch (error) {
      // A call the inbox will not take (too long to show, say) is the caller's error, not the server's.
      throw protocolError(ErrorCode.InvalidParams, error?.message ?? String(error));
    }
    // A new call a live standing approval covers (its agent proven by a bound token) runs at once.
    if (view.state === "pending" && asker !== UNBOUND_ASKER) view = await inbox.approveByMandate(view, asker);
    const { deciding } = askedAndDeciding(inbox, view);
    if (deciding.state !== "approved") return pendingAnswer(deciding, inbox.env);
  } else {
    const id = typeof state === "string" && state.startsWith(STATE_PREFIX) && state.length <= 100 ? state.slice(STATE_PREFIX.length) : null;
    view = id !== null && inbox.db.approval(id) !== null ? inbox.view(id) : null;
  }
  if (view === null) return errorResult(`${name} was not called: the requestState is unknown or malformed`);
  // The client calls with the arguments it asked with; a person may have approved their edit of them instead,
  // which is what runs (and the answer says so).
  const { asked, deciding } = askedAndDeciding(inbox, view);
  if (asked.node_id !== change.node_id || asked.proposed_change?.type !== TOOL_CALL || asked.proposed_change.to !== change.proposed_change.to) {
    return errorResult(`${name} was not called: the requestState names another call; the arguments must be the ones asked for`);
  }
  if (asked.agent_id !== asker || deciding.agent_id !== asker) return errorResult(`${name} was not called: the requestState names a call another agent asked for`);
  const edited = deciding !== asked ? { [EDITED_META]: { approvalId: deciding.approval_id, arguments: readJson(deciding.proposed_change.to, MAX_BODY_DEPTH), asked: readJson(asked.proposed_change.to, MAX_BODY_DEPTH) } } : {};
  view = deciding;
  if (view.state === "pending") return pendingAnswer(view, inbox.env);
  if (view.state === "edited") return errorResult(`${name} was not called: a person edited it, and their edit was edited again`);
  // Words an agent acts on: a call that ran, or may have, is never reported as not called; and one a person
  // edited says with which arguments, every time.
  const asEdited = deciding !== asked ? ` A person edited its arguments before approving: it ran with ${deciding.proposed_change.to} instead of ${asked.proposed_change.to}.` : "";
  if (view.state === "consumed") return errorResult(`${name} ran once already with this approval; it does not run again.${asEdited} Ask for a new approval only for a new call.`, edited, "ran");
  if (view.state === "in_flight") return errorResult(`${name} may have run: its outcome is unknown.${asEdited} A person must reconcile it in the inbox; do not ask again.`, edited, "may_have_run");
  if (view.state !== "approved") return errorResult(`${name} was not called: its approval is ${view.state}`);

  // The history rules first: a call its rule refuses now is not run, and its approval stays usable.
  try {
    inbox.checkHistory(view, "the call", view.approval_id);
  } catch (error) {
    return errorResult(`${name} was not called: ${error.message}`);
  }
  const result = await inbox.applyRequest(view.executor_request);
  const receipt = result.receipt ? { [RECEIPT_META]: result.receipt } : undefined;
  if (result.outcome !== "applied") {
    const why = result.rejection?.reason ?? result.error?.message ?? result.outcome;
    const unknown = result.confirmation_state === "in_flight";
    if (result.rejection?.phase === "already_consumed") return errorResult(`${name} ran once already with this approval; it does not run again.${asEdited}`, { ...receipt, ...edited }, "ran");
    return errorResult(
      unknown ? `${name} may have run: its outcome is unknown (${why}). A person must reconcile it in the inbox.` : `${name} was not called (${result.rejection?.phase ?? result.outcome}): ${why}`,
      receipt,
      unknown ? "may_have_run" : "not_run",
    );
  }
  const answer = upstream.answers.get(view.approval_id);
  upstream.answers.delete(view.approval_id);
  // An edited call's answer says first, in words the agent reads, what ran instead of what it asked.
  const note = deciding !== asked ? [{ type: "text", text: `A person edited the arguments before approving; this ran with ${deciding.proposed_change.to} instead of ${asked.proposed_change.to}.` }] : [];
  return { ...answer, content: [...note, ...(answer?.content ?? [])], _meta: { ...upstreamMeta(answer?._meta), ...receipt, ...edited, [RAN_META]: "ran" } };
}

/** Answers one MCP request (JSON-RPC over Streamable HTTP, stateless: a server per request). */
export async function mcpEndpoint(inbox, request, roles) {
  const asker = askerOf(roles);
  const upstream = inbox.mcp;
  // The upstream's capabilities, as it declares them (read from this inbox's session to it).
  let capabilities = { tools: {} };
  try {
    capabilities = relayedCapabilities(await upstream.connected(), { shared: true });
  } catch {
    // Unreachable now: tools only, and each request says why it fails.
  }
  const server = new Server(SERVER_INFO, { capabilities, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const session = { request: async (...sent) => (await upstream.connected()).request(...sent), notification: async (sent) => (await upstream.connected()).notification(sent) };
  relayFromClient(server, session, upstream.inFlight);
  if (capabilities.logging) relayLoggingLevel(server, session, upstream.inFlight);
  server.setRequestHandler(ListToolsRequestSchema, (listRequest, extra) => upstream.inFlight.track(extra, () => relayed(() => upstream.again((client) => client.listTools(listRequest.params)))));
  server.setRequestHandler(CallToolRequestSchema, (callRequest, extra) => upstream.inFlight.track(extra, () => callTool(inbox, upstream, callRequest, extra, asker)));
  // Answered over SSE: what the upstream says or asks during a call reaches the client on its stream.
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  // The body is read by the core, as every other body here: a duplicate key or a nesting too deep is refused,
  // never resolved by whichever parser reads it.
  let parsedBody;
  if (request.method === "POST") {
    const text = await request.text();
    try {
      parsedBody = readJson(text, MAX_BODY_DEPTH);
    } catch (error) {
      return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: ErrorCode.ParseError, message: error?.message ?? "the body is not JSON" }, id: null }), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    }
  }
  return transport.handleRequest(new Request(request.url, { method: request.method, headers: request.headers }), { parsedBody });
}
