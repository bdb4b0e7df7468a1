import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { decodeText, type TextEncodingName, trimIncompleteUtf8 } from "./read-encoding.js";
import type { LineIndex } from "./read-line-index.js";

export interface LineWindowOptions {
  /** First line to return, 1-based. */
  startLine: number;
  maxLines: number;
  /** Longer lines are cut to this many characters. */
  maxLineChars: number;
  /** Stop before the returned lines' characters would pass this (at least one line is returned). */
  maxTotalChars: number;
  /** Characters line N adds to the output besides its text (number prefix, newline). */
  lineOverheadChars?: (lineNumber: number) => number;
  /** A single-byte-per-newline encoding; UTF-16 files are not streamed. */
  encoding: Exclude<TextEncodingName, "utf16le">;
  /** Bytes at the start of the file that are not text (a BOM). */
  skipBytes: number;
  /** Hash the whole file when it is at most this big and read to the end. */
  hashLimitBytes: number;
  signal?: AbortSignal;
  /** Line starts learnt by earlier reads of this file version; reading starts at the nearest one and adds more. */
  index?: LineIndex;
  /** Size of the one read buffer; memory use stays near this however big the file is. */
  bufferBytes?: number;
}

export interface LineWindow {
  startLine: number;
  /** Decoded lines without their line endings (`\n` or `\r\n`). */
  lines: string[];
  /** Line numbers of lines that were cut at `maxLineChars`. */
  cutLines: number[];
  /** Why reading stopped: end of file, `maxLines` reached, or `maxTotalChars` reached. */
  stop: "eof" | "limit" | "budget";
  /** Whether lines follow the last one returned. */
  hasMore: boolean;
  /** Lines in the file, known when reading reached the end. */
  totalLines?: number;
  /** SHA-256 of the whole file, when it was read to the end and small enough. */
  sha256?: string;
}

const DEFAULT_BUFFER_BYTES = 1024 * 1024;

/**
 * Read lines `startLine ..` of an open text file with one fixed buffer: lines before the
 * window are only counted, a very long line keeps just the bytes it can show, and reading
 * stops as soon as the window is full. Reading the end of a huge file therefore scans it
 * but never holds more than the buffer and the returned lines in memory.
 */
export async function readLineWindow(
  handle: FileHandle,
  size: number,
  options: LineWindowOptions,
): Promise<LineWindow> {
  const buffer = Buffer.allocUnsafe(options.bufferBytes ?? DEFAULT_BUFFER_BYTES);
  const start = options.index?.nearest(options.startLine) ?? { line: 1, offset: 0 };
  const hash = start.offset === 0 && size <= options.hashLimitBytes ? createHash("sha256") : undefined;
  const builder = new WindowBuilder(options, start.line);
  let position = start.offset;
  for (;;) {
    options.signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return builder.finishAtEof(hash?.digest("hex"));
    hash?.update(buffer.subarray(0, bytesRead));
    const chunk = buffer.subarray(position === 0 ? Math.min(options.skipBytes, bytesRead) : 0, bytesRead);
    const chunkStart = position + bytesRead - chunk.length;
    position += bytesRead;
    const stoppedAt = builder.feed(chunk, chunkStart);
    if (stoppedAt !== undefined) return builder.finishEarly();
  }
}

/**
 * The same window over text already in memory (used for UTF-16 files, which are decoded
 * whole). `sha256` is passed through to the result.
 */
export function lineWindowFromText(
  text: string,
  options: Omit<LineWindowOptions, "encoding" | "skipBytes" | "hashLimitBytes">,
  sha256?: string,
): LineWindow {
  const builder = new WindowBuilder({ ...options, encoding: "utf8", skipBytes: 0, hashLimitBytes: 0 }, 1);
  const bytes = Buffer.from(text, "utf8");
  const stoppedAt = builder.feed(bytes, 0);
  if (stoppedAt !== undefined) return builder.finishEarly();
  return builder.finishAtEof(sha256);
}

/** The per-line state machine behind {@link readLineWindow}. */
class WindowBuilder {
  readonly #options: LineWindowOptions;
  readonly #maxLineBytes: number;
  readonly #lines: string[] = [];
  readonly #cutLines: number[] = [];
  #lineNumber: number;
  #nextCheckpoint: number;
  #parts: Buffer[] = [];
  #keptBytes = 0;
  #droppedBytes = false;
  #lineHasBytes = false;
  #totalChars = 0;
  #stop: LineWindow["stop"] = "eof";

