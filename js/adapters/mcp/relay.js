// The transparent part of an MCP gateway, shared by the library's gateway and the edge guard's: everything
// that is not a governed `tools/call` passes between the client (the gateway's `Server`, one per connection)
// and the upstream (a `Client`), both ways, as it was sent: requests with their `_meta` and their progress,
// cancellation (an aborted request is cancelled on the other side), notifications, and the upstream's own
// requests to the client (sampling, elicitation, roots). Errors are passed on with the code, words and data
// the other side gave. No WebAssembly: the edge imports it as `agent-governor/mcp/relay`.
import { ErrorCode, McpError, ResultSchema, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * How long a relayed request may wait with no progress: the client and the upstream keep their own limits;
 * the gateway only bounds a request nobody answers (an hour, renewed by each progress notification).
 */
export const RELAY_TIMEOUT_MS = 60 * 60 * 1000;

/** The notifications the SDK's protocol answers itself on each side: they are never relayed as they are. */
const OWN_NOTIFICATIONS = new Set(["notifications/initialized", "notifications/cancelled", "notifications/progress"]);

/**
 * A JSON-RPC error for the other side, said once: the SDK's server sends an error's `message` as it is, and
 * an McpError's message already starts with "MCP error <code>: ", which the receiving McpError adds again.
 */
export function protocolError(code, message, data) {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** `work()`, with the other side's protocol error passed on as it said it: its code, data and words. */
export async function relayed(work) {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    throw protocolError(error.code, error.message.replace(/^(MCP error -?\d+: )+/, ""), error.data);
  }
}

/**
 * The upstream's `_meta` of a result without a gateway's own keys (`agent-governor/...`): only the gateway says
 * what was approved, edited, run or signed.
 */
export function upstreamMeta(meta) {
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) return {};
  return Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith("agent-governor/")));
}

/**
 * The options of a request sent on for one received with `extra`: its abort signal (a cancellation is
 * passed on), and its progress, sent back under the token the sender chose (the SDK numbers its own).
 */
export function relayOptions(request, extra) {
  const token = request.params?._meta?.progressToken;
  return {
    signal: extra?.signal,
    timeout: RELAY_TIMEOUT_MS,
    resetTimeoutOnProgress: true,
    ...(token === undefined || typeof extra?.sendNotification !== "function"
      ? {}
      : { onprogress: (progress) => extra.sendNotification({ method: "notifications/progress", params: { ...progress, progressToken: token } }).catch(() => {}) }),
  };
}

/** Sends `request` on through `send(request, schema, options)` and answers with what came back, as it is. */
export function forwardRequest(send, request, extra) {
  return relayed(() => send({ method: request.method, ...(request.params === undefined ? {} : { params: request.params }) }, ResultSchema, relayOptions(request, extra)));
}

/**
 * The client's requests in flight through the gateway, newest last, across every connection that shares one
 * upstream: an upstream's message does not say which request it belongs to (only progress has a token), so
 * it goes with the newest request in flight, on that request's stream.
 */
export function requestsInFlight() {
  const entries = [];
  return {
    /** Runs `work()` with `extra` (a request handler's) counted in flight. */
    async track(extra, work) {
      const entry = { extra };
      entries.push(entry);
      try {
        return await work();
      } finally {
        entries.splice(entries.indexOf(entry), 1);
      }
    },
    /** The newest request in flight's `extra`, or undefined. */
    newest: () => entries.at(-1)?.extra,
    /** The request in flight when there is exactly one (else undefined): for an upstream several clients share. */
    only: () => (entries.length === 1 ? entries[0].extra : undefined),
  };
}

/**
 * What the client sends that has no handler of its own on `server` goes to `upstream`, counted in flight:
 * requests (answered with the upstream's answer) and notifications (roots changed, and any other).
 */
export function relayFromClient(server, upstream, inFlight, onError = () => {}) {
  server.fallbackRequestHandler = (request, extra) => inFlight.track(extra, () => forwardRequest((sent, schema, options) => upstream.request(sent, schema, options), request, extra));
  server.fallbackNotificationHandler = async (notification) => {
    if (OWN_NOTIFICATIONS.has(notification.method)) return;
    await upstream.notification(notification).catch(onError);
  };
}

/**
 * What the upstream sends that has no handler of its own on `upstream` goes to the client: with a request
 * in flight, on its stream; otherwise to `servers()` (the connections that share this upstream): every one
 * for a notification, the only one for a request (with several, nobody can tell whose it is: refused).
 * `onNotification(notification)` is told of each notification first (the gateway's tool list listens).
 */
export function relayFromUpstream(upstream, inFlight, servers, { onNotification = () => {}, onError = () => {}, onlyWhenAlone = false } = {}) {
  // With `onlyWhenAlone` (several agents share the upstream), a message goes to a request only when it is
  // the only one in flight: never to another agent's stream.
  const relatedNow = () => (onlyWhenAlone ? inFlight.only() : inFlight.newest());
  upstream.fallbackRequestHandler = (request, extra) => {
    const related = relatedNow();
    if (related) return forwardRequest((sent, schema, options) => related.sendRequest(sent, schema, options), request, extra);
    const open = servers();
    if (open.length !== 1) {
      throw protocolError(ErrorCode.InvalidRequest, `the gateway cannot tell which of its ${open.length} clients ${request.method} is for: ask it during a request of that client`);
    }
    return forwardRequest((sent, schema, options) => open[0].request(sent, schema, options), request, extra);
  };
  upstream.fallbackNotificationHandler = async (notification) => {
    if (OWN_NOTIFICATIONS.has(notification.method)) return;
    onNotification(notification);
    const related = relatedNow();
    if (related) return related.sendNotification(notification).catch(onError);
    // With no request to go with: to the one connection, or, when several share the upstream, only what
    // concerns them all (a list changed); anything else is some client's, and nobody can tell whose.
    const open = servers();
    if (open.length !== 1 && !/^notifications\/\w+\/list_changed$/.test(notification.method)) return;
    await Promise.all(open.map((server) => server.notification(notification).catch(onError)));
  };
}

/**
 * `logging/setLevel` relayed to the upstream (the SDK's server answers it itself when logging is declared:
 * the upstream would never hear it).
 */
export function relayLoggingLevel(server, upstream, inFlight) {
  server.setRequestHandler(SetLevelRequestSchema, (request, extra) => inFlight.track(extra, () => forwardRequest((sent, schema, options) => upstream.request(sent, schema, options), request, extra)));
}

/**
 * The capabilities the gateway's server declares: the upstream's, as it declares them (tools always: the
 * gateway serves them, governed).
 */
export function relayedCapabilities(upstream, { shared = false } = {}) {
  const declared = structuredClone(upstream.getServerCapabilities?.() ?? {});
  // Tasks are not relayed: a governed call runs as a plain call, and a shared session's tasks would be every
  // client's. Where clients share one upstream session, a subscription's updates could not go to its client.
  delete declared.tasks;
  if (shared && declared.resources) declared.resources = { ...declared.resources, subscribe: false };
  return { ...declared, tools: { ...(declared.tools ?? {}) } };
}
