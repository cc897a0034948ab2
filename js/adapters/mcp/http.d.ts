// Declarations of `agent-governor/mcp/http`: serving an MCP gateway over Streamable HTTP in Node.
import type { IncomingMessage } from "node:http";
import type { McpGateway } from "./index.js";

export interface ServeMcpGatewayOptions {
  /** The port (0, the default: any free one). */
  port?: number;
  /** "127.0.0.1" by default. */
  host?: string;
  /** "/mcp" by default. */
  path?: string;
  /** A server per request, no session (URL-mode elicitation then falls back to `requestState`). */
  stateless?: boolean;
  /** The Host headers answered (with or without a port); on a loopback address, by default, only localhost, 127.0.0.1, [::1] and the host (DNS rebinding protection); required on any other address. */
  allowedHosts?: string[];
  /** An idle session is closed after this long (30 minutes). */
  sessionIdleMs?: number;
  /** The most events kept per session for a client that resumes (1,000). */
  maxEvents?: number;
  /** The most sessions open at once (1,000). */
  maxSessions?: number;
  /** The caller, or null for 401: an authenticated client's retries join across connections. */
  authenticate?: (request: IncomingMessage) => Promise<{ clientId: string; token: string; scopes: string[] } | null> | { clientId: string; token: string; scopes: string[] } | null;
}

export interface ServedMcpGateway {
  url: URL;
  /** The ids of the sessions open now. */
  sessions(): string[];
  close(): Promise<void>;
}

export declare function serveMcpGateway(gateway: McpGateway, options?: ServeMcpGatewayOptions): Promise<ServedMcpGateway>;
/** Events kept in memory for clients that resume (the SDK's `EventStore`). */
export declare function memoryEventStore(limit?: number): {
  storeEvent(streamId: string, message: unknown): Promise<string>;
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  replayEventsAfter(lastEventId: string, sink: { send(eventId: string, message: unknown): Promise<void> }): Promise<string>;
};
