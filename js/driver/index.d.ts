// Declarations of the driver modules; the types they use are generated into the module's declarations.
import type { CheckVerdict, Confirmation, ConfirmationStore, Mandate, MandateRecord, ControlLoop, ControlLoopConfig, Executor, ExecutorResult, GovernorLoopConfig, Language, LogChannel, LogStore, ProposedChange, VerificationKeys } from "../wasm/agent_governor_full.js";

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
export type ToolCallDraft = { node_id: string; proposed_change: ProposedChange; intent: string; reason: string; ui_action: string; action_id: string };
/**
 * `repeated: true`: another approval of the same call ran it before, and this is the output it returned then
 * (kept with `keepOutputs`); the tool did not run again.
 */
export type ToolCallOutcome =
  | { outcome: "applied"; output: unknown; approved: boolean; result?: ExecutorResult; repeated?: boolean }
  | { outcome: Exclude<ExecutorResult["outcome"], "applied">; result: ExecutorResult };
/** The Executor's options for governed tool calls (its `skills` are the tools'), and the tools that need no approval. */
export type GovernToolCallsOptions = {
  store: ConfirmationStore;
  keys: VerificationKeys;
  /** Tools that run with no approval (read once). */
  whitelist?: string[];
  /** Keep each run's output (its JSON, up to 1 MiB) in the store, for `output(confirmationId)`. */
  keepOutputs?: boolean;
  now?: () => number;
  audit?: (record: unknown) => void | Promise<void>;
  auditTimeoutMs?: number;
  clockSkewMs?: number;
  /** The Executor's audience (see `ExecutorPorts`). */
  audience?: string;
  /** Seals the confirmation records in the store (see `ExecutorPorts`). */
  sealKey?: string;
  language?: Language;
  /** The agent these calls are made for, as standing approvals name it (needed for `approveByMandate`). */
  agentId?: string;
};
/** What `approveByMandate` decided for a call. */
export type MandateApproval = { approved: true; mandateId: string; usesLeft: number | null } | { approved: false; reasons: string[] };
/** A set of tools whose calls run only as a person approved them. */
export interface GovernedToolCalls {
  executor: Executor;
  /** Whether `tool` runs with no approval. */
  isWhitelisted(tool: string): boolean;
  /** What a person approves for `call`: sign it with `issueConfirmation` or an approver key. */
  draft(call: ToolCall): ToolCallDraft;
  /** The core's verdict on `confirmation` for `call` now, without keeping it. */
  check(call: ToolCall, confirmation: Confirmation): CheckVerdict;
  /** Runs `call` as approved by confirmation `confirmationId` (none needed for a whitelisted tool); the tool gets `context`. */
  run(call: ToolCall, confirmationId?: string, context?: unknown): Promise<ToolCallOutcome>;
  /** Checks a person's signed confirmation of `call` in the core and keeps it for `runApproved`; resolves to its id. Keeping one twice is no error. */
  approve(call: ToolCall, confirmation: Confirmation): Promise<string>;
  /** Runs `call` with the confirmation kept for it; throws `approval_required` when there is none. */
  runApproved(call: ToolCall, context?: unknown): Promise<ToolCallOutcome>;
  /** Checks and keeps `confirmation` for `call`, then runs the call with it. */
  runWith(call: ToolCall, confirmation: Confirmation, context?: unknown): Promise<ToolCallOutcome>;
  /** The output kept for a confirmation's run (with `keepOutputs`), or null. */
  output(confirmationId: string): Promise<{ output: unknown } | null>;
  /** Registers a person's signed standing approval for these tools (verified; never twice). */
  registerMandate(mandate: Mandate): Promise<MandateRecord>;
  /** The standing approvals registered here, each with its record's version. */
  mandates(): Promise<{ record: MandateRecord; version: string }[]>;
  /** Approves `call` without asking when a registered, live standing approval covers it; then `runApproved(call)` runs it once. */
  approveByMandate(call: ToolCall): Promise<MandateApproval>;
}
/** What a governed tool is given beside its arguments and context: its action, the same on every attempt. */
export type ToolCallAction = {
  /** `tool-call/<tool>/<callId>/<change digest>`. */
  actionId: string;
  /** Pass it to the upstream (an `Idempotency-Key` header, MCP `_meta`) so the call runs once even if the governor's record is lost. */
  idempotencyKey: string;
};
/**
 * Tool calls that run only through the Executor, once per call (its action: the tool and the call's id),
 * whatever number of people's signed confirmations bind it (its tool, its arguments as canonical JSON, its
 * id). Each tool is `(args, context, action) => output`.
 */
export declare function governToolCalls(tools: Record<string, (args: any, context?: any, action?: ToolCallAction) => unknown>, options: GovernToolCallsOptions): GovernedToolCalls;
/** What became of a call: `ran` (before, by some approval of it), `may_have_run` (unknown), `not_run`. */
export type ToolCallRan = "ran" | "may_have_run" | "not_run";
/** The `ran` of an Executor's result. */
export declare function ranOf(result: ExecutorResult): ToolCallRan;
/**
 * Why a call did not answer with its output, as an error (`code` and `path`, the outcome and `ran` attached):
 * `action_already_ran` (it ran before; it is not run again), `action_in_flight` (another approval of it is
 * running it, or left it unknown), `outcome_unknown` (started, unfinished: in
 * flight until a person reconciles it) or `not_approved` (refused, nothing ran).
 */
