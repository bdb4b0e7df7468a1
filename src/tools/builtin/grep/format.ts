import type { FileMatches, GrepOutputMode } from "./types.js";

/** Lines longer than this are cut, so one minified file cannot flood the output. */
export const MAX_LINE_CHARS = 500;

export interface FormatOptions {
  mode: GrepOutputMode;
  /** Content mode: print `path:line:text` (true) or `path:text`. */
  lineNumbers: boolean;
  /** Content mode: context was asked for, so groups are separated by `--` as rg does. */
  context: boolean;
  /** At most this many lines/entries (0: no limit). */
  headLimit: number;
  /** Lines/entries skipped before the limit applies. */
  offset: number;
}

/**
 * The text the model sees. Files must already be in output order (newest first in files
 * mode, by path otherwise). Paging applies to output lines (content), paths (files) or
 * `path:count` entries (count), and a note says when the output was limited.
 */
export function formatResults(files: readonly FileMatches[], options: FormatOptions): string {
  if (options.mode === "files_with_matches") {
    if (files.length === 0) return "No files found";
    const page = paginate(
      files.map((file) => file.path),
      options,
      "files",
    );
    return `Found ${files.length} ${files.length === 1 ? "file" : "files"}\n${page}`;
  }
  if (options.mode === "count") {
    if (files.length === 0) return "No matches found";
    const total = files.reduce((sum, file) => sum + file.count, 0);
    const page = paginate(
      files.map((file) => `${file.path}:${file.count}`),
      options,
      "entries",
    );
    const summary =
      `Found ${total} total ${total === 1 ? "occurrence" : "occurrences"} across ` +
      `${files.length} ${files.length === 1 ? "file" : "files"}.`;
    return `${page}\n\n${summary}`;
  }
  const lines = contentLines(files, options);
  if (lines.length === 0) return "No matches found";
  return paginate(lines, options, "lines");
}

function contentLines(files: readonly FileMatches[], options: FormatOptions): string[] {
  const out: string[] = [];
  for (const file of files) {
    let previous: number | undefined;
    for (const { line, text, match } of file.lines) {
      if (options.context && out.length > 0 && (previous === undefined || line !== previous + 1)) out.push("--");
      previous = line;
      const separator = match ? ":" : "-";
      const shown = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)} [... line truncated]` : text;
      out.push(
        options.lineNumbers
          ? `${file.path}${separator}${line}${separator}${shown}`
          : `${file.path}${separator}${shown}`,
      );
    }
  }
  return out;
}

function paginate(items: readonly string[], options: FormatOptions, unit: string): string {
  const start = Math.min(options.offset, items.length);
  const end = options.headLimit > 0 ? Math.min(items.length, start + options.headLimit) : items.length;
  const page = items.slice(start, end).join("\n");
  if (start === 0 && end === items.length) return page;
  const more = end < items.length ? ` Use offset: ${end} to see more.` : "";
  const shown = end > start ? `${unit} ${start + 1}-${end}` : `no ${unit}`;
  const note =
    `[Showing ${shown} of ${items.length} (head_limit: ${options.headLimit}, ` + `offset: ${options.offset}).${more}]`;
  return page === "" ? note : `${page}\n\n${note}`;
}
