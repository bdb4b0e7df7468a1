import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { HeadTailBuffer } from "./head-tail-buffer.js";

/**
 * Characters of a command's output kept in memory, split between head and tail. Together
 * with the truncation note this stays under the Bash tool's 30,000-character limit, so the
 * central truncation never has to cut our text a second time.
 */
export const KEEP_HEAD_CHARS = 14_000;
export const KEEP_TAIL_CHARS = 14_000;

export interface OutputCaptureOptions {
  /** Where the whole stream is written once it outgrows memory. */
  spillPath: string;
  headChars?: number;
  tailChars?: number;
}

/**
 * Collects a command's output with bounded memory: head and tail of the whole stream, and
 * separately what has not been read yet (for BashOutput's incremental reads). Once the
 * stream is longer than what memory holds, all of it — from the first character — is
 * written to `spillPath`, and the text given to the model names that file.
 */
export class OutputCapture {
  readonly #all: HeadTailBuffer;
  readonly #unread: HeadTailBuffer;
  readonly #spillPath: string;
  #fd: number | undefined;
  #spilled = false;
  #spillFailed = false;

  constructor(options: OutputCaptureOptions) {
    const head = options.headChars ?? KEEP_HEAD_CHARS;
    const tail = options.tailChars ?? KEEP_TAIL_CHARS;
    this.#all = new HeadTailBuffer(head, tail);
    this.#unread = new HeadTailBuffer(head, tail);
    this.#spillPath = options.spillPath;
  }

  append(text: string): void {
    if (text.length === 0) return;
    const capacity = this.#all.headChars + this.#all.tailChars;
    if (!this.#spilled && this.#all.totalChars + text.length > capacity) this.#startSpill();
    if (this.#fd !== undefined) this.#write(text);
    this.#all.append(text);
    this.#unread.append(text);
  }

  /** Characters produced so far. */
  get totalChars(): number {
    return this.#all.totalChars;
  }

  /** Characters currently held in memory (bounded by head + tail, times two for the unread view). */
  get retainedChars(): number {
    return this.#all.retainedChars + this.#unread.retainedChars;
  }

  /** The file holding the whole output, once it was too long to keep in memory. */
  get spillPath(): string | undefined {
    return this.#spilled && !this.#spillFailed ? this.#spillPath : undefined;
  }

  /** The whole output, or its head and tail with a note saying what was cut and where it is. */
  text(): string {
    return this.#render(this.#all, "");
  }

  /** Output produced since the previous call (head and tail of it if it was long). */
  takeUnread(): string {
    const text = this.#render(this.#unread, " from this read");
    this.#unread.clear();
    return text;
  }

  /** Stop writing the spill file. Safe to call more than once. */
  close(): void {
    if (this.#fd === undefined) return;
    try {
      closeSync(this.#fd);
    } catch {
      // Nothing useful to do: the data already written stays on disk.
    }
    this.#fd = undefined;
  }

  #render(buffer: HeadTailBuffer, scope: string): string {
    const { head, tail, dropped } = buffer.parts();
    if (dropped === 0) return head + tail;
    const where = this.spillPath
      ? `; the full output (${this.#all.totalChars} characters) is in ${this.spillPath}`
      : "";
    return `${head}\n\n... [${dropped} characters omitted${scope}${where}] ...\n\n${tail}`;
  }

  #startSpill(): void {
    this.#spilled = true;
    try {
      mkdirSync(dirname(this.#spillPath), { recursive: true });
      this.#fd = openSync(this.#spillPath, "w");
    } catch {
      this.#spillFailed = true;
      return;
    }
    // Nothing has been dropped yet, so memory still holds everything produced so far.
    const { head, tail } = this.#all.parts();
    this.#write(head + tail);
  }

  #write(text: string): void {
    try {
      // Synchronous on purpose: memory stays bounded however fast the command writes.
      writeSync(this.#fd!, text);
    } catch {
      this.#spillFailed = true;
      this.close();
    }
  }
}

/** Where a command's full output goes when it outgrows memory: `<tmp>/gyre-bash/<session>/<id>.log`. */
export function outputSpillPath(sessionId: string, id: string): string {
  const safe = (value: string) => value.replace(/[^a-zA-Z0-9_-]/g, "_");
  return join(tmpdir(), "gyre-bash", safe(sessionId), `${safe(id)}.log`);
}
