// The MCP gateway: an MCP server in front of any MCP server (the upstream, reached through the SDK's Client
// over stdio or Streamable HTTP). `tools/list` passes through; `tools/call` of a tool that is not whitelisted
// is forwarded only with a person's signed, single-use confirmation bound to the tool's name and its
// canonical arguments. Without one, the answer says what the client needs to ask a person: a URL-mode
// elicitation to the approval page when the client supports it, otherwise a result carrying the pending
// approval (its lines, the draft to sign and a `requestState` to send back with the confirmation). Every
// forwarded call's outcome gets a signed receipt. The gateway keeps its state in the Executor's store, so a
// restart loses no approval and revives no used one.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, CallToolResultSchema, ErrorCode, ListToolsRequestSchema, McpError, UrlElicitationRequiredError } from "@modelcontextprotocol/sdk/types.js";
import { changeDigest, changeLines, governToolCalls, notSent, refusalOf, toolCallChange } from "agent-governor";
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { GOVERN_TOOL_CALLS_OPTIONS, closestName, readOptions } from "../approver/options.js";
import { signReceipt } from "../approver/index.js";
import { receiptChain } from "./receipts.js";

/** Where a client puts the confirmation and the request state when it calls again: the request's `_meta`. */
export const CONFIRMATION_META = "agent-governor/confirmation";
export const REQUEST_STATE_META = "requestState";
/** Where the gateway puts a pending approval and a receipt: the result's `_meta`. */
export const APPROVAL_META = "agent-governor/approval";
export const RECEIPT_META = "agent-governor/receipt";
/** A result's `_meta` key when the call ran but its receipt could not be made (why). */
export const RECEIPT_ERROR_META = "agent-governor/receipt_error";
/** A governed call's `_meta` key for what became of it: "ran", "may_have_run" or "not_run" (`refusalOf`'s `ran`). */
export const RAN_META = "agent-governor/ran";
/** A result's `_meta` key when the call's outcome could not be recorded after it ran (why): it did run. */
export const SETTLE_ERROR_META = "agent-governor/settle_error";
/** Where a governed call forwarded to the upstream carries its idempotency key: the request's `_meta`. */
export const IDEMPOTENCY_KEY_META = "agent-governor/idempotency_key";

/**
 * JSON-RPC errors with which a server refuses a call before running it (an unknown tool, invalid
 * arguments, an unknown method). Any other error, or none, leaves what the upstream did unknown.
 */
const REFUSED_BEFORE_RUNNING = new Set([ErrorCode.InvalidParams, ErrorCode.MethodNotFound]);

const STATE_PREFIX = "ag1.";
const CALL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const pendingKey = (callId) => `mcp-call/${callId}`;
/** Where the receipt of a call's run is kept, by the confirmation that ran it. */
const receiptKeyOf = (confirmationId) => `mcp-receipt/${encodeURIComponent(confirmationId)}`;
/**
 * The pending call of one asker (an authenticated client, or else a connection) for one change: a retry, or
 * a URL-mode call after the approval (same tool, same arguments), finds it.
 */
const digestKey = (asker, digest) => `mcp-digest/${asker}/${digest}`;
/** A receipt's outcome for each of the Executor's. */
const RECEIPT_OUTCOMES = { applied: "applied", rejected: "rejected" };

/**
 * A JSON-RPC error for the client, said once: the SDK's server sends an error's `message` as it is, and an
 * McpError's message already starts with "MCP error <code>: ", which the client's McpError adds again.
 */
function protocolError(code, message, data) {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** `work()`, with an upstream's protocol error passed on as the upstream said it: its code, data and words. */
async function relayed(work) {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    throw protocolError(error.code, error.message.replace(/^(MCP error -?\d+: )+/, ""), error.data);
  }
}

/** Every tool of the upstream server, all pages. */
async function upstreamTools(upstream) {
  const tools = [];
  let cursor;
  do {
    const page = await upstream.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined && tools.length < 10_000);
  return tools;
}

/**
 * A governed call's answer that is not its result, with what became of the call in `_meta[RAN_META]`: "ran"
 * (before), "may_have_run" (unknown: a person reconciles) or "not_run" (the default).
 */
const errorResult = (text, meta, ran = "not_run") => ({ content: [{ type: "text", text }], isError: true, _meta: { ...(meta ?? {}), [RAN_META]: ran } });

/** What `createMcpGateway` reads: the options of governed tool calls and the gateway's own. */
const MCP_GATEWAY_OPTIONS = {
  ...GOVERN_TOOL_CALLS_OPTIONS,
  upstream: "object",
  approvalUrl: "function",
  receiptKey: "plain",
  serverInfo: "plain",
};