export declare function refusalOf(call: ToolCall, outcome: ToolCallOutcome): Error & { code: "not_approved" | "outcome_unknown" | "action_already_ran" | "action_in_flight"; path: string; outcome: ToolCallOutcome; ran: ToolCallRan };
/** The action id of a tool call: `tool-call/<tool>/<callId>/<digest>` (`changeDigest` of its change). */
export declare function toolCallActionId(tool: string, callId: string, digest: string): string;
/** Marks an error a tool throws as proof the call never left (nothing ran; the approval stays usable). */
export declare function notSent(error: Error): Error & { notSent: true };
export declare const DEFAULT_LOG_LIMIT_BYTES: number;
export declare const LOG_CHANNELS: readonly LogChannel[];

declare module "../wasm/agent_governor_full.js" {
  interface Governor {
    /** The control loop (seed 002) with this governor's components. */
    loop(config: GovernorLoopConfig): ControlLoop;
  }
}

/** How `createOtlpExporter` reaches the receiver: `fetch`, or any function with its shape. */
export type OtlpFetch = (
  url: string,
  init: { method: "POST"; headers: Record<string, string>; body: string; signal: AbortSignal },
) => Promise<{ status: number; text?(): Promise<string> }>;
export type OtlpExporterOptions = {
  /** The receiver's full traces URL, e.g. `http://localhost:4318/v1/traces`. */
  endpoint: string;
  /** The receiver's metrics URL (default: the traces URL with `/v1/metrics` for `/v1/traces`). */
  metricsEndpoint?: string;
  /** The host's `fetch` by default. */
  fetch?: OtlpFetch;
  /** Sent with every request (an API key, an `authorization`); `content-type` is always `application/json`. */
  headers?: Record<string, string>;
  /** The resource's `service.name` (default "agent-governor"). */
  serviceName?: string;
  /** Each task span's `gen_ai.agent.name` (default: `serviceName`). */
  agentName?: string;
  /** Spans waiting to be sent at most (default 2048); more are dropped and counted. */
  maxQueue?: number;
  /** Spans per request at most (default 512). */
  maxBatch?: number;
  /** How often the queue is sent (default 2000 ms). */
  flushIntervalMs?: number;
  /** How long one request may take before its batch is dropped (default 10000 ms). */
  timeoutMs?: number;
};
export type OtlpExporterStats = {
  /** Spans ended and not yet sent or dropped. */
  queued: number;
  /** Spans the receiver accepted. */
  exported: number;
  /** Batches sent a second time after 429, 502, 503 or 504. */
  retried: number;
  dropped: {
    /** Spans that found the queue full. */
    queueFull: number;
    /** Spans of a batch the receiver refused or did not answer in time, or rejected as a partial success. */
    exportFailed: number;
    /** Records that were not the loop's telemetry records. */
    malformed: number;
    /** Records given after `shutdown()`. */
    afterShutdown: number;
  };
};
/** One row of the guard's decision metrics, per change type (`key`) or per person (`approver`). */
export type DecisionMetricsRow = {
  decided: number;
  approved: number;
  declined: number;
  by_standing_approval: number;
  approve_rate: number | null;
  median_read_ms: number | null;
  measured: number;
  approved_faster_than_readable: number;
};
/** What `GET /v1/decision-metrics?days=` answers. */
export type DecisionMetrics = {
  since_ms: number;
  until_ms: number;
  window_ms: number;
  decided: number;
  reading: { ms_per_word: number; min_ms: number };
  by_type: (DecisionMetricsRow & { key: string })[];
  by_person: (DecisionMetricsRow & { approver: string })[];
  suggestions: { approver: string; approvals: number; terms: { agents: string[]; action: string; constraints: { field: string; op: string; value: unknown }[]; max_uses: number } }[];
};
/** Sends the control loop's telemetry as OTLP/HTTP JSON spans (GenAI semantic conventions, "development" status). */
export interface OtlpExporter {
  /** Takes one record of the loop's `telemetry` port and returns at once; never throws. */
  record(telemetry: import("../wasm/agent_governor_full.js").OtelLogRecord): void;
  /** `record`, to pass as the loop's `telemetry` port. */
  readonly listener: (telemetry: import("../wasm/agent_governor_full.js").OtelLogRecord) => void;
  /** Resolves once every span ended so far has been sent or dropped. */
  flush(): Promise<void>;
  /**
   * Sends the guard's decision metrics (`GET /v1/decision-metrics`) as OTLP gauges (decisions by outcome, the
   * median time on screen, approvals faster than readable, suggested standing approvals), once.
   */
  exportDecisionMetrics(metrics: DecisionMetrics): Promise<{ sent: true } | { sent: false; reason: string }>;
  /** Ends the open task's span (marked unfinished), sends what is queued and stops the timer; later records are dropped. */
  shutdown(): Promise<void>;
  stats(): OtlpExporterStats;
}
/**
 * An exporter of the loop's telemetry records to an OpenTelemetry receiver (OTLP/HTTP, JSON): one
 * `invoke_agent` span per task, one `execute_tool` span per action, approvals as events. Never blocks the loop.
 */
export declare function createOtlpExporter(options: OtlpExporterOptions): OtlpExporter;
