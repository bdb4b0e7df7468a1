import type { FileMatches, GrepOutputMode } from "./types.js";

/**
 * Parse rg's `--null` output into per-file results. `stripDotSlash` removes the `./` rg
 * puts before paths when the root was given as `.`.
 */
export function parseRipgrepOutput(stdout: string, mode: GrepOutputMode, stripDotSlash: boolean): FileMatches[] {
  const clean = (path: string) => (stripDotSlash && path.startsWith("./") ? path.slice(2) : path);
  if (mode === "files_with_matches") {
    return stdout
      .split("\0")
      .map((path) => path.replace(/^\n/, ""))
      .filter((path) => path !== "")
      .map((path) => ({ path: clean(path), count: 0, lines: [] }));
  }
  if (mode === "count") {
    const files: FileMatches[] = [];
    for (const row of stdout.split("\n")) {
      const nul = row.indexOf("\0");
      if (nul < 0) continue;
      files.push({ path: clean(row.slice(0, nul)), count: Number(row.slice(nul + 1)), lines: [] });
    }
    return files;
  }
  return parseContent(stdout, clean);
}

const LINE_PREFIX = /^(\d+)([:-])/;

function parseContent(stdout: string, clean: (path: string) => string): FileMatches[] {
  const byPath = new Map<string, FileMatches>();
  const rows = stdout.split("\n");
  for (const row of rows) {
    const nul = row.indexOf("\0");
    if (nul < 0) continue; // "--" group separators and the final empty row
    const rest = row.slice(nul + 1);
    const prefix = LINE_PREFIX.exec(rest);
    if (!prefix) continue;
    const rawPath = row.slice(0, nul);
    let file = byPath.get(rawPath);
    if (!file) {
      file = { path: clean(rawPath), count: 0, lines: [] };
      byPath.set(rawPath, file);
    }
    let text = rest.slice(prefix[0].length);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    file.lines.push({ line: Number(prefix[1]), text, match: prefix[2] === ":" });
  }
  return [...byPath.values()];
}
