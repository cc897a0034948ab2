// Declarations of `agent-governor/langgraph`, the LangGraph.js adapter (@langchain/langgraph 1).
import type { GovernToolCallsOptions, GovernedToolCalls, ToolCallDraft } from "agent-governor";

/** The `type` of a governed call's interrupt value. */
export declare const APPROVAL_INTERRUPT: "agent-governor/approval";

/** What a governed call's `interrupt()` carries: what a person reads and signs, and why the last answer was refused. */
export type ApprovalInterrupt = {
  type: typeof APPROVAL_INTERRUPT;
  tool: string;
  callId: string;
  /** The two lines a person reads, rendered from the tool and its canonical arguments. */
  lines: [string, string];
  /** What the person signs: resume the graph with the signed confirmation (`new Command({ resume: confirmation })`). */
  draft: ToolCallDraft;
  /** Why the last resume value was refused (`invalid_input`, `not_approved`), or null. */
  refused: { code: string; message: string } | null;
};

/**
 * As for `governToolCalls`, but `keepOutputs` (every run's output is kept: the node runs again on every
 * resume); share the `store` between processes that resume threads.
 */
export type GovernGraphToolsOptions = Omit<GovernToolCallsOptions, "keepOutputs">;

export interface GovernedGraphTools<TOOLS extends Record<string, (args: any, context?: any) => unknown>> {
  /**
   * Inside a graph node: pauses (`interrupt()`) until the resume value is a person's confirmation of this call,
   * then runs the tool once and resolves to its output. `callId` must be the same each time the node runs.
   * Throws `not_approved` when the Executor does not apply it (a used confirmation, an outcome in flight).
   */
  call<NAME extends keyof TOOLS & string>(tool: NAME, args: Parameters<TOOLS[NAME]>[0], callId: string, context?: unknown): Promise<Awaited<ReturnType<TOOLS[NAME]>>>;
  /** What a person approves for a call (the draft its interrupt carries). */
  draft(tool: keyof TOOLS & string, args: unknown, callId: string): ToolCallDraft;
  /** The underlying governed calls (the Executor, `run`, `runApproved`, `approve`). */
  governed: GovernedToolCalls;
}

/** Governs `tools` (`{ name: async (args, context) => output }`) for use inside LangGraph nodes. */
export declare function governGraphTools<TOOLS extends Record<string, (args: any, context?: any) => unknown>>(tools: TOOLS, options: GovernGraphToolsOptions): GovernedGraphTools<TOOLS>;