  constructor(options: LineWindowOptions, firstLine: number) {
    this.#options = options;
    this.#lineNumber = firstLine;
    this.#nextCheckpoint = options.index?.nextCheckpoint() ?? Number.POSITIVE_INFINITY;
    // Enough bytes for maxLineChars characters in any encoding we stream, plus a \r.
    this.#maxLineBytes = options.maxLineChars * 4 + 1;
  }

  /** Consume a chunk that starts at byte `chunkStart`; returns the offset in it where the window ended, if it did. */
  feed(chunk: Buffer, chunkStart: number): number | undefined {
    let position = 0;
    while (position < chunk.length) {
      const newline = chunk.indexOf(10, position);
      const end = newline === -1 ? chunk.length : newline;
      if (end > position) this.#lineHasBytes = true;
      if (this.#lineNumber >= this.#options.startLine) this.#collect(chunk.subarray(position, end));
      if (newline === -1) return undefined;
      if (this.#lineNumber >= this.#options.startLine && !this.#emit()) return position;
      this.#lineNumber++;
      this.#lineHasBytes = false;
      position = newline + 1;
      if (this.#lineNumber === this.#nextCheckpoint) this.#checkpoint(chunkStart + position);
      if (this.#lines.length >= this.#options.maxLines) {
        this.#stop = "limit";
        return position;
      }
    }
    return undefined;
  }

  /**
   * The last line is the text after the last line break; like Claude Code's Read (which splits
   * the file on line breaks), a file ending in a line break has an empty last line, numbered
   * and counted (`27\t` after a 26-line file's final newline). An empty file has no lines.
   */
  finishAtEof(sha256: string | undefined): LineWindow {
    const hasLastLine = this.#lineHasBytes || this.#lineNumber > 1;
    if (hasLastLine && this.#lineNumber >= this.#options.startLine) this.#emit();
    const totalLines = hasLastLine ? this.#lineNumber : 0;
    return { ...this.#result(this.#stop === "budget"), totalLines, sha256 };
  }

  /**
   * The window is full before the end of the file: a line always follows (reading stops before
   * a line that would pass the budget, or after a line break, which the last line follows).
   */
  finishEarly(): LineWindow {
    return this.#result(true);
  }

  #result(hasMore: boolean): LineWindow {
    return {
      startLine: this.#options.startLine,
      lines: this.#lines,
      cutLines: this.#cutLines,
      stop: this.#stop,
      hasMore,
    };
  }

  #checkpoint(offset: number): void {
    this.#options.index!.record(offset);
    this.#nextCheckpoint = this.#options.index!.nextCheckpoint();
  }

  #collect(bytes: Buffer): void {
    const room = this.#maxLineBytes - this.#keptBytes;
    if (bytes.length > room) this.#droppedBytes = true;
    const kept = bytes.subarray(0, Math.max(0, room));
    if (kept.length === 0) return;
    // The read buffer is reused, so keep a copy.
    this.#parts.push(Buffer.from(kept));
    this.#keptBytes += kept.length;
  }

  /** Decode the collected line and add it; false when the character budget is spent. */
  #emit(): boolean {
    let bytes: Buffer = Buffer.concat(this.#parts, this.#keptBytes);
    const cutBytes = this.#droppedBytes;
    this.#parts = [];
    this.#keptBytes = 0;
    this.#droppedBytes = false;
    if (cutBytes && this.#options.encoding === "utf8") bytes = trimIncompleteUtf8(bytes);
    if (!cutBytes && bytes.at(-1) === 13) bytes = bytes.subarray(0, -1);
    let line = decodeText(bytes, this.#options.encoding);
    const cut = cutBytes || line.length > this.#options.maxLineChars;
    if (cut) line = line.slice(0, this.#options.maxLineChars);
    const chars = line.length + (this.#options.lineOverheadChars?.(this.#lineNumber) ?? 0);
    if (this.#lines.length > 0 && this.#totalChars + chars > this.#options.maxTotalChars) {
      this.#stop = "budget";
      return false;
    }
    this.#totalChars += chars;
    if (cut) this.#cutLines.push(this.#lineNumber);
    this.#lines.push(line);
    return true;
  }
}
