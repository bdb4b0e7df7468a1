// The turn pipeline, as the rooms above it (run/, agents/) and `gyre mcp serve` drive it.
export { DoomLoopDetector } from "./doom-loop.js";
export { hookReports } from "./hook-reports.js";
export { joinedText } from "./joined-text.js";
export { type RunBudget, runBudget } from "./limits.js";
export { MessageStamp } from "./messages.js";
export { nestedIn } from "./nested-messages.js";
export { CONTINUE, interruptReason, isInterrupt, type NextStep, stop } from "./next-step.js";
export {
  type Approval,
  type ClientToolResult,
  type PendingAnswers,
  pendingToolCalls,
  readAnswers,
  toolResultsPrompt,
} from "./pause.js";
export { continueStep, type UnfinishedRun } from "./steps/continue.js";
export { resumeStep } from "./steps/resume.js";
export { resultMessage } from "./result.js";
export { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";
export { RunChannel } from "./run-channel.js";
export type {
  ActiveAgent,
  AgentSwitchState,
  HandoffState,
  ModelSettings,
  RunBackground,
  RunContext,
  RunHandoffs,
  RunLimits,
  TurnHandoff,
  TurnPrompt,
} from "./run-context.js";
export { runLoop, type Step } from "./run-loop.js";
export { activeContext, newRunState, type RunState, useModel } from "./run-state.js";
export { reachableToolNames } from "./tool-search.js";
export type { ToolBatch, ToolsOutcome } from "./run-tools.js";
export {
  runToolCall,
  type ToolCallDone,
  type ToolCallEnv,
  type ToolCallObserver,
  ToolCallRun,
  type ToolCallState,
} from "./tool-call.js";
export { type GateDecision, ToolGate } from "./tool-gate.js";
export { uniqueHistoryToolUseIds } from "./tool-use-ids.js";
