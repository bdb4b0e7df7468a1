import { posix } from "node:path";
import picomatch from "picomatch";

/**
 * A Glob pattern compiled for the fast crawl. Every decision mirrors what tinyglobby makes
 * with Glob's options (see `globOptions`), so the crawl finds exactly the files it finds.
 */
export interface GlobPlan {
  /** The folder to crawl, relative to the search root, as `/`-ended prefix (`""` for the root). */
  base: string;
  /**
   * The path of the file `name` in the folder `folder` (relative to the search root, `""` or
   * ending in `/`) if it is a match, else `undefined`.
   */
  matchFile(folder: string, name: string): string | undefined;
  /**
   * Whether to skip the folder `name` at `path.slice(start, -1)` (relative to the search
   * root); `path` is its full path ending in `/`, as the crawler has it, so that the common
   * case needs no copy of it.
   */
  skipsFolder(name: string, path: string, start: number): boolean;
}

/**
 * The picomatch options tinyglobby passes for Glob's settings (case sensitive, no dot
 * entries unless named), with `windows` as picomatch defaults it on POSIX.
 */
const MATCH_OPTIONS = {
  dot: false,
  nobrace: false,
  nocase: false,
  noextglob: false,
  noglobstar: false,
  posix: true,
  windows: false,
} as const;

/** A picomatch matcher minus the per-call result objects: picomatch's own test is `input === glob || regex`. */
function matcher(glob: string): (input: string) => boolean {
  const regex = picomatch.makeRe(glob, MATCH_OPTIONS);
  return (input) => input !== "" && (input === glob || regex.test(input));
}

/**
 * Plan the crawl for `pattern` (relative to the search root) with the folders named in
 * `skipped` ignored anywhere (tinyglobby's `**\/name/**`), or `undefined` for a pattern whose
 * handling by tinyglobby this plan does not reproduce for sure: negations, `..` segments,
 * escapes, a trailing slash after normalising, and anything on Windows.
 */
export function planGlob(pattern: string, skipped: readonly string[]): GlobPlan | undefined {
  if (process.platform === "win32") return undefined;
  // tinyglobby drops one trailing slash and normalises (`./a` → `a`, `a//b` → `a/b`).
  const normalized = posix.normalize(pattern.endsWith("/") ? pattern.slice(0, -1) : pattern);
  if (
    normalized === "." ||
    normalized.endsWith("/") ||
    normalized.startsWith("/") ||
    normalized.startsWith("!") ||
    normalized.includes("\\") ||
    normalized.split("/").includes("..")
  ) {
    return undefined;
  }
  const parts = splitParts(normalized);
  const base = staticBase(parts)
    .map((part) => `${part}/`)
    .join("");
  // picomatch can turn a stray `|` into a regex alternation spanning the whole pattern, so
  // the shortcuts below reason only about patterns without groups, braces or classes.
  const plain = !/[|(){}[\]]/.test(normalized);
  const suffix = plain ? requiredSuffix(parts[parts.length - 1] as string) : "";
  const skipsDotFolders = plain && dotFoldersHoldNoMatch(parts);
  const isMatch = matcher(normalized);
  const isIgnored = ignoredBy(skipped);
  const isPartialMatch = partialMatcher(parts);
  return {
    base,
    matchFile(folder, name) {
      if (!name.endsWith(suffix)) return undefined;
      const path = folder + name;
      return isMatch(path) && !isIgnored(path, 0, path.length) ? path : undefined;
    },
    skipsFolder(name, path, start) {
      if (skipsDotFolders && name.startsWith(".")) return true;
      const end = path.length - 1;
      return !isPartialMatch(path, start, end) || isIgnored(path, start, end);
    },
  };
}

/** The pattern's `/`-separated parts as picomatch scans them (a brace may hold a `/`). */
function splitParts(pattern: string): string[] {
  const parts = picomatch.scan(pattern, { parts: true }).parts;
  return parts !== undefined && parts.length > 0 ? parts : [pattern];
}

/**
 * The leading static parts tinyglobby crawls from: never the last part, and one fewer when
 * the pattern ends in `**`. Not `picomatch.scan().base`: for `link/**` tinyglobby crawls the
 * parent and so does not follow a symlinked `link`; crawling from `link` would.
 */
function staticBase(parts: readonly string[]): string[] {
  const base: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (part === "**" && i === parts.length - 1) {
      base.pop();
      break;
    }
    if (i === parts.length - 1 || isDynamic(part)) break;
    base.push(part);
  }
  return base;
}

function isDynamic(part: string): boolean {
  const scan = picomatch.scan(part);
  return scan.isGlob || scan.negated;
}

/**
 * Whether no file under a dot folder can match (for a pattern without groups, braces or
 * classes). tinyglobby crawls such folders below the first level (`**` has matched the
 * first segment) only to reject every file in them: with `dot: false`, folder parts made of
 * word characters, `-` and `*` never match a name starting with `.`, and the last part only
 * meets folders when it is `**`, which does not either.
 */
function dotFoldersHoldNoMatch(parts: readonly string[]): boolean {
  const last = parts[parts.length - 1] as string;
  return parts.slice(0, -1).every((part) => /^[\w*-]+$/.test(part)) && (last === "**" || !last.includes("**"));
}

/**
 * Literal text every match ends with (for a pattern without groups, braces or classes):
 * the trailing run of plain characters of a last part made only of them, `*` and `?`
 * (`.js` of `**\/*.js`). Checking a file's name for it first spares most non-matching
 * files the path and the regex.
 */
function requiredSuffix(lastPart: string): string {
  return /^[\w.*?-]+$/.test(lastPart) ? (/[\w.-]*$/.exec(lastPart)?.[0] ?? "") : "";
}

/**
 * Whether the folder at `path.slice(start, end)` could hold a match, part by part as
 * tinyglobby decides it. That can prune more than the full pattern would (`**` does not
 * match a dot folder's name here, so `**\/.github/*` skips a top-level `.github`); keeping
 * it keeps the results identical. Walks the segments in place instead of splitting.
 */
function partialMatcher(parts: readonly string[]): (path: string, start: number, end: number) => boolean {
  const matchers = parts.map(matcher);
  // A part that still holds a `/` (inside braces) cannot be matched segment by segment.
  const spansFolders = parts.map((part) => part.includes("/"));
  return (path, start, end) => {
    let from = start;
    for (let index = 0; index < parts.length; index++) {
      if (spansFolders[index]) return true;
      const slash = path.indexOf("/", from);
      const to = slash === -1 || slash > end ? end : slash;
      if (!(matchers[index] as (input: string) => boolean)(path.slice(from, to))) return false;
      if (parts[index] === "**" || to === end) return true;
      from = to + 1;
    }
    // The folder is deeper than the pattern.
    return false;
  };
}

/**
 * tinyglobby's ignore test (`**\/name/**` per skipped name) on `path.slice(start, end)`.
 * The regex only runs when that holds the name at all, which almost no path does.
 */
function ignoredBy(skipped: readonly string[]): (path: string, start: number, end: number) => boolean {
  const tests = skipped.map((name) => ({ name, isMatch: matcher(`**/${name}/**`) }));
  return (path, start, end) => {
    for (const test of tests) {
      const at = path.indexOf(test.name, start);
      if (at !== -1 && at < end && test.isMatch(path.slice(start, end))) return true;
    }
    return false;
  };
}
