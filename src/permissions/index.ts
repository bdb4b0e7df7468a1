export { PermissionMode } from "./mode.js";
export { PermissionPolicy, type PermissionPolicyOptions, type PermissionSettings } from "./policy.js";
export type { SourcedRule } from "./rule.js";
export { loadShellParser } from "./shell/parser.js";
export { ruleAppliesTo } from "./tool-kinds.js";
export {
  type CanUseTool,
  type PermissionDecision,
  type PermissionHint,
  type PermissionResult,
  PermissionRuleValue,
  PermissionUpdate,
  PermissionUpdateDestination,
  RuleBehavior,
  type UnaskedCall,
} from "./types.js";
