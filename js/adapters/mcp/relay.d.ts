// Declarations of `agent-governor/mcp/relay`: the transparent part of an MCP gateway (no WebAssembly).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";

/** How long a relayed request may wait with no progress (renewed by each progress notification). */
export declare const RELAY_TIMEOUT_MS: number;
/** How often a name not in the list makes the gateway list the upstream's tools again, at most. */
export declare const RELIST_AFTER_MS: number;

/** A JSON-RPC error said once, with the other side's code, words and data. */
export declare function protocolError(code: number, message: string, data?: unknown): Error & { code: number; data?: unknown };
/** A result's `_meta` from the upstream without a gateway's own keys (`agent-governor/...`). */
export declare function upstreamMeta(meta: unknown): Record<string, unknown>;
/** `work()`, with the other side's protocol error passed on as it said it. */
export declare function relayed<T>(work: () => Promise<T>): Promise<T>;

/** The handler `extra` of a request the gateway received (the SDK's `RequestHandlerExtra`). */
type Extra = { signal?: AbortSignal; sendNotification(notification: unknown): Promise<void>; sendRequest(request: unknown, schema: unknown, options?: unknown): Promise<unknown> };

/** The client's requests in flight through a gateway, newest last. */
export interface RequestsInFlight {
  track<T>(extra: Extra, work: () => Promise<T>): Promise<T>;
  newest(): Extra | undefined;
  only(): Extra | undefined;
}
export declare function requestsInFlight(): RequestsInFlight;

/** What the client sends that has no handler of its own on `server` goes to `upstream`. */
export declare function relayFromClient(server: Server, upstream: Pick<Client, "request" | "notification">, inFlight: RequestsInFlight, onError?: (error: unknown) => void): void;
/** What the upstream sends that has no handler of its own goes to the client (with a request in flight, on its stream). */
export declare function relayFromUpstream(
  upstream: Client,
  inFlight: RequestsInFlight,
  servers: () => Server[],
  options?: { onNotification?: (notification: { method: string; params?: unknown }) => void; onError?: (error: unknown) => void; onlyWhenAlone?: boolean },
): void;
/** The capabilities a gateway declares: the upstream's, with tools, without tasks (and without subscriptions when `shared`). */
export declare function relayedCapabilities(upstream: Client, options?: { shared?: boolean }): Record<string, unknown>;
/** `logging/setLevel` relayed to the upstream. */
export declare function relayLoggingLevel(server: Server, upstream: Pick<Client, "request">, inFlight: RequestsInFlight): void;

/** The upstream's tools as it lists them now. */
export interface LiveToolList {
  has(name: string): Promise<boolean>;
  schema(name: string): Record<string, unknown> | null;
  names(): string[];
  changed(): void;
  refresh(): Promise<void>;
}
export declare function liveToolList(
  listPage: (cursor?: string) => Promise<{ tools: { name: string; inputSchema?: Record<string, unknown> }[]; nextCursor?: string }>,
  options?: { relistAfterMs?: number; now?: () => number },
): LiveToolList;
