import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { resolveRealPath } from "./resolve-path.js";

/** A `Read(...)`/`Edit(...)` pattern compiled against the directory it is relative to. */
export interface PathPattern {
  base: string;
  realBase: string;
  /** The gitignore lines `matcher` was built from, relative to `base`. */
  lines: readonly string[];
  matcher: Ignore;
}

export interface PathPatternContext {
  cwd: string;
  home: string;
  /** The settings file's project root, for `/path` patterns; defaults to `cwd`. */
  root?: string;
}

/**
 * Compile a path rule with Claude Code's anchors and gitignore semantics:
 * `//abs/path` is absolute, `~/path` is under home, `/path` is relative to the settings
 * file's project root, `./path` is anchored at the working directory, and a bare pattern
 * (`*.env`, `src/**`) is a gitignore pattern below the working directory (no slash: any depth).
 */
export function compilePathPattern(content: string, context: PathPatternContext): PathPattern {
  let base: string;
  let pattern: string;
  if (content.startsWith("//")) {
    base = path.sep;
    pattern = content.slice(1);
  } else if (content === "~" || content.startsWith("~/")) {
    base = context.home;
    pattern = content === "~" ? "**" : content.slice(1);
  } else if (content.startsWith("/")) {
    base = context.root ?? context.cwd;
    pattern = content;
  } else if (content.startsWith("./")) {
    base = context.cwd;
    pattern = content.slice(1);
  } else {
    base = context.cwd;
    pattern = content;
  }
  if (pattern === "/") pattern = "/**";
  const normalized = path.resolve(base);
  return { base: normalized, realBase: resolveRealPath(normalized), lines: [pattern], matcher: ignore().add(pattern) };
}

/**
 * Whether any of the absolute, normalised `files` matches the pattern (tried against the base
 * and its real path). Only files below a base can match; their path relative to it is a slice,
 * not `path.relative` (which resolves both paths again: a search asks this for every file).
 */
export function matchesPathPattern(pattern: PathPattern, files: readonly string[]): boolean {
  const { base, realBase } = pattern;
  return (
    matchesBelow(pattern.matcher, base, files) || (realBase !== base && matchesBelow(pattern.matcher, realBase, files))
  );
}

function matchesBelow(matcher: Ignore, base: string, files: readonly string[]): boolean {
  const prefix = base.endsWith(path.sep) ? base : base + path.sep;
  for (const file of files) {
    if (!file.startsWith(prefix) || file.length === prefix.length) continue;
    const relative = file.slice(prefix.length);
    if (ignore.isPathValid(relative) && matcher.ignores(relative)) return true;
  }
  return false;
}

/**
 * Patterns that match when any of `patterns` does, with those of one base merged into one
 * matcher: one look-up per file and base instead of one per rule (a search checks every file
 * it found). A negated line (`!…`) would undo the others' matches in a shared matcher, so a
 * pattern with one keeps a matcher of its own.
 */
export function mergePathPatterns(patterns: readonly PathPattern[]): PathPattern[] {
  const merged = new Map<string, PathPattern>();
  const alone: PathPattern[] = [];
  for (const pattern of patterns) {
    if (pattern.lines.some((line) => /(^|\n)\s*!/.test(line))) {
      alone.push(pattern);
      continue;
    }
    const key = `${pattern.base}\0${pattern.realBase}`;
    const known = merged.get(key);
    merged.set(key, known ? { ...known, lines: [...known.lines, ...pattern.lines] } : pattern);
  }
  const combined = [...merged.values()].map((pattern) =>
    pattern.lines.length === 1 ? pattern : { ...pattern, matcher: ignore().add([...pattern.lines]) },
  );
  return [...combined, ...alone];
}
