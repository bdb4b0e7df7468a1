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
  return { base, realBase: resolveRealPath(base), matcher: ignore().add(pattern) };
}

/** Whether any of the absolute `files` matches the pattern (tried against the base and its real path). */
export function matchesPathPattern(pattern: PathPattern, files: readonly string[]): boolean {
  for (const base of new Set([pattern.base, pattern.realBase])) {
    for (const file of files) {
      const relative = path.relative(base, file);
      if (relative === "" || relative === ".." || relative.startsWith(`..${path.sep}`)) continue;
      if (path.isAbsolute(relative) || !ignore.isPathValid(relative)) continue;
      if (pattern.matcher.ignores(relative)) return true;
    }
  }
  return false;
}
