import type { ToolInputProblem } from "../model/index.js";
import type {
  PendingToolCall,
  PermissionDenial,
  TerminalReason,
  ToolResultBlock,
  ToolUseBlock,
} from "../protocol/index.js";
import type { ToolResult } from "../tools/index.js";
import type { GateDecision } from "./tool-gate.js";

/** One answer's tool calls, with what the model boundary found wrong with some of them. */
export interface ToolBatch {
  calls: readonly ToolUseBlock[];
  /** Calls whose arguments were not used, by id: they get an error result instead of running. */
  toolInputProblems: ReadonlyMap<string, ToolInputProblem>;
  /** Calls whose id repeated an earlier call's in the same message: new id → the id the model gave. */
  repeatedIds: ReadonlyMap<string, string>;
  /** Calls already decided (a deferred approval answered on resume): the gate is not asked again. */
  decided?: ReadonlyMap<string, GateDecision>;
}

export interface ToolsOutcome {
  /** A result for every call, in call order — except the pending ones (unless the run stops). */
  results: ToolResultBlock[];
  /** Calls the caller must answer: client-executed tools, deferred approvals. */
  pending: PendingToolCall[];
  /** Structured results for callers, by tool_use id. */
  data: Record<string, unknown>;
  denials: PermissionDenial[];
  /** A denial, a hook or a loop-control tool asked to end the run after this turn. */
  stop: TerminalReason | undefined;
  /** The final answer (and question) a loop-control or stop-at tool ended the run with. */
  endRun: ToolResult["endRun"];
}
