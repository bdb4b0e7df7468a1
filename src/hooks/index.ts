export type { HookCallback, HookCallbackMatcher, HookCallbackResult, HookCallbacks } from "./config.js";
export {
  BaseHookInput,
  HookEventName,
  HookInput,
  type HookInputFor,
  NotificationHookInput,
  PermissionRequestHookInput,
  PostCompactHookInput,
  PostToolUseFailureHookInput,
  PostToolUseHookInput,
  PreCompactHookInput,
  PreToolUseHookInput,
  SessionEndHookInput,
  SessionStartHookInput,
  StopHookInput,
  SubagentStartHookInput,
  SubagentStopHookInput,
  UserPromptSubmitHookInput,
} from "./events.js";
export type { HookError, HookOnFailure, HookOutcome, HookReport } from "./outcome.js";
export {
  AsyncHookJSONOutput,
  HookJSONOutput,
  HookSpecificOutput,
  HookPermissionDecision,
  PermissionRequestDecision,
  SyncHookJSONOutput,
} from "./output.js";
export { HookRunner } from "./runner.js";
