import { type CommandPattern, compileCommandPattern } from "./command-pattern.js";
import { compilePathPattern, type PathPattern } from "./path-pattern.js";
import type { PermissionRule } from "./rule.js";
import { EDIT_TOOLS, READ_TOOLS } from "./tool-kinds.js";
import type { RuleRef } from "./types.js";

/** A parsed rule with its content compiled for the tool family it names. */
export interface CompiledRule extends PermissionRule {
  command?: CommandPattern;
  path?: PathPattern;
}

export interface CompileContext {
  cwd: string;
  home: string;
}

/** Compile a rule's content: command patterns for `Bash`, path patterns for file tools. */
export function compileRule(rule: PermissionRule, context: CompileContext): CompiledRule {
  if (rule.content === undefined) return rule;
  if (rule.toolName === "Bash") return { ...rule, command: compileCommandPattern(rule.content) };
  if (EDIT_TOOLS.has(rule.toolName) || READ_TOOLS.has(rule.toolName)) {
    return { ...rule, path: compilePathPattern(rule.content, { ...context, root: rule.root }) };
  }
  return rule;
}

/** The reference a decision carries for the rule that made it. */
export function ruleRef(rule: CompiledRule): RuleRef {
  return rule.source === undefined
    ? { rule: rule.raw, behavior: rule.behavior }
    : { rule: rule.raw, behavior: rule.behavior, source: rule.source };
}

/** `the deny rule "Bash(rm:*)" (from /home/u/.claude/settings.json)`, for messages. */
export function describeRule(rule: CompiledRule): string {
  const from = rule.source ? ` (from ${rule.source})` : "";
  return `the ${rule.behavior} rule "${rule.raw}"${from}`;
}
