export { aggregate } from "./aggregate.js";
export {
  CommandHookConfig,
  type CommandMatcher,
  type HookCallback,
  type HookCallbackMatcher,
  type HookCallbackResult,
  type HookCallbacks,
  type ParsedSettings,
  parseSettingsHooks,
  type SettingsHooks,
} from "./config.js";
export {
  BaseHookInput,
  type HookEventFields,
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
  SubagentStopHookInput,
  UserPromptSubmitHookInput,
} from "./events.js";
export { blockingOutput, interpretCommandExit } from "./interpret.js";
export { compileMatcher, type MatchFunction } from "./matcher.js";
export {
  emptyOutcome,
  type HookError,
  type HookErrorKind,
  type HookOutcome,
  type HookRunResult,
  type HookSource,
} from "./outcome.js";
export {
  AsyncHookJSONOutput,
  HookJSONOutput,
  HookSpecificOutput,
  HookPermissionDecision,
  PermissionRequestDecision,
  parseHookOutput,
  SyncHookJSONOutput,
} from "./output.js";
export { type HookCommandExit, defaultShell, runHookCommand } from "./run-hook-command.js";
export { HookRunner, type HookRunnerOptions, type HookRunOptions } from "./runner.js";
