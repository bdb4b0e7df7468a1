import { numberLines } from "./read-format.js";
import { READ_LIMITS } from "./read-output.js";

export type Replacement =
  | { ok: true; text: string; count: number; firstIndex: number }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "ambiguous"; count: number };

/**
 * Replace `oldString` in `text`: it must occur exactly once, or any number of times with
 * `replaceAll`. Occurrences are counted left to right without overlap. Replacement is
 * literal (`$&` and friends in `newString` mean nothing).
 */
export function replaceExact(text: string, oldString: string, newString: string, replaceAll: boolean): Replacement {
  const indexes = occurrences(text, oldString);
  if (indexes.length === 0) return { ok: false, reason: "not_found" };
  if (indexes.length > 1 && !replaceAll) return { ok: false, reason: "ambiguous", count: indexes.length };
  const pieces: string[] = [];
  let from = 0;
  for (const index of indexes) {
    pieces.push(text.slice(from, index), newString);
    from = index + oldString.length;
  }
  pieces.push(text.slice(from));
  return { ok: true, text: pieces.join(""), count: indexes.length, firstIndex: indexes[0]! };
}

function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  let index = text.indexOf(search);
  while (index !== -1) {
    found.push(index);
    index = text.indexOf(search, index + search.length);
  }
  return found;
}

/** Lines of context shown around an edit. */
const CONTEXT_LINES = 4;

/**
 * The edited region of `text` in `cat -n` style: the lines `inserted` occupies from
 * character `index`, with a few lines of context either side.
 */
export function editSnippet(text: string, index: number, inserted: string): string {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const firstLine = countNewlines(text, 0, index) + 1;
  const lastLine = firstLine + countNewlines(inserted, 0, inserted.length);
  const from = Math.max(1, firstLine - CONTEXT_LINES);
  const to = Math.min(lines.length, lastLine + CONTEXT_LINES);
  const shown = lines.slice(from - 1, to).map((line) => line.slice(0, READ_LIMITS.maxLineChars));
  return numberLines(shown, from);
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  let index = text.indexOf("\n", from);
  while (index !== -1 && index < to) {
    count++;
    index = text.indexOf("\n", index + 1);
  }
  return count;
}
