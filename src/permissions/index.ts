export { type CommandPattern, compileCommandPattern, matchesCommand, matchesCommandText } from "./command-pattern.js";
export { PermissionMode } from "./mode.js";
export {
  PermissionPolicy,
  type PermissionPolicyOptions,
  type PermissionRequest,
  type PermissionSettings,
  type RuleInput,
  type RuleWarning,
} from "./policy.js";
export { formatRule, type ParsedRule, type PermissionRule, parseRule, type SourcedRule } from "./rule.js";
export { isProtectedPath } from "./protected-paths.js";
export { analyzeShell } from "./shell/analyze.js";
export { loadShellParser } from "./shell/parser.js";
export type { ShellAnalysis, ShellCommand, ShellRedirect, ShellWord } from "./shell/shell-command.js";
export { EDIT_TOOLS, READ_TOOLS } from "./tool-kinds.js";
export {
  type CanUseTool,
  type PermissionDecision,
  type PermissionResult,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  RuleBehavior,
  type RuleRef,
} from "./types.js";
