import type { SearchRequest } from "./types.js";

/** How the search root is passed to rg so that its output paths are already display paths. */
export function ripgrepRootArg(request: SearchRequest): string {
  return request.displayRoot === "" ? "." : request.displayRoot;
}

/**
 * rg's argument list for a request. Paths end with a NUL (`--null`) so any file name parses;
 * line numbers are always asked for and dropped later if unwanted; `--crlf` lets `$` match
 * before `\r\n`, as the JavaScript fallback does. It is only passed for patterns with a `$`
 * because it slows rg's literal search measurably (so a `.` at the end of a CRLF line can
 * match the `\r` with rg but not with the fallback).
 */
export function ripgrepArgs(request: SearchRequest): string[] {
  const args = ["--no-config", "--color=never", "--no-messages", "--with-filename", "--null"];
  if (request.pattern.includes("$")) args.push("--crlf");
  if (request.ignoreCase) args.push("--ignore-case");
  if (request.multiline) args.push("--multiline", "--multiline-dotall");
  if (request.type !== undefined) args.push("--type", request.type);
  for (const glob of request.globs) args.push("--glob", glob);
  if (request.mode === "files_with_matches") args.push("--files-with-matches");
  else if (request.mode === "count") args.push("--count");
  else {
    args.push("--line-number");
    if (request.before > 0) args.push("--before-context", String(request.before));
    if (request.after > 0) args.push("--after-context", String(request.after));
  }
  args.push("--regexp", request.pattern, "--", ripgrepRootArg(request));
  return args;
}
