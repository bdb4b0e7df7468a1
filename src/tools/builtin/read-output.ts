import type { ToolResult } from "../tool.js";
import { describeFormat, type TextFormat } from "./read-encoding.js";
import { numberLines, systemReminder } from "./read-format.js";
import type { LineWindow } from "./read-lines.js";

/** Read's limits, as Claude Code has them (the output cap is about 25,000 tokens). */
export const READ_LIMITS = {
  defaultLines: 2000,
  maxLineChars: 2000,
  maxOutputChars: 100_000,
} as const;

/** Structured result of a text Read, in the shape Claude Code reports (`tool_use_result`). */
export interface ReadTextData {
  type: "text";
  file: {
    filePath: string;
    content: string;
    numLines: number;
    startLine: number;
    totalLines?: number;
    encoding: string;
  };
}

/** What the model sees for a window of lines: numbered lines plus notes on anything left out. */
export function describeWindow(
  path: string,
  window: LineWindow,
  format: TextFormat,
  requestedOffset: number,
  size: number,
): ToolResult {
  const data: ReadTextData = {
    type: "text",
    file: {
      filePath: path,
      content: window.lines.join("\n"),
      numLines: window.lines.length,
      startLine: window.startLine,
      totalLines: window.totalLines,
      encoding: describeFormat(format),
    },
  };
  if (window.lines.length === 0) return { content: emptyNote(window, size, requestedOffset), data };
  const notes = windowNotes(window, format);
  const body = numberLines(window.lines, window.startLine);
  return { content: notes.length > 0 ? `${body}\n\n${notes.map(systemReminder).join("\n")}` : body, data };
}

function emptyNote(window: LineWindow, size: number, requestedOffset: number): string {
  if (size === 0 || window.totalLines === 0) {
    return systemReminder("Warning: the file exists but the contents are empty.");
  }
  return systemReminder(
    `Warning: the file exists but is shorter than the provided offset (${requestedOffset}). ` +
      `The file has ${window.totalLines} lines.`,
  );
}

function windowNotes(window: LineWindow, format: TextFormat): string[] {
  const notes: string[] = [];
  const last = window.startLine + window.lines.length - 1;
  if (window.cutLines.length > 0) {
    const shown = window.cutLines.slice(0, 10).join(", ");
    const more = window.cutLines.length > 10 ? ` and ${window.cutLines.length - 10} more` : "";
    notes.push(
      `Line${window.cutLines.length > 1 ? "s" : ""} ${shown}${more} ` +
        `${window.cutLines.length > 1 ? "were" : "was"} longer than ${READ_LIMITS.maxLineChars} characters ` +
        "and cut; use Grep or the Bash tool to see the whole line.",
    );
  }
  if (window.stop === "budget") {
    notes.push(
      `Output stopped after line ${last} to stay under ${READ_LIMITS.maxOutputChars} characters. ` +
        `Call Read with offset=${last + 1} to continue.`,
    );
  } else if (window.hasMore) {
    notes.push(
      `Showing lines ${window.startLine}-${last}; the file has more lines. ` +
        `Call Read with offset=${last + 1} to continue.`,
    );
  }
  if (format.encoding !== "utf8") {
    notes.push(`The file is ${describeFormat(format)} text; Edit and Write keep that encoding.`);
  }
  return notes;
}
