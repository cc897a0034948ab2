// Declarations of the driver modules; the types they use are generated into the module's declarations.
import type { Confirmation, ConfirmationStore, ControlLoop, ControlLoopConfig, Executor, ExecutorResult, GovernorLoopConfig, LogChannel, LogStore, ProposedChange, VerificationKeys } from "../wasm/agent_governor_full.js";

/** A governed agent over the given ports (see `Governor.loop`). */
export declare function createControlLoop(config: ControlLoopConfig): ControlLoop;
/** Logs in memory, trimmed by whole lines to `limitBytes` (10 MB by default). */
export declare function memoryLogStore(options?: { limitBytes?: number }): LogStore & { read(channel: LogChannel): string };
/** The host's `IDBFactory` where the DOM lib is loaded; any object elsewhere (the call then needs a real one). */
type HostIndexedDb = typeof globalThis extends { IDBFactory: { prototype: infer Factory } } ? Factory : object;

/** Logs in IndexedDB (browsers, windows and workers), trimmed by whole lines to `limitBytes`. */
export declare function indexedDbLogStore(options?: { limitBytes?: number; name?: string; indexedDB?: HostIndexedDb }): Promise<LogStore & { close(): void }>;
/** One call of a governed tool, as the agent framework made it. */
export type ToolCall = { tool: string; arguments: Record<string, unknown>; callId: string };
/** What a person approves for a tool call (a ConfirmationDraft): sign it with `issueConfirmation` or an approver key. */
export type ToolCallDraft = { node_id: string; proposed_change: ProposedChange; intent: string; reason: string; ui_action: string };
export type ToolCallOutcome =
  | { outcome: "applied"; output: unknown; approved: boolean; result?: ExecutorResult }
  | { outcome: Exclude<ExecutorResult["outcome"], "applied">; result: ExecutorResult };
/** The Executor's options for governed tool calls (its `skills` are the tools'), and the tools that need no approval. */
export type GovernToolCallsOptions = {
  store: ConfirmationStore;
  keys: VerificationKeys;
  /** Tools that run with no approval. */
  whitelist?: string[];
  now?: () => number;
  audit?: (record: unknown) => void | Promise<void>;
  [option: string]: unknown;
};
/** A set of tools whose calls run only as a person approved them. */
export interface GovernedToolCalls {
  executor: Executor;
  /** Whether `tool` runs with no approval. */
  isWhitelisted(tool: string): boolean;
  /** What a person approves for `call`: sign it with `issueConfirmation` or an approver key. */
  draft(call: ToolCall): ToolCallDraft;
  /** Runs `call` as approved by confirmation `confirmationId` (none needed for a whitelisted tool). */
  run(call: ToolCall, confirmationId?: string): Promise<ToolCallOutcome>;
  /** Keeps a person's signed confirmation of `call` for `runApproved`; resolves to its id. */
  approve(call: ToolCall, confirmation: Confirmation): Promise<string>;
  /** Runs `call` with the confirmation kept for it; throws `approval_required` when there is none. */
  runApproved(call: ToolCall): Promise<ToolCallOutcome>;
}
/**
 * Tool calls that run only through the Executor, once, when a person's signed confirmation binds exactly the
 * call (its tool, its arguments as canonical JSON, its id).
 */
export declare function governToolCalls(tools: Record<string, (args: any) => unknown>, options: GovernToolCallsOptions): GovernedToolCalls;
export declare const DEFAULT_LOG_LIMIT_BYTES: number;
export declare const LOG_CHANNELS: readonly LogChannel[];

declare module "../wasm/agent_governor_full.js" {
  interface Governor {
    /** The control loop (seed 002) with this governor's components. */
    loop(config: GovernorLoopConfig): ControlLoop;
  }
}
