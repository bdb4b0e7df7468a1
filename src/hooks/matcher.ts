import { GyreError } from "../errors/index.js";
import { type HookEventName, MATCH_FIELD } from "./events.js";

/** Tests one value (a tool name, a session source, ...) against a configured matcher. */
export type MatchFunction = (value: string | undefined) => boolean;

const SIMPLE = /^[A-Za-z0-9_|-]+$/;

/**
 * Compile a matcher the way Claude Code reads it: empty, missing or `*` matches all; a
 * plain name or `A|B` alternation matches those names exactly; anything else is a
 * regular expression tested against the value (unanchored, so `mcp__github__.*` works).
 * An invalid regular expression is a `config_error`.
 */
export function compileMatcher(matcher: string | undefined, where: string): MatchFunction {
  const pattern = matcher?.trim() ?? "";
  if (pattern === "" || pattern === "*") return () => true;
  if (SIMPLE.test(pattern)) {
    const names = new Set(pattern.split("|").filter((name) => name !== ""));
    return (value) => value !== undefined && names.has(value);
  }
  let regex: RegExp;
  try {
    regex = new RegExp(pattern);
  } catch (error) {
    throw new GyreError("config_error", `Invalid hook matcher "${pattern}" at ${where}: not a valid regex.`, {
      cause: error,
    });
  }
  return (value) => value !== undefined && regex.test(value);
}

/**
 * The value an event's matchers are tested against: `null` for events that ignore
 * matchers (every hook runs), `undefined` when the input lacks the field (only
 * match-all matchers run).
 */
export function matchValue(event: HookEventName, input: Record<string, unknown>): string | undefined | null {
  const field = MATCH_FIELD[event];
  if (field === undefined) return null;
  const value = input[field];
  return typeof value === "string" ? value : undefined;
}
