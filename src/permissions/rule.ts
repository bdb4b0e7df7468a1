import type { RuleBehavior } from "./types.js";

/** A rule string plus where it came from, as settings files and options supply them. */
export interface SourcedRule {
  /** Claude Code rule syntax: `Bash`, `Bash(npm test:*)`, `Edit(/src/**)`, `mcp__server`. */
  rule: string;
  /** The settings file that holds the rule, named in messages. */
  source?: string;
  /** Directory that `/path` patterns are relative to (the settings file's project root). */
  root?: string;
}

/** A parsed rule. `content` is absent for bare tool names and for `Tool(*)`. */
export interface PermissionRule {
  raw: string;
  behavior: RuleBehavior;
  toolName: string;
  content?: string;
  source?: string;
  root?: string;
}

export type ParsedRule = { ok: true; rule: PermissionRule } | { ok: false; error: string };

const TOOL_NAME = /^[A-Za-z0-9_-]+\*?$/;

/**
 * Parse `Tool` or `Tool(content)`. Content runs from the first `(` to the final `)`, so it may
 * itself hold parentheses. Malformed rules come back as `{ ok: false }` with the reason;
 * the policy ignores them and reports a warning rather than refusing to start.
 */
export function parseRule(source: SourcedRule, behavior: RuleBehavior): ParsedRule {
  const raw = source.rule.trim();
  const origin = { raw, behavior, source: source.source, root: source.root };
  if (raw === "") return { ok: false, error: "empty rule" };
  const open = raw.indexOf("(");
  if (open < 0) {
    if (raw.includes(")")) return { ok: false, error: `unbalanced ')' in rule "${raw}"` };
    if (!TOOL_NAME.test(raw)) return { ok: false, error: `invalid tool name in rule "${raw}"` };
    return { ok: true, rule: { ...origin, toolName: raw } };
  }
  if (!raw.endsWith(")")) return { ok: false, error: `missing closing ')' in rule "${raw}"` };
  const toolName = raw.slice(0, open).trim();
  if (!TOOL_NAME.test(toolName)) return { ok: false, error: `invalid tool name in rule "${raw}"` };
  const content = raw.slice(open + 1, -1).trim();
  if (content === "" || content === "*") return { ok: true, rule: { ...origin, toolName } };
  return { ok: true, rule: { ...origin, toolName, content } };
}

/** The rule back in Claude Code syntax. */
export function formatRule(toolName: string, content?: string): string {
  return content === undefined ? toolName : `${toolName}(${content})`;
}
