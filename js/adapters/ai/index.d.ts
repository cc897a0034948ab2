// Declarations of `agent-governor/ai`, the Vercel AI SDK adapter (ai 7).
import type { ToolApprovalResponse, ToolApprovalStatus, ToolSet, TypedToolCall } from "ai";
import type { Confirmation, GovernToolCallsOptions, GovernedToolCalls, ToolCallDraft } from "agent-governor";

/** The SDK's tool call (`{ toolCallId, toolName, input }`), or the `tool-approval-request` part that carries one. */
export type AiToolCall = Pick<TypedToolCall<ToolSet>, "toolCallId" | "toolName" | "input">;
export type AiApprovalRequest = { type: "tool-approval-request"; approvalId: string; toolCall: AiToolCall };

/** The Executor's `store`, `keys` and other options, and `whitelist`: as for `governToolCalls`. */
export type GovernToolsOptions = GovernToolCallsOptions;

export interface GovernedTools<TOOLS extends ToolSet> {
  /** The tool set to give `generateText`, `streamText` or a `ToolLoopAgent`: governed tools need approval and run only as approved. */
  tools: TOOLS;
  /** A `toolApproval` setting: every governed call asks a person, with the machine's two lines as the request's reason. */
  toolApproval: (options: { toolCall: AiToolCall }) => ToolApprovalStatus;
  /** What a person approves for a call: sign it with an approver key (or `issueConfirmation` on a server that issues approvals). */
  draft(toolCall: AiToolCall | AiApprovalRequest): ToolCallDraft;
  /** The two lines a person reads for a call, rendered from the tool and its canonical arguments. */
  lines(toolCall: AiToolCall | AiApprovalRequest, language?: "en" | "ja"): [string, string];
  /**
   * Keeps a person's signed confirmation of a call for its execution. Given the `tool-approval-request` part,
   * resolves to the `tool-approval-response` to send back; given a tool call, to `undefined`.
   */
  approve(request: AiApprovalRequest, confirmation: Confirmation): Promise<ToolApprovalResponse>;
  approve(toolCall: AiToolCall, confirmation: Confirmation): Promise<undefined>;
  /** The underlying governed calls (the Executor, `run`, `runApproved`). */
  governed: GovernedToolCalls;
}

/**
 * Governs an AI SDK tool set: a call of a tool not in `whitelist` runs only with a person's signed,
 * single-use confirmation of exactly that call (its id, the tool and its canonical arguments). The SDK's own
 * `approved: true` is not enough; a refused call is reported to the model as the call's tool error
 * (`not_approved` or `approval_required`), and nothing runs.
 */
export declare function governTools<TOOLS extends ToolSet>(tools: TOOLS, options: GovernToolsOptions): GovernedTools<TOOLS>;
