import { statSync } from "node:fs";
import { resolve } from "node:path";
import { GyreError } from "../../../errors/index.js";
import type { ToolContext, ToolResult } from "../../tool.js";
import { SearchGuard } from "../search-guard.js";
import { findRipgrep } from "./find-ripgrep.js";
import { formatResults } from "./format.js";
import type { GrepToolOptions } from "./grep-options.js";
import { DEFAULT_HEAD_LIMIT, type GrepInput, splitGlobs } from "./input.js";
import { jsBackend } from "./js-backend.js";
import { ripgrepBackend } from "./ripgrep-backend.js";
import { resolveSearchRoot } from "./search-root.js";
import type { FileMatches, SearchBackend, SearchRequest } from "./types.js";

/** One Grep call: the search and its formatted result. */
export async function runGrep(input: GrepInput, context: ToolContext, options: GrepToolOptions): Promise<ToolResult> {
  const backendChoice = options.backend ?? "auto";
  const backend = chooseBackend(backendChoice, options.ripgrepPath);
  const root = resolveSearchRoot(input.path, context.cwd, "Grep");
  const mode = input.output_mode ?? "files_with_matches";
  const around = input["-C"] ?? input.context ?? 0;
  const guard = new SearchGuard(context.files, root.path);
  const request: SearchRequest = {
    pattern: input.pattern,
    root: root.path,
    rootIsFile: root.isFile,
    displayRoot: root.display,
    cwd: context.cwd,
    mode,
    ignoreCase: input["-i"] ?? false,
    globs: splitGlobs(input.glob),
    type: input.type,
    multiline: input.multiline ?? false,
    before: mode === "content" ? (input["-B"] ?? around) : 0,
    after: mode === "content" ? (input["-A"] ?? around) : 0,
    signal: context.signal,
    mayEnter: (folder) => guard.mayEnter(folder),
  };
  // Left out before ordering and paging, so no count, total or page boundary reflects them.
  const files = (await backend.search(request)).filter((file) => guard.mayReport(resolve(context.cwd, file.path)));
  const ordered = mode === "files_with_matches" ? newestFirst(files, context.cwd) : byPath(files);
  const content = formatResults(ordered, {
    mode,
    lineNumbers: input["-n"] ?? true,
    context: request.before > 0 || request.after > 0,
    headLimit: input.head_limit ?? DEFAULT_HEAD_LIMIT,
    offset: input.offset ?? 0,
  });
  return {
    content,
    data: {
      mode,
      backend: backend.name,
      numFiles: ordered.length,
      filenames: ordered.map((file) => file.path),
      numMatches: ordered.reduce((sum, file) => sum + file.count, 0),
    },
  };
}

function chooseBackend(choice: "auto" | "ripgrep" | "js", ripgrepPath: string | undefined): SearchBackend {
  if (choice === "js") return jsBackend();
  const rg = ripgrepPath ?? findRipgrep();
  if (rg) return ripgrepBackend(rg);
  if (choice === "auto") return jsBackend();
  throw new GyreError("tool_error", "Grep is set to use ripgrep, but rg was not found on PATH.", {
    toolName: "Grep",
  });
}

function byPath(files: FileMatches[]): FileMatches[] {
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Files mode lists the most recently modified first (ties by path), as Claude Code does.
 * Synchronous stats: with the file system cache warm each takes a microsecond or two,
 * several times less than a thread-pool round trip of the async call.
 */
function newestFirst(files: FileMatches[], cwd: string): FileMatches[] {
  const order = files.map((file) => ({ file, time: mtimeOf(resolve(cwd, file.path)) }));
  order.sort((a, b) => b.time - a.time || (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  return order.map((entry) => entry.file);
}

function mtimeOf(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}
