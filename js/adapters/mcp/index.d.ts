// Declarations of `agent-governor/mcp`, the MCP gateway (@modelcontextprotocol/sdk 1).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Confirmation, GovernToolCallsOptions, GovernedToolCalls, Receipt, ToolCallDraft } from "agent-governor";

/** A request's `_meta` key for the signed confirmation, when a client calls again. */
export declare const CONFIRMATION_META: "agent-governor/confirmation";
/** A request's `_meta` key for the request state of the pending approval it continues. */
export declare const REQUEST_STATE_META: "requestState";
/** A result's `_meta` key for the pending approval (a governed call that did not run yet). */
export declare const APPROVAL_META: "agent-governor/approval";
/** A result's `_meta` key for the signed receipt of a forwarded call's outcome. */
export declare const RECEIPT_META: "agent-governor/receipt";
/** A result's `_meta` key when the call ran but its receipt could not be made (why). */
export declare const RECEIPT_ERROR_META: "agent-governor/receipt_error";
/** A governed call's `_meta` key for what became of it: "ran", "may_have_run" or "not_run" (as `refusalOf(...).ran`). */
export declare const RAN_META: "agent-governor/ran";
/** A result's `_meta` key when the call ran but recording its outcome failed (why): it did run. */
export declare const SETTLE_ERROR_META: "agent-governor/settle_error";
/** The longest arguments of a governed call, as canonical JSON, that a person is asked to read (16 KiB). */
export declare const MAX_TOOL_CALL_TEXT: number;
/** The `_meta` key of a forwarded call's idempotency key (the same on every attempt of one approved call). */
export declare const IDEMPOTENCY_KEY_META: "agent-governor/idempotency_key";

/** What a person reads and signs for a pending call, and what the client sends back with the confirmation. */
export type PendingApproval = { callId: string; requestState: string; lines: [string, string]; draft: ToolCallDraft };

/** The host's Ed25519 key that signs receipts (a WebCrypto `CryptoKey`). */
type HostCryptoKey = typeof globalThis extends { CryptoKey: { prototype: infer Key } } ? Key : object;

/** The options of `governToolCalls` (the `store` also keeps pending calls and receipts), and the gateway's own. */
export type McpGatewayOptions = GovernToolCallsOptions & {
  /** The upstream MCP server, through a connected SDK `Client` every connection shares (stdio, Streamable HTTP, ...). */
  upstream?: Client;
  /**
   * Or: a new transport to the upstream for each connection (its own session: the client's capabilities,
   * sampling, elicitation and notifications go to that connection alone). One of `upstream` and `connectUpstream`.
   */
  connectUpstream?: () => Transport | Promise<Transport>;
  /** The page where a person approves call `callId`: offered through URL-mode elicitation to clients that support it. */
  approvalUrl?: (callId: string) => string | URL;
  /** Signs the receipts. */
  receiptKey: { keyId: string; privateKey: HostCryptoKey };
  serverInfo?: { name: string; version: string };
};

export interface McpGateway {
  /** A new MCP server for one connection: connect it to a transport (stdio, or one Streamable HTTP session). */
  createServer(): Server;
  /** The pending approval of call `callId`, or null. */
  pending(callId: string): Promise<PendingApproval | null>;
  /**
   * Keeps a person's signed confirmation of pending call `callId` (checked in the core first: `not_approved`
   * otherwise); the client's next identical call is forwarded once. Notifies clients that asked through URL-mode elicitation.
   */
  approve(callId: string, confirmation: Confirmation): Promise<void>;
  /** The signed receipts of every forwarded call's outcome, in order (verify with `verifyReceipts`). */
  receipts(): Promise<Receipt[]>;
  /** What the gateway noticed at start and did not act on: each whitelisted tool the upstream does not list, by name. */
  warnings: { code: "whitelisted_tool_missing"; tool: string; message: string }[];
  /** The governed tool calls for the upstream's tools as listed now. */
  readonly governed: GovernedToolCalls;
  /** Closes the gateway's own upstream client (with `connectUpstream`). */
  close(): Promise<void>;
}

/**
 * An MCP server in front of the upstream: everything but a governed tools/call passes through both ways; a
 * governed tools/call is forwarded only with a signed, single-use confirmation bound to the tool and its
 * canonical arguments.
 */
export declare function createMcpGateway(options: McpGatewayOptions): Promise<McpGateway>;
