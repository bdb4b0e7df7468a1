import path from "node:path";
import ignore, { type Ignore } from "ignore";
import { resolveRealPath } from "./resolve-path.js";

/** A `Read(...)`/`Edit(...)` pattern compiled against the directory it is relative to. */
export interface PathPattern {
  base: string;
  realBase: string;
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
  return { base: normalized, realBase: resolveRealPath(normalized), matcher: ignore().add(pattern) };
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
