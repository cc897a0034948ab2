// The MCP gateway: an MCP server in front of any MCP server (the upstream, reached through the SDK's Client
// over stdio or Streamable HTTP). Everything but a governed `tools/call` passes through, both ways (relay.js):
// resources, prompts, completion, logging, progress, cancellation, roots, sampling, elicitation, pings and
// list changes, with the upstream's capabilities. `tools/call` of a tool that is not whitelisted (decided per
// call against the upstream's list as it is now, tool-list.js) is forwarded only with a person's signed,
// single-use confirmation bound to the tool's name and its canonical arguments. Without one, the answer says what the client needs to ask a person: a URL-mode
// elicitation to the approval page when the client supports it, otherwise a result carrying the pending
// approval (its lines, the draft to sign and a `requestState` to send back with the confirmation). Every
// forwarded call's outcome gets a signed receipt. The gateway keeps its state in the Executor's store, so a
// restart loses no approval and revives no used one.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, CallToolResultSchema, CancelledNotificationSchema, ErrorCode, McpError, UrlElicitationRequiredError } from "@modelcontextprotocol/sdk/types.js";
import { changeDigest, changeLines, governToolCalls, notSent, refusalOf, toolCallChange } from "agent-governor";
import { typedError } from "../approver/errors.js";
import { isPlainObject } from "../approver/plain-object.js";
import { GOVERN_TOOL_CALLS_OPTIONS, closestName, readOptions } from "../approver/options.js";
import { signReceipt } from "../approver/index.js";
import { receiptChain } from "./receipts.js";
import { protocolError, relayFromClient, relayFromUpstream, relayLoggingLevel, relayOptions, relayed, relayedCapabilities, requestsInFlight, upstreamMeta } from "./relay.js";
import { liveToolList } from "./tool-list.js";

/** The longest arguments of a governed call, as canonical JSON, that a person is asked to read (the edge guard's bound too). */
export const MAX_TOOL_CALL_TEXT = 16 * 1024;
/** How long connecting to the upstream may take before the connection is refused. */
const CONNECT_TIMEOUT_MS = 30_000;
/** The newest requests of a connection remembered for a cancellation to withdraw what they asked for. */
const MAX_ASKED = 100;

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
 * A governed call's answer that is not its result, with what became of the call in `_meta[RAN_META]`: "ran"
 * (before), "may_have_run" (unknown: a person reconciles) or "not_run" (the default).
 */
const errorResult = (text, meta, ran = "not_run") => ({ content: [{ type: "text", text }], isError: true, _meta: { ...(meta ?? {}), [RAN_META]: ran } });

/** What `createMcpGateway` reads: the options of governed tool calls and the gateway's own. */
const MCP_GATEWAY_OPTIONS = {
  ...GOVERN_TOOL_CALLS_OPTIONS,
  upstream: "object",
  connectUpstream: "function",
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
      message: `the whitelist names ${JSON.stringify(name)}, which the upstream server does not list: it is not forwarded until the upstream lists it${hint}`,
    });
  }
  return { present, warnings };
}

/**
 * Creates the gateway over the upstream: `upstream`, a connected `Client` that every connection shares, or
 * `connectUpstream()`, a new transport to the upstream for each connection (its client's capabilities,
 * sampling, elicitation and notifications then go to that connection alone). `options`: the Executor's `store`
 * and `keys` (and its other options), `whitelist` (tools forwarded with no approval), `approvalUrl(callId)`
 * (the page where a person approves a call, for URL-mode elicitation), `receiptKey` (`{ keyId, privateKey }`,
 * an Ed25519 CryptoKey that signs the receipts) and `serverInfo`. Resolves to `{ createServer, approve,
 * pending, receipts, close }`: connect each `createServer()` to a transport (stdio, a Streamable HTTP session,
 * or `serveMcpGateway` in `agent-governor/mcp/http`).
 */