/**
 * The whitelisted names the upstream has, and a warning naming each one it lacks (with the closest tool it
 * has). Not a string list: a typed error.
 */
function whitelistedTools(whitelist, names) {
  if (!Array.isArray(whitelist) || !whitelist.every((name) => typeof name === "string")) {
    throw typedError("invalid_input", "options.whitelist", "whitelist must list tool names (strings)");
  }
  const present = [];
  const warnings = [];
  for (const name of new Set(whitelist)) {
    if (names.includes(name)) {
      present.push(name);
      continue;
    }
    const meant = closestName(name, names);
    const hint = meant === undefined ? "" : `; did you mean ${JSON.stringify(meant)}?`;
    warnings.push({
      code: "whitelisted_tool_missing",
      tool: name,
      message: `the whitelist names ${JSON.stringify(name)}, which the upstream server does not list: it is not forwarded${hint}`,
    });
  }
  return { present, warnings };
}

/**
 * Creates the gateway over `upstream`, a connected `Client`. `options`: the Executor's `store` and `keys` (and
 * its other options), `whitelist` (tools forwarded with no approval), `approvalUrl(callId)` (the page where a
 * person approves a call, for URL-mode elicitation), `receiptKey` (`{ keyId, privateKey }`, an Ed25519
 * CryptoKey that signs the receipts) and `serverInfo`. Resolves to `{ createServer, approve, pending, receipts }`:
 * connect each `createServer()` to a transport (stdio, or a Streamable HTTP session).
 */
