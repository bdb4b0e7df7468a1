import { readdir, stat } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { GyreError } from "../../errors/index.js";

const MAX_SUGGESTIONS = 3;

/**
 * Names in the same folder that the model may have meant instead of `path`: the same stem
 * with another extension, a different letter case, or a name a couple of edits away.
 * Empty when the folder cannot be listed.
 */
export async function similarPaths(path: string): Promise<string[]> {
  const folder = dirname(path);
  let entries: string[];
  try {
    entries = await readdir(folder);
  } catch {
    return [];
  }
  const wanted = basename(path);
  const wantedLower = wanted.toLowerCase();
  const wantedStem = stem(wantedLower);
  const maxDistance = Math.max(2, Math.floor(wanted.length / 4));
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of entries) {
    const lower = name.toLowerCase();
    let score: number | undefined;
    if (lower === wantedLower) score = 0;
    else if (stem(lower) === wantedStem) score = 1;
    else if (Math.abs(lower.length - wantedLower.length) <= maxDistance) {
      const distance = editDistance(lower, wantedLower);
      if (distance <= maxDistance) score = 1 + distance;
    }
    if (score !== undefined) scored.push({ name, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  return scored.slice(0, MAX_SUGGESTIONS).map((entry) => join(folder, entry.name));
}

/** The error for a file that does not exist, with near names or a note on a missing folder. */
export async function fileNotFoundError(path: string, cwd: string, toolName: string): Promise<GyreError> {
  let hint: string;
  const suggestions = await similarPaths(path);
  if (suggestions.length > 0) {
    hint = ` Did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?`;
  } else if (!(await isDirectory(dirname(path)))) {
    hint = ` Its folder "${dirname(path)}" does not exist either.`;
  } else {
    hint = "";
  }
  return new GyreError("tool_error", `File does not exist: ${path}.${hint} Current working directory: ${cwd}`, {
    toolName,
  });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function stem(name: string): string {
  const ext = extname(name);
  return ext ? name.slice(0, -ext.length) : name;
}

/** Levenshtein distance, two rows; names are short so the quadratic cost does not matter. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
