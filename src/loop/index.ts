export type {
  CanUseTool,
  PermissionResult,
  QueryOptions,
  QueryParams,
  QueryPrompt,
  SystemPromptOption,
} from "./options.js";
export type { EffortOption, ThinkingOption } from "./reasoning-options.js";
export { DEFAULT_MODEL, type Query, query } from "./query.js";
export type { RetryPolicy } from "./retry.js";
export { type Approval, type ClientToolResult, toolResultsPrompt } from "./pause.js";
// For serving built-in tools outside a run (`gyre mcp serve --tools`): the same tool-call pipeline as a run's calls.
export { DoomLoopDetector } from "./doom-loop.js";
export { MessageStamp } from "./messages.js";
export {
  runToolCall,
  type ToolCallDone,
  type ToolCallEnv,
  type ToolCallObserver,
  ToolCallRun,
  type ToolCallState,
} from "./tool-call.js";
export { type GateDecision, ToolGate } from "./tool-gate.js";