export async function createMcpGateway(options) {
  const given = readOptions("createMcpGateway", "options", options, MCP_GATEWAY_OPTIONS, { required: true });
  const { upstream: shared, connectUpstream, approvalUrl, receiptKey, serverInfo = { name: "agent-governor-mcp-gateway", version: "1" }, whitelist = [], ...governOptions } = given;
  if ((shared === undefined) === (connectUpstream === undefined)) {
    throw typedError("invalid_input", "options.upstream", "give the upstream as `upstream` (a connected MCP Client) or as `connectUpstream` (() => a new transport to it), one of the two");
  }
  if (shared !== undefined && (typeof shared?.callTool !== "function" || typeof shared?.listTools !== "function")) {
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

  /**
   * A new client of the upstream, declaring `capabilities` (a connection's client's own); `relay(client)` is
   * set up before it connects, so nothing the upstream sends at once is lost.
   */
  async function connectNew(capabilities = {}, clientInfo = serverInfo, relay = () => {}) {
    let transport;
    try {
      transport = await connectUpstream();
    } catch (error) {
      throw typedError("upstream_unreachable", "options.connectUpstream", `connectUpstream failed: ${error?.message ?? error}`);
    }
    const client = new Client(clientInfo, { capabilities });
    relay(client);
    let timer;
    try {
      await Promise.race([
        client.connect(transport),
        new Promise((_, reject) => (timer = setTimeout(() => reject(typedError("upstream_unreachable", "options.connectUpstream", `the upstream did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS))),
      ]);
    } catch (error) {
      await client.close().catch(() => {});
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return client;
  }
  // The upstream the gateway lists tools through and reads capabilities from: the shared client, or one of
  // its own (connected once, at start).
  // The upstream's tools as listed now (set once the lister is connected).
  let tools = null;
  const onNotification = (notification) => {
    if (notification.method === "notifications/tools/list_changed") tools?.changed();
  };
  const lister = shared ?? (await connectNew({}, serverInfo, (client) => {
    client.fallbackNotificationHandler = async (notification) => onNotification(notification);
  }));
  const capabilities = relayedCapabilities(lister, { shared: Boolean(shared) });
  tools = liveToolList((cursor) => lister.listTools(cursor === undefined ? {} : { cursor }));
  await tools.has("");
  // A whitelisted tool the upstream does not have is named (in `warnings`, and on the console); the gateway
  // starts for the others, and forwards it once the upstream lists it.
  const { warnings } = whitelistedTools(whitelist, tools.names());
  for (const warning of warnings) console.warn(`agent-governor MCP gateway: ${warning.message}`);

  // The governed set for the upstream's tools as listed now: made again when the list changes (every set
  // shares the store, so an approval, a used one and a kept output are the same for each).
  let governed = null;
  let governedNames = null;
  function governedNow() {
    const names = tools.names().sort();
    const key = JSON.stringify(names);
    if (governed === null || key !== governedNames) {
      const runners = Object.fromEntries(names.map((name) => [name, (args, context, action) => forward(name, args, context, action)]));
      // Outputs are kept: a call asked again after it ran (another approval, an old requestState) answers
      // with the result it had, never by running again.
      governed = governToolCalls(runners, { keepOutputs: true, ...governOptions, whitelist: whitelist.filter((name) => names.includes(name)) });
      governedNames = key;
    }
    return governed;
  }
  governedNow();

  /**
   * Forwards a governed call with its idempotency key, through the upstream of the connection that runs it,
   * with the client's `_meta` and its progress. A call that provably never reached the upstream's tool (no
   * connection, or refused by the server before running) is reported as not sent, so its approval stays
   * usable; anything else that fails leaves the outcome unknown.
   */
  async function forward(name, args, context = {}, action) {
    const { upstream = lister, request, extra } = context.via ?? {};
    const { [CONFIRMATION_META]: _confirmation, [REQUEST_STATE_META]: _state, ...clientMeta } = request?.params?._meta ?? {};
    const meta = { ...clientMeta, ...(action ? { [IDEMPOTENCY_KEY_META]: action.idempotencyKey } : {}) };
    const params = { name, arguments: args, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
    // Cancelled before it was sent: it never left.
    if (context.signal?.aborted) throw notSent(new Error("the client cancelled the call before it was sent"));
    try {
      return await upstream.request({ method: "tools/call", params }, CallToolResultSchema, { ...relayOptions(request ?? {}, extra), signal: context.signal });
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

  /**
   * The client cancelled the request that asked for pending call `callId`: the pending approval is withdrawn
   * (kept, marked), so no later confirmation runs it (even one a person already signed: the client no longer
   * wants the call) and a retry asks anew.
   */
  async function withdraw(callId) {
    const pending = await pendingFromState(`${STATE_PREFIX}${callId}`);
    if (pending === null || pending.withdrawn) return;
    await store.put(pendingKey(callId), JSON.stringify({ ...pending, withdrawn: true }));
    if ((await store.get(digestKey(pending.asker, pending.digest))) === callId) await store.put(digestKey(pending.asker, pending.digest), "");
  }

  function approvalFor(pending) {
    const draft = governedNow().draft({ tool: pending.tool, arguments: pending.arguments, callId: pending.callId });
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
    return { ...result, _meta: { ...upstreamMeta(result?._meta), ...receipt, ...settled, [RAN_META]: "ran" } };
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
    const asker = askerOf(connection.id, extra);
    const { name, arguments: args = {}, _meta: meta = {} } = request.params;
    // A call runs as a plain call: as a task, its result would reach the client only after it ran, refused.
    if (request.params.task !== undefined) throw protocolError(ErrorCode.InvalidParams, "this gateway runs tool calls as plain calls, not as tasks");
    if (!(await tools.has(name))) throw protocolError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(name)}`);
    const upstream = await connection.upstream();
    const governedSet = governedNow();
    if (governedSet.isWhitelisted(name)) {
      const answer = await relayed(() => upstream.request({ method: "tools/call", params: request.params }, CallToolResultSchema, relayOptions(request, extra)));
      return { ...answer, _meta: upstreamMeta(answer?._meta) };
    }
    let digest;
    try {
      const change = toolCallChange(name, args);
      if (change.proposed_change.to.length > MAX_TOOL_CALL_TEXT) {
        throw new Error(`a governed call's arguments are at most ${MAX_TOOL_CALL_TEXT} characters as canonical JSON (these are ${change.proposed_change.to.length}), for a person to read them before approving`);
      }
      digest = changeDigest(change.node_id, change.proposed_change);
    } catch (error) {
      throw protocolError(ErrorCode.InvalidParams, error.message);
    }
    const context = { signal: extra?.signal, via: { upstream, request, extra } };

    // The call that this request continues: the one its request state names (with the confirmation that
    // approves it), or this asker's pending call with these exact arguments (a retry joins it).
    let pending = null;
    if (meta[REQUEST_STATE_META] !== undefined) {
      pending = await pendingFromState(meta[REQUEST_STATE_META]);
      if (pending === null) return errorResult(`${name} was not called: the requestState is unknown or malformed`);
      if (pending.tool !== name || pending.digest !== digest) {
        return errorResult(`${name} was not called: the requestState names another call (${pending.tool}); the arguments must be the approved ones`);
      }
      if (pending.withdrawn) return errorResult(`${name} was not called: its client cancelled the request before a person approved it; call again to ask anew`);
      // The request state is the asker's: an authenticated client's only, and without a confirmation in
      // hand (one kept by gateway.approve, URL mode), the connection's that asked.
      const owner = pending.asker ?? pending.connection;
      const ownedByClient = typeof owner === "string" && owner.startsWith("client:");
      if ((ownedByClient || meta[CONFIRMATION_META] === undefined) && owner !== asker) {
        return errorResult(`${name} was not called: the requestState names a call another client asked for`);
      }
    } else {
      const callId = await store.get(digestKey(asker, digest));
      if (typeof callId === "string" && callId !== "") pending = await pendingFromState(`${STATE_PREFIX}${callId}`);
      if (pending?.withdrawn) pending = null;
    }
    if (pending === null) pending = await propose(name, args, digest, connection.id, asker);
    const call = { tool: name, arguments: args, callId: pending.callId };

    const confirmation = meta[CONFIRMATION_META];
    if (confirmation !== undefined) {
      let outcome;
      try {
        outcome = await governedSet.runWith(call, confirmation, context);
      } catch (error) {
        return errorResult(`${name} was not called: ${error.message}`);
      }
      return answer(call, digest, pending.asker ?? pending.connection ?? asker, outcome);
    }
    try {
      return await answer(call, digest, asker, await governedSet.runApproved(call, context));
    } catch (error) {
      if (error?.code !== "approval_required") throw error;
    }
    // A live standing approval that covers exactly this call runs it now, only for the agent the host
    // authenticated (`authInfo.clientId` is the gateway's `agentId`): a bare connection proves no agent.
    const proven = typeof governOptions.agentId === "string" && extra?.authInfo?.clientId === governOptions.agentId;
    if (proven && (await governedSet.approveByMandate(call)).approved) {
      const outcome = await governedSet.runApproved(call, context);
      // Not run (its last use went to a call that raced it, or it was revoked meanwhile): a person decides.
      if (outcome.outcome === "applied" || refusalOf(call, outcome).ran !== "not_run") return answer(call, digest, asker, outcome);
    }

    // No approval yet: tell the client what to ask a person. A cancellation of this request withdraws it.
    connection.asked.set(String(extra?.requestId), pending.callId);
    if (connection.asked.size > MAX_ASKED) connection.asked.delete(connection.asked.keys().next().value);
    const approval = approvalFor(pending);
    const message = `${approval.lines.join("\n")}\nA person must approve this call before it runs.`;
    if (approvalUrl && server.getClientCapabilities()?.elicitation?.url) {
      throw new UrlElicitationRequiredError([{ mode: "url", elicitationId: approval.callId, url: String(approvalUrl(approval.callId)), message }]);
    }
    return errorResult(message, { [APPROVAL_META]: approval });
  }

  // The protocol's own cancellation (aborting the request's handler) is called before a pending approval is
  // withdrawn; an SDK without it is refused here rather than cancellations silently lost.
  if (typeof Server.prototype._oncancel !== "function") {
    throw typedError("unsupported_sdk", "@modelcontextprotocol/sdk", "this version of the MCP SDK has no Protocol._oncancel: the gateway cannot both cancel a request and withdraw its approval");
  }
  // What travels between the clients and a shared upstream: the requests in flight across every connection.
  const sharedInFlight = requestsInFlight();
  const servers = new Map();
  // A shared upstream's messages go to a request only when it is the only one in flight (never another's).
  if (shared) relayFromUpstream(shared, sharedInFlight, () => [...servers.values()], { onNotification, onlyWhenAlone: true });

  // One server per connection (a stdio process, a Streamable HTTP session); all share the store. A pending
  // call found by its arguments alone (a retry, URL mode) is the asker's only: its authenticated client's,
  // or else its connection's.
  function createServer() {
    const server = new Server(serverInfo, { capabilities });
    const inFlight = shared ? sharedInFlight : requestsInFlight();
    // With `connectUpstream`, the connection's own upstream session, opened once its client has said what it
    // can do (so the upstream may ask it for sampling, elicitation or roots), closed with the connection.
    let own = null;
    let closed = false;
    const connection = {
      id: crypto.randomUUID(),
      asked: new Map(),
      upstream: () => {
        if (shared) return Promise.resolve(shared);
        if (closed) return Promise.reject(protocolError(ErrorCode.ConnectionClosed, "the connection is closed"));
        own ??= connectNew(server.getClientCapabilities() ?? {}, server.getClientVersion() ?? serverInfo, (client) =>
          relayFromUpstream(client, inFlight, () => [server], { onNotification }),
        ).then(
          (client) => {
            // Closed while it connected: nothing keeps it.
            if (closed) client.close().catch(() => {});
            return client;
          },
          (error) => {
            // A failed connection is tried again at the next request, not kept broken.
            own = null;
            throw error;
          },
        );
        return own;
      },
    };
    const lazy = {
      request: async (...args) => (await connection.upstream()).request(...args),
      notification: async (notification) => (await connection.upstream()).notification(notification),
    };
    relayFromClient(server, lazy, inFlight);
    if (capabilities.logging) relayLoggingLevel(server, lazy, inFlight);
    server.oninitialized = () => {
      if (!shared) connection.upstream().catch((error) => server.onerror?.(error));
    };
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => inFlight.track(extra, () => callTool(server, connection, request, extra)));
    // A cancelled request is cancelled as the protocol says, and a pending approval it asked for is withdrawn.
    server.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
      // The protocol's own handling first: the request's handler is aborted.
      server._oncancel(notification);
      const callId = connection.asked.get(String(notification.params?.requestId));
      if (callId !== undefined) {
        connection.asked.delete(String(notification.params?.requestId));
        await withdraw(callId).catch((error) => server.onerror?.(error));
      }
    });
    servers.set(connection.id, server);
    server.onclose = () => {
      closed = true;
      servers.delete(connection.id);
      own?.then((client) => client.close()).catch(() => {});
    };
    return server;
  }

  return {
    /** A new MCP server for one connection: connect it to a transport (stdio, or one Streamable HTTP session). */
    createServer,
    /** The pending approval of call `callId` (what a person reads and signs), or null. */
    async pending(callId) {
      const pending = await pendingFromState(`${STATE_PREFIX}${callId}`);
      return pending === null || pending.withdrawn ? null : approvalFor(pending);
    },
    /**
     * Keeps a person's signed confirmation of pending call `callId` (checked in the core first: `not_approved`
     * otherwise). The client's next call of the same tool with the same arguments is forwarded, once; with
     * URL-mode elicitation, the gateway tells the client the elicitation is complete.
     */
    async approve(callId, confirmation) {
      const pending = await pendingFromState(`${STATE_PREFIX}${callId}`);
      if (pending === null) throw typedError("not_found", "callId", `no pending call ${JSON.stringify(callId)}`);
      if (pending.withdrawn) throw typedError("withdrawn", "callId", `call ${JSON.stringify(callId)} was cancelled by its client before it was approved`);
      await governedNow().approve({ tool: pending.tool, arguments: pending.arguments, callId }, confirmation);
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
    /** The governed tool calls for the upstream's tools as listed now. */
    get governed() {
      return governedNow();
    },
    /** Closes the gateway's own upstream client (with `connectUpstream`); a shared `upstream` is the caller's. */
    async close() {
      if (!shared) await lister.close();
    },
  };
}
