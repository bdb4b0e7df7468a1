import { HeadTailBuffer } from "./head-tail-buffer.js";
import type { SpillFile } from "./spill-file.js";

/**
 * Characters of a command's output kept in memory, split between head and tail. Together
 * with the truncation note this stays under the Bash tool's 30,000-character limit, so the
 * central truncation never has to cut our text a second time.
 */
export const KEEP_HEAD_CHARS = 14_000;
export const KEEP_TAIL_CHARS = 14_000;

export interface OutputCaptureOptions {
  /** Creates the file the output goes to once it outgrows memory (none: memory only). */
  openSpill?: () => SpillFile | undefined;
  headChars?: number;
  tailChars?: number;
}

/**
 * Collects a command's output with bounded memory: head and tail of the whole stream, and
 * separately what has not been read yet (for BashOutput's incremental reads). Once the
 * stream is longer than what memory holds, it is written — from the first character — to a
 * spill file (itself capped, see SpillFile), and the text given to the model names that file.
 */
export class OutputCapture {
  readonly #all: HeadTailBuffer;
  readonly #unread: HeadTailBuffer;
  readonly #openSpill: (() => SpillFile | undefined) | undefined;
  #spill: SpillFile | undefined;
  #spillStarted = false;

  constructor(options: OutputCaptureOptions = {}) {
    const head = options.headChars ?? KEEP_HEAD_CHARS;
    const tail = options.tailChars ?? KEEP_TAIL_CHARS;
    this.#all = new HeadTailBuffer(head, tail);
    this.#unread = new HeadTailBuffer(head, tail);
    this.#openSpill = options.openSpill;
  }

  append(text: string): void {
    if (text.length === 0) return;
    const capacity = this.#all.headChars + this.#all.tailChars;
    if (!this.#spillStarted && this.#all.totalChars + text.length > capacity) this.#startSpill();
    this.#spill?.write(text);
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

  /** The file holding the output, once it was too long to keep in memory. */
  get spillPath(): string | undefined {
    return this.#spill?.usable ? this.#spill.path : undefined;
  }

  /** Bytes of output the spill file could not keep (0 when it has all of it, or there is none). */
  get spillOmittedBytes(): number {
    return this.#spill?.usable ? this.#spill.omittedBytes : 0;
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

  /** Finish the spill file. Safe to call more than once. */
  close(): void {
    this.#spill?.close();
  }

  #render(buffer: HeadTailBuffer, scope: string): string {
    const { head, tail, dropped } = buffer.parts();
    if (dropped === 0) return head + tail;
    return `${head}\n\n... [${dropped} characters omitted${scope}${this.#where()}] ...\n\n${tail}`;
  }

  #where(): string {
    const spill = this.#spill;
    if (!spill?.usable) return "";
    if (!spill.cut) return `; the full output (${this.#all.totalChars} characters) is in ${spill.path}`;
    const order = spill.closed ? "" : ", in order once the command has ended";
    return (
      `; the output was ${spill.totalBytes} bytes, too long to keep whole: ${spill.path} has its first ` +
      `${spill.keptHeadBytes} and last ${spill.keptTailBytes} bytes${order} (${spill.omittedBytes} bytes cut)`
    );
  }

  #startSpill(): void {
    this.#spillStarted = true;
    this.#spill = this.#openSpill?.();
    // Nothing has been dropped yet, so memory still holds everything produced so far.
    const { head, tail } = this.#all.parts();
    this.#spill?.write(head + tail);
  }
}
