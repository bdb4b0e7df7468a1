import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { LineCollector } from "./line-collector.js";
import type { GrepOutputMode, OutputLine } from "./types.js";

/** ripgrep's read buffer size; a NUL byte anywhere in what is read marks the file binary. */
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export interface FileSearch {
  /** Tested against each line (line mode) or the whole text (multiline, with `g`). */
  regex: RegExp;
  /**
   * Line mode: `regex` with the `m` flag, tested against a block of whole lines first. It
   * matches whenever some line of the block matches, so blocks it rejects are skipped
   * without splitting them into lines.
   */
  prefilter: RegExp;
  mode: GrepOutputMode;
  multiline: boolean;
  before: number;
  after: number;
}

export interface FileHit {
  count: number;
  lines: OutputLine[];
}

/** One read buffer, reused: searches are synchronous, so no two use it at once. */
const buffer = Buffer.allocUnsafe(CHUNK_BYTES);

/**
 * Search one file. Undefined when nothing matched or the file is binary (has a NUL byte)
 * or cannot be read. Line by line, the file is streamed in 64 KB chunks and files mode
 * stops at the first match; multiline search reads the whole file.
 *
 * Synchronous on purpose: blocking reads of one file at a time beat parallel async reads
 * (docs/benchmarks.md): each async step is a thread-pool round trip, and source files are
 * small. The caller yields between files to stay responsive.
 */
export function searchFile(path: string, search: FileSearch): FileHit | undefined {
  try {
    return search.multiline ? searchWhole(path, search) : searchLines(path, search);
  } catch {
    return undefined; // unreadable (permissions, vanished): skipped silently, as rg --no-messages does
  }
}

function searchLines(path: string, search: FileSearch): FileHit | undefined {
  const fd = openSync(path, "r");
  try {
    const collector = new LineCollector(search.before, search.after);
    let count = 0;
    /** Handles one line; true when the search of this file is done. */
    const onLine = (lineNumber: number, text: string): boolean => {
      const line = text.endsWith("\r") ? text.slice(0, -1) : text;
      const match = search.regex.test(line);
      if (match) count++;
      if (search.mode === "content") collector.add(lineNumber, line, match);
      return match && search.mode === "files_with_matches";
    };
    let lineNumber = 0;
    /** Handles a block of whole lines; true when the search of this file is done. */
    const scanBlock = (text: string): boolean => {
      if (search.mode === "files_with_matches") return matchesSomeLine(text, search);
      if (search.prefilter.test(text) || collector.afterPending) {
        for (const line of text.split("\n")) if (onLine(++lineNumber, line)) return true;
        return false;
      }
      if (search.mode !== "content") return false;
      const total = countNewlines(text) + 1;
      const tail = lastLines(text, search.before);
      const first = lineNumber + total - tail.length;
      tail.forEach((line, index) => {
        collector.add(first + index + 1, line.endsWith("\r") ? line.slice(0, -1) : line, false);
      });
      lineNumber += total;
      return false;
    };
    let carry: Buffer = Buffer.alloc(0);
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (chunk.includes(0)) return undefined;
      const data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
      const lastNewline = data.lastIndexOf(NEWLINE);
      if (lastNewline < 0) {
        carry = Buffer.from(data);
        continue;
      }
      carry = Buffer.from(data.subarray(lastNewline + 1));
      if (scanBlock(data.toString("utf8", 0, lastNewline))) return { count: 1, lines: [] };
    }
    if (carry.length > 0) onLine(++lineNumber, carry.toString("utf8"));
    return count > 0 ? { count, lines: collector.lines } : undefined;
  } finally {
    closeSync(fd);
  }
}

function searchWhole(path: string, search: FileSearch): FileHit | undefined {
  const bytes = readFileSync(path);
  if (bytes.includes(0)) return undefined;
  const text = bytes.toString("utf8");
  const starts = lineStarts(text);
  // Lines a match touches print as matches; matches starting on the same line count once.
  const matched = new Set<number>();
  const startLines = new Set<number>();
  for (const found of text.matchAll(search.regex)) {
    const first = lineOf(starts, found.index);
    const end = found.index + found[0].length;
    const last = lineOf(starts, end > found.index ? end - 1 : found.index);
    startLines.add(first);
    for (let line = first; line <= last; line++) matched.add(line);
    if (search.mode === "files_with_matches") break;
  }
  if (startLines.size === 0) return undefined;
  if (search.mode !== "content") return { count: startLines.size, lines: [] };
  const collector = new LineCollector(search.before, search.after);
  const lineCount = text.endsWith("\n") ? starts.length - 1 : starts.length;
  for (let index = 0; index < lineCount; index++) {
    const start = starts[index]!;
    const end = index + 1 < starts.length ? starts[index + 1]! - 1 : text.length;
    let line = text.slice(start, end);
    if (line.endsWith("\r")) line = line.slice(0, -1);
    collector.add(index + 1, line, matched.has(index + 1));
  }
  return { count: startLines.size, lines: collector.lines };
}

/** Whether a line of `text` matches; checks the line the prefilter found before splitting. */
function matchesSomeLine(text: string, search: FileSearch): boolean {
  const found = search.prefilter.exec(text);
  if (!found) return false;
  const start = text.lastIndexOf("\n", found.index - 1) + 1;
  const newline = text.indexOf("\n", found.index);
  let line = text.slice(start, newline < 0 ? text.length : newline);
  if (line.endsWith("\r")) line = line.slice(0, -1);
  if (search.regex.test(line)) return true;
  return text.split("\n").some((each) => search.regex.test(each.endsWith("\r") ? each.slice(0, -1) : each));
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** The last `count` lines of a block of lines (all of them if it has fewer). */
function lastLines(text: string, count: number): string[] {
  if (count === 0) return [];
  let start = text.length;
  for (let taken = 0; taken < count; taken++) {
    const newline = start === 0 ? -1 : text.lastIndexOf("\n", start - 1);
    if (newline < 0) return text.split("\n");
    start = newline;
  }
  return text.slice(start + 1).split("\n");
}

/** Offsets where each line starts (the first is 0). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return starts;
}

/** The 1-based line holding offset `offset`. */
function lineOf(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}
