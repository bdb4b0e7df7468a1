import { isServerCompactionBlock } from "../context/index.js";
import type { CostTracker } from "../model/index.js";
import {
  type APIAssistantMessage,
  type PendingToolCall,
  type PermissionDenial,
  type ResultSubtype,
  resultUsage,
  type SDKResultError,
  type SDKResultMessage,
  type StopReason,
  type TerminalReason,
} from "../protocol/index.js";
import type { MessageStamp } from "./messages.js";
import { joinedText } from "./joined-text.js";

/** What the result message reports of a run (a `RunState` is one). */
export interface RunTotals {
  startedAt: number;
  apiMs: number;
  turns: number;
  costs: CostTracker;
  denials: PermissionDenial[];
  lastAssistant: APIAssistantMessage | undefined;
  /** The agent the run runs as, when it does. */
  activeAgent?: { name: string } | undefined;
}

/** How a run ended beyond its reason: error texts, or the final answer a tool gave. */
export interface RunEnding {
  errors?: string[];
  /** Replaces the last assistant text as the result (loop-control and stop-at tools). */
  resultText?: string;
  question?: { question: string; options?: string[] };
  /** The validated answer of the `StructuredOutput` tool (`outputFormat`). */
  structuredOutput?: unknown;
  /** The calls a paused run waits on (`requires_action`). */
  pending?: PendingToolCall[];
  /** With the `snapshots` option: the workspace's snapshot as the run ended. */
  snapshot?: string;
}

const SUBTYPE: Record<TerminalReason, ResultSubtype> = {
  question: "success",
  context_overflow: "error_during_execution",
  completed: "success",
  refusal: "success",
  tool_stopped: "success",
  requires_action: "success",
  max_turns: "error_max_turns",
  max_budget: "error_max_budget_usd",
  max_tokens: "error_during_execution",
  interrupted: "error_during_execution",
  aborted: "error_during_execution",
  model_error: "error_during_execution",
  doom_loop: "error_during_execution",
  hook_stopped: "error_during_execution",
  permission_denied: "error_during_execution",
  structured_output_missing: "error_max_structured_output_retries",
};

/** The final `result` message of a run. */
export function resultMessage(
  stamp: MessageStamp,
  totals: RunTotals,
  reason: TerminalReason,
  ending: RunEnding,
  finishedAt: number,
): SDKResultMessage {
  const subtype = SUBTYPE[reason];
  const isError = subtype !== "success";
  const fields = {
    type: "result" as const,
    is_error: isError,
    num_turns: totals.turns,
    duration_ms: Math.max(0, Math.round(finishedAt - totals.startedAt)),
    duration_api_ms: Math.round(totals.apiMs),
    total_cost_usd: totals.costs.totalCostUsd,
    usage: resultUsage(totals.costs.usage),
    modelUsage: totals.costs.modelUsage(),
    ...(totals.costs.compactionCostUsd !== undefined && { compaction_cost_usd: totals.costs.compactionCostUsd }),
    // A server-side compaction's summary is the provider's, not the answer.
    result: ending.resultText ?? joinedText(totals.lastAssistant?.content.filter((b) => !isServerCompactionBlock(b))),
    stop_reason: (totals.lastAssistant?.stop_reason ?? null) as StopReason | null,
    permission_denials: totals.denials,
    terminal_reason: reason,
  };
  const message: SDKResultMessage = isError
    ? stamp.stamp({ ...fields, subtype: subtype as SDKResultError["subtype"], errors: ending.errors ?? [] })
    : stamp.stamp({ ...fields, subtype: "success" as const });
  const unpriced = totals.costs.unpricedModels;
  if (unpriced.length > 0) message.unpriced_models = unpriced;
  if (ending.question) message.question = ending.question;
  if (ending.structuredOutput !== undefined) message.structured_output = ending.structuredOutput;
  if (ending.pending) message.pending_tool_calls = ending.pending;
  if (ending.snapshot !== undefined) message.snapshot = ending.snapshot;
  if (totals.activeAgent) message.agent = totals.activeAgent.name;
  return message;
}