export async function createMcpGateway(options) {
  const given = readOptions("createMcpGateway", "options", options, MCP_GATEWAY_OPTIONS, { required: true });
  const { upstream, approvalUrl, receiptKey, serverInfo = { name: "agent-governor-mcp-gateway", version: "1" }, whitelist = [], ...governOptions } = given;
  if (typeof upstream?.callTool !== "function" || typeof upstream?.listTools !== "function") {
    throw typedError("invalid_input", "options.upstream", "upstream must be a connected MCP Client");
  }
  if (approvalUrl !== undefined && typeof approvalUrl !== "function") throw typedError("invalid_input", "options.approvalUrl", "approvalUrl must be (callId) => URL");
  if (!isPlainObject(receiptKey)) throw typedError("invalid_input", "options.receiptKey", "receiptKey must be { keyId, privateKey } (an Ed25519 CryptoKey)");
  const { store } = governOptions;
  const now = typeof governOptions.now === "function" ? governOptions.now : Date.now;
  // A key that cannot sign is refused now, not after a tool ran.
  try {
    await signReceipt({ seq: 1, approval_id: "probe", change_digest: "", approver: "", outcome: "applied", at: "1970-01-01T00:00:00Z", prev: null }, receiptKey);
  } catch (error) {
    throw typedError("invalid_key", "options.receiptKey", `receiptKey cannot sign receipts: ${error?.message ?? error}`);
  }
  const receipts = receiptChain(store, receiptKey, now);

  // The upstream's tools when the gateway starts; a tool that appears later is not governed and not callable.
  const names = (await upstreamTools(upstream)).map((tool) => tool.name);
  const runners = Object.fromEntries(names.map((name) => [name, (args, context, action) => forward(name, args, context, action)]));
  // A whitelisted tool the upstream does not have is named (in `warnings`, and on the console); the gateway
  // starts for the others.
  const { present, warnings } = whitelistedTools(whitelist, names);
  for (const warning of warnings) console.warn(`agent-governor MCP gateway: ${warning.message}`);
  // Outputs are kept: a call asked again after it ran (another approval, an old requestState) answers
  // with the result it had, never by running again.
  const governed = governToolCalls(runners, { keepOutputs: true, ...governOptions, whitelist: present });

  /**
   * Forwards a governed call with its idempotency key. A call that provably never reached the upstream's
   * tool (no connection, or refused by the server before running) is reported as not sent, so its approval
   * stays usable; anything else that fails leaves the outcome unknown.
   */
  async function forward(name, args, { signal } = {}, action) {
    const params = { name, arguments: args, ...(action ? { _meta: { [IDEMPOTENCY_KEY_META]: action.idempotencyKey } } : {}) };
    try {
      return await upstream.request({ method: "tools/call", params }, CallToolResultSchema, { signal });
    } catch (error) {
      const neverSent = error?.message === "Not connected";
      if (neverSent || (error instanceof McpError && REFUSED_BEFORE_RUNNING.has(error.code))) throw notSent(error);
      throw error;
    }
  }

  /** The pending call a request state names, or null. */
  async function pendingFromState(state) {
    // A request state names a call id this gateway made (a UUID): nothing else reaches the store's keys.
    if (typeof state !== "string" || !CALL_ID.test(state.slice(STATE_PREFIX.length)) || !state.startsWith(STATE_PREFIX)) return null;
    let text;
    try {
      text = await store.get(pendingKey(state.slice(STATE_PREFIX.length)));
    } catch (error) {
      throw typedError("storage_error", "store", `the store failed to read a pending call: ${error?.message ?? String(error)}`);
    }
    if (text === null || text === undefined) return null;
    try {
      const pending = typeof text === "string" ? JSON.parse(text) : null;
      if (isPlainObject(pending) && typeof pending.callId === "string" && typeof pending.tool === "string") return pending;
    } catch {
      // Refused below.
    }
    throw typedError("storage_error", "store", "a pending call in the store is not one this gateway wrote");
  }

  /** A new pending approval for `call`, asked by `asker` over `connection`, saved before the client hears of it. */
  async function propose(name, args, digest, connection, asker) {
    const callId = crypto.randomUUID();
    const pending = { callId, tool: name, arguments: args, digest, connection, asker };
    await store.put(pendingKey(callId), JSON.stringify(pending));
    await store.put(digestKey(asker, digest), callId);
    return pending;
  }

  function approvalFor(pending) {
    const draft = governed.draft({ tool: pending.tool, arguments: pending.arguments, callId: pending.callId });
    return { callId: pending.callId, requestState: `${STATE_PREFIX}${pending.callId}`, lines: changeLines(draft.node_id, draft.proposed_change), draft };
  }

  /** The key id that signed stored confirmation `id`, for its receipt ("" when it cannot be read). */
  async function approverOf(id) {
    try {
      return JSON.parse(await store.get(`confirmation/${id}`)).key_id ?? "";
    } catch {
      return "";
    }
  }

  /** The receipt of an outcome, or why none could be made (a call that ran is answered either way). */
  async function receiptOf(outcome, digest) {
    if (outcome.repeated) return firstReceipt(outcome.result);
    try {
      const receipt = await receipts.append({
        approvalId: outcome.result.confirmation_id,
        changeDigest: digest,
        approver: await approverOf(outcome.result.confirmation_id),
        outcome: RECEIPT_OUTCOMES[outcome.outcome] ?? "unknown",
      });
      // Kept by confirmation: a later answer with this run's result names its receipt, not a new one.
      if (outcome.outcome === "applied") {
        try {
          await store.put(receiptKeyOf(receipt.approval_id), JSON.stringify(receipt));
        } catch {
          // The receipt is in the chain; only a later repeated answer would lack it.
        }
      }
      return { [RECEIPT_META]: receipt };
    } catch (error) {
      return { [RECEIPT_ERROR_META]: error?.message ?? String(error) };
    }
  }

  /** The receipt of the run a repeated answer carries (the confirmation that ran it), when it was kept. */
  async function firstReceipt(result) {
    const ranBy = result.rejection?.phase === "action_already_ran" ? result.first_run?.confirmation_id : result.confirmation_id;
    try {
      const text = typeof ranBy === "string" ? await store.get(receiptKeyOf(ranBy)) : null;
      return typeof text === "string" ? { [RECEIPT_META]: JSON.parse(text) } : {};
    } catch {
      return {};
    }
  }

  /** The answer for a call the Executor ran or refused: its result, or why it was not called, with the receipt. */
  async function answer(call, digest, asker, outcome) {
    // This call is settled: the next call with these arguments is a new one, for a new approval. A store
    // that fails here never turns a call that ran into an error: the result is answered, with why.
    let settled = {};
    try {
      await store.put(digestKey(asker, digest), "");
    } catch (error) {
      settled = { [SETTLE_ERROR_META]: error?.message ?? String(error) };
    }
    const receipt = await receiptOf(outcome, digest);
    if (outcome.outcome !== "applied") {
      const refusal = refusalOf(call, outcome);
      return errorResult(refusal.message, { ...receipt, ...settled }, refusal.ran);
    }
    const result = outcome.output;
    return { ...result, _meta: { ...(result?._meta ?? {}), ...receipt, ...settled, [RAN_META]: "ran" } };
  }

  /**
   * Who asks: the authenticated client (the host's auth middleware sets `authInfo.clientId`), whose retries
   * over new connections join one pending call; else the connection itself.
   */
  const askerOf = (connection, extra) => {
    const clientId = extra?.authInfo?.clientId;
    return typeof clientId === "string" && clientId !== "" ? `client:${encodeURIComponent(clientId)}` : connection;
  };

  async function callTool(server, connection, request, extra) {
    const asker = askerOf(connection, extra);
    const { name, arguments: args = {}, _meta: meta = {} } = request.params;
    if (!names.includes(name)) throw protocolError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}`);
    if (governed.isWhitelisted(name)) return relayed(() => upstream.callTool({ name, arguments: args }, undefined, { signal: extra.signal }));
    let digest;
    try {
      const change = toolCallChange(name, args);
      digest = changeDigest(change.node_id, change.proposed_change);
    } catch (error) {
      throw protocolError(ErrorCode.InvalidParams, error.message);
    }

    // The call that this request continues: the one its request state names (with the confirmation that
    // approves it), or this asker's pending call with these exact arguments (a retry joins it).
    let pending = null;
    if (meta[REQUEST_STATE_META] !== undefined) {
      pending = await pendingFromState(meta[REQUEST_STATE_META]);
      if (pending === null) return errorResult(`${name} was not called: the requestState is unknown or malformed`);
      if (pending.tool !== name || pending.digest !== digest) {
        return errorResult(`${name} was not called: the requestState names another call (${pending.tool}); the arguments must be the approved ones`);
      }
    } else {
      const callId = await store.get(digestKey(asker, digest));
      if (typeof callId === "string" && callId !== "") pending = await pendingFromState(`${STATE_PREFIX}${callId}`);
    }
    if (pending === null) pending = await propose(name, args, digest, connection, asker);
    const call = { tool: name, arguments: args, callId: pending.callId };

    const confirmation = meta[CONFIRMATION_META];
    if (confirmation !== undefined) {
      let outcome;
      try {
        outcome = await governed.runWith(call, confirmation, { signal: extra?.signal });
      } catch (error) {
        return errorResult(`${name} was not called: ${error.message}`);
      }
      return answer(call, digest, pending.asker ?? pending.connection ?? asker, outcome);
    }
    try {
      return await answer(call, digest, asker, await governed.runApproved(call, { signal: extra?.signal }));
    } catch (error) {
      if (error?.code !== "approval_required") throw error;
    }

    // No approval yet: tell the client what to ask a person.
    const approval = approvalFor(pending);
    const message = `${approval.lines.join("\n")}\nA person must approve this call before it runs.`;
    if (approvalUrl && server.getClientCapabilities()?.elicitation?.url) {
      throw new UrlElicitationRequiredError([{ mode: "url", elicitationId: approval.callId, url: String(approvalUrl(approval.callId)), message }]);
    }
    return errorResult(message, { [APPROVAL_META]: approval });
  }

  // One server per connection (a stdio process, a Streamable HTTP session); all share the store. A pending
  // call found by its arguments alone (a retry, URL mode) is the asker's only: its authenticated client's,
  // or else its connection's.
  const servers = new Map();
  function createServer() {
    const connection = crypto.randomUUID();
    const server = new Server(serverInfo, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => relayed(() => upstream.listTools(request.params)));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(server, connection, request, extra));
    servers.set(connection, server);
    server.onclose = () => servers.delete(connection);
    return server;
  }

  return {
    /** A new MCP server for one connection: connect it to a transport (stdio, or one Streamable HTTP session). */
    createServer,
    /** The pending approval of call `callId` (what a person reads and signs), or null. */
    async pending(callId) {
      const pending = await pendingFromState(`${STATE_PREFIX}${callId}`);
      return pending === null ? null : approvalFor(pending);
    },
    /**
     * Keeps a person's signed confirmation of pending call `callId` (checked in the core first: `not_approved`
     * otherwise). The client's next call of the same tool with the same arguments is forwarded, once; with
     * URL-mode elicitation, the gateway tells the client the elicitation is complete.
     */
    async approve(callId, confirmation) {
      const pending = await pendingFromState(`${STATE_PREFIX}${callId}`);
      if (pending === null) throw typedError("not_found", "callId", `no pending call ${JSON.stringify(callId)}`);
      await governed.approve({ tool: pending.tool, arguments: pending.arguments, callId }, confirmation);
      // Tell the connection that asked, if it is still here and asked through URL-mode elicitation.
      const server = servers.get(pending.connection);
      try {
        await server?.createElicitationCompletionNotifier(callId)();
      } catch {
        // Not asked through URL-mode elicitation, or gone: its client calls again anyway.
      }
    },
    /** The signed receipts of every forwarded call's outcome, in order (verify with `verifyReceipts`). */
    receipts: () => receipts.list(),
    /** What the gateway noticed at start and did not act on (a whitelisted tool the upstream lacks), by name. */
    warnings,
    governed,
  };
}
