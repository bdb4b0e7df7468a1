import { isAbsolute, relative, resolve } from "node:path";
import { glob } from "tinyglobby";
import { GyreError } from "../../errors/index.js";
import type { ToolContext, ToolResult } from "../tool.js";
import { crawlGlob } from "./glob-crawl.js";
import { modifiedTimes, newestFirst } from "./glob-order.js";
import type { GlobInput } from "./glob-input.js";
import { resolveSearchRoot } from "./grep/search-root.js";
import { SearchGuard } from "./search-guard.js";

/** One Glob call: the search and its listing, newest-modified first, at most `maxResults` paths. */
export async function runGlob(input: GlobInput, context: ToolContext, maxResults: number): Promise<ToolResult> {
  const root = resolveSearchRoot(input.path, context.cwd, "Glob");
  if (root.isFile) {
    throw new GyreError("tool_error", `Path is not a directory: ${input.path}`, { toolName: "Glob" });
  }
  const pattern = isAbsolute(input.pattern) ? relative(root.path, input.pattern) : input.pattern;
  const guard = new SearchGuard(context.files, root.path);
  // Left out before ordering and counting, so neither the list nor "more matched" tells of them.
  const matches = permitted(await findFiles(pattern, root.path, context.signal, guard), root.path, guard);
  const prefix = root.display === "" ? "" : root.display.endsWith("/") ? root.display : `${root.display}/`;
  const shown = newestFirst(matches.paths, matches.times, maxResults).map((path) => prefix + path);
  const more = matches.paths.length - shown.length;
  const data = { filenames: shown, numFiles: matches.paths.length, truncated: more > 0 };
  if (shown.length === 0) return { content: "No files found", data };
  const note =
    more > 0
      ? // Claude Code 2.1's wording, with both numbers.
        `\n(Showing ${shown.length} of ${matches.paths.length} matching files; ${more} more ` +
        `${more === 1 ? "is" : "are"} not listed. Narrow the pattern or path to see the rest.)`
      : "";
  return { content: shown.join("\n") + note, data };
}

/** Folders Glob skips wherever they are, unless the pattern names them. */
const SKIPPED_FOLDERS = [".git", "node_modules"] as const;

/** The folders of `SKIPPED_FOLDERS` that `pattern` does not name. */
export function skippedFolders(pattern: string): string[] {
  return SKIPPED_FOLDERS.filter((name) => !pattern.includes(name));
}

/**
 * The tinyglobby options Glob uses for `pattern`: files only, no dot entries unless the
 * pattern names them, symlinks (to files or folders) skipped, and `.git` and `node_modules`
 * skipped unless the pattern names them. Exported so the benchmark runs the same search.
 */
export function globOptions(pattern: string) {
  return {
    ignore: skippedFolders(pattern).map((name) => `**/${name}/**`),
    dot: false,
    onlyFiles: true,
    expandDirectories: false,
    followSymbolicLinks: false,
  };
}

interface Matches {
  paths: string[];
  /** Each path's `mtimeMs`. */
  times: ArrayLike<number>;
}

/**
 * The files under `root` that `pattern` matches, relative to `root`, with their modification
 * times: our own crawl when it reproduces tinyglobby exactly, else tinyglobby itself.
 */
async function findFiles(pattern: string, root: string, signal: AbortSignal, guard: SearchGuard): Promise<Matches> {
  const mayEnter = (folder: string) => guard.mayEnter(folder);
  const crawl = crawlGlob(pattern, root, skippedFolders(pattern), { signal, modifiedTimes: true, mayEnter });
  if (crawl !== undefined) return crawl;
  const paths = await glob(pattern, { cwd: root, ...globOptions(pattern), signal });
  return { paths, times: modifiedTimes(paths, root) };
}

/** The matches the guard lets the call report (paths relative to `root`), with their times. */
function permitted(matches: Matches, root: string, guard: SearchGuard): Matches {
  const paths: string[] = [];
  const times: number[] = [];
  for (let i = 0; i < matches.paths.length; i++) {
    const path = matches.paths[i] as string;
    if (!guard.mayReport(resolve(root, path))) continue;
    paths.push(path);
    times.push(matches.times[i] ?? 0);
  }
  return { paths, times };
}
