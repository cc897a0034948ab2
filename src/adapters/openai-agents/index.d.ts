// Declarations of `agent-governor/openai-agents`, the OpenAI Agents SDK (JS) adapter (@openai/agents 0.20).
import type { FunctionTool, RunState, RunToolApprovalItem, Tool } from "@openai/agents";
import type { Confirmation, ConfirmationStore, GovernedToolCalls, ToolCallDraft, VerificationKeys } from "agent-governor";

export type GovernAgentToolsOptions = {
  /** Where confirmations (and which call each was kept for) are kept: the Executor's store. Share it between processes that resume runs. */
  store: ConfirmationStore;
  /** The approvers' verification keys: Ed25519 or passkey public keys, or an HMAC secret of a server that issues approvals. */
  keys: VerificationKeys;
  /** Names of tools that run with no approval. */
  whitelist?: string[];
  /** Host clock in epoch milliseconds. */
  now?: () => number;
  [option: string]: unknown;
};

/** One of a run's `interruptions` for a function tool, or its raw function call item. */
export type AgentToolInterruption = RunToolApprovalItem | { rawItem: { type: "function_call"; callId: string; name: string; arguments: string } };

export interface GovernedAgentTools<TOOLS extends Tool<any>[]> {
  /** The tools to give an `Agent`: governed tools interrupt the run and run only as a person approved. */
  tools: TOOLS;
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
 * Governs the SDK's function tools: a call of a tool not in `whitelist` interrupts the run and runs only with
 * a person's signed, single-use confirmation of exactly that call. A refused call runs nothing; the model reads
 * why (the tool's error function, or the refusal's message), or the run fails when the tool has `errorFunction: null`.
 */
export declare function governAgentTools<TOOLS extends (FunctionTool<any, any, any> | Tool<any>)[]>(tools: TOOLS, options: GovernAgentToolsOptions): GovernedAgentTools<TOOLS>;
