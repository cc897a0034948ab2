// Declarations of the driver modules; the types they use are generated into the module's declarations.
import type { ControlLoop, ControlLoopConfig, ExecutorResult, GovernorLoopConfig, LogChannel, LogStore, ProposedChange } from "../wasm/agent_governor_full.js";

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
/**
 * Tool calls that run only through the Executor, once, when a person's signed confirmation binds exactly the
 * call (its tool, its arguments as canonical JSON, its id). `options`: the Executor's `store`, `keys` and other
 * options, and `whitelist`, the tools that run with no approval.
 */
export declare function governToolCalls(
  tools: Record<string, (args: any) => unknown>,
  options: { store: unknown; keys: Record<string, unknown>; whitelist?: string[]; [option: string]: unknown },
): {
  executor: import("../wasm/agent_governor_full.js").Executor;
  isWhitelisted(tool: string): boolean;
  draft(call: ToolCall): ToolCallDraft;
  run(call: ToolCall, confirmationId?: string): Promise<ToolCallOutcome>;
};
export declare const DEFAULT_LOG_LIMIT_BYTES: number;
export declare const LOG_CHANNELS: readonly LogChannel[];

declare module "../wasm/agent_governor_full.js" {
  interface Governor {
    /** The control loop (seed 002) with this governor's components. */
    loop(config: GovernorLoopConfig): ControlLoop;
  }
}
