// Declarations of `agent-governor/openai-agents`, the OpenAI Agents SDK (JS) adapter (@openai/agents 0.20).
import type { FunctionTool, RunState, RunToolApprovalItem, tool } from "@openai/agents";
import type { Confirmation, GovernToolCallsOptions, GovernedToolCalls, ToolCallDraft } from "agent-governor";

/** As for `governToolCalls`; share the `store` between processes that resume runs. */
export type GovernAgentToolsOptions = GovernToolCallsOptions;

/** One of a run's `interruptions` for a function tool, or its raw function call item. */
export type AgentToolInterruption = RunToolApprovalItem | { rawItem: { type: "function_call"; callId: string; name: string; arguments: string } };

/** A tool's definition: what you would give the SDK's `tool()`. */
export type AgentToolDefinition = Parameters<typeof tool>[0];

export interface GovernedAgentTools {
  /** The tools (built with the SDK's `tool()`) to give an `Agent`: governed ones interrupt the run and run only as a person approved. */
  tools: FunctionTool<any, any, any>[];
  /** What a person approves for an interruption: sign it with an approver key (or `issueConfirmation` on a server that issues approvals). */
  draft(interruption: AgentToolInterruption): ToolCallDraft;
  /** The two lines a person reads for an interruption, rendered from the tool and its canonical arguments. */
  lines(interruption: AgentToolInterruption, language?: "en" | "ja"): [string, string];
  /**
   * Checks `confirmation` for the interruption's call in the core, keeps it, then calls `state.approve(interruption)`.
   * Rejects with `not_approved` (the state untouched) when the confirmation does not approve exactly that call now.
   */
  approve(state: RunState<any, any>, interruption: AgentToolInterruption, confirmation: Confirmation): Promise<void>;
  /** The underlying governed calls (the Executor, `run`, `runApproved`). */
  governed: GovernedToolCalls;
}

/**
 * Governs function tools given by their definitions (built here with the SDK's `tool()`, so a tool that throws
 * leaves its call in flight rather than answered): a call of a tool not in `whitelist` interrupts the run and
 * runs only with a person's signed, single-use confirmation of exactly that call. A refused call runs nothing;
 * the model reads why (`approval_required`, `not_approved`, `outcome_unknown`), through the tool's own
 * `errorFunction` when it has one; with `errorFunction: null` the run fails with the typed error.
 */
export declare function governAgentTools(tools: AgentToolDefinition[], options: GovernAgentToolsOptions): GovernedAgentTools;
