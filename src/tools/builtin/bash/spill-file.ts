import { closeSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";

/** Most a spill file holds, as in Claude Code: 64 MiB. */
export const MAX_SPILL_BYTES = 64 * 1024 * 1024;
/** Smallest cap accepted: room for the note that says what was cut. */
const MIN_SPILL_BYTES = 4 * 1024;
/** Buffer size for putting the tail in order on close. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * A command's output on disk, never larger than `maxBytes`. Up to the cap the file is the
 * output byte for byte. Past it the first half of the file keeps the head of the output and
 * the second half is a ring of the latest bytes; `close()` turns the ring into plain order
 * and writes a note where head and tail meet, saying how many bytes were cut. Memory stays
 * at one chunk of output (two 1 MiB buffers while closing) however long the output is.
 */
export class SpillFile {
  readonly path: string;
  readonly #headBytes: number;
  readonly #ringBytes: number;
  #fd: number | undefined;
  /** Bytes written in order from the start of the file, up to the cap. */
  #written = 0;
  /** Where in the ring the next byte goes (so also where its oldest byte is), once past the cap. */
  #ringAt = 0;
  #total = 0;
  #cut = false;
  #closed = false;
  #failed = false;
  #noteBytes = 0;

  private constructor(path: string, fd: number, maxBytes: number) {
    this.path = path;
    this.#fd = fd;
    const cap = Math.max(MIN_SPILL_BYTES, Math.floor(maxBytes));
    this.#headBytes = Math.floor(cap / 2);
    this.#ringBytes = cap - this.#headBytes;
  }

  /** Create the file (readable by its owner only); undefined when it cannot be created. */
  static create(path: string, maxBytes = MAX_SPILL_BYTES): SpillFile | undefined {
    try {
      return new SpillFile(path, openSync(path, "w+", 0o600), maxBytes);
    } catch {
      return undefined;
    }
  }

  /** False once writing failed (disk full, ...) or the file was discarded: it is gone, not to be offered. */
  get usable(): boolean {
    return !this.#failed;
  }

  /** Bytes of output given to the file, kept or not. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Whether the output outgrew the cap, so that the file keeps only its head and tail. */
  get cut(): boolean {
    return this.#cut;
  }

  /** Whether the file is final (the ring is in order and the note written). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Bytes of the head the file keeps (final once closed). */
  get keptHeadBytes(): number {
    return this.#cut ? this.#headBytes - this.#noteBytes : this.#total;
  }

  /** Bytes of the tail the file keeps, after the head. */
  get keptTailBytes(): number {
    return this.#cut ? this.#ringBytes : 0;
  }

  /** Bytes of output the file does not have. */
  get omittedBytes(): number {
    return this.#total - this.keptHeadBytes - this.keptTailBytes;
  }

  write(text: string): void {
    if (this.#fd === undefined || text.length === 0) return;
    let bytes = Buffer.from(text, "utf8");
    this.#total += bytes.length;
    try {
      if (!this.#cut) {
        const room = this.#headBytes + this.#ringBytes - this.#written;
        this.#writeAt(this.#written, bytes.subarray(0, room));
        this.#written += Math.min(room, bytes.length);
        if (bytes.length <= room) return;
        this.#cut = true;
        bytes = bytes.subarray(room);
      }
      this.#writeRing(bytes);
    } catch {
      this.discard();
    }
  }

  /** Finish the file: tail in order, note in place. Safe to call more than once. */
  close(): void {
    if (this.#fd === undefined) return;
    try {
      if (this.#cut) {
        if (this.#ringAt !== 0) this.#rotateRing();
        this.#writeNote();
      }
      closeSync(this.#fd);
      this.#fd = undefined;
      this.#closed = true;
    } catch {
      this.discard();
    }
  }

  /** Close and delete the file (writing failed, or nobody will read it any more). */
  discard(): void {
    this.#failed = true;
    try {
      if (this.#fd !== undefined) closeSync(this.#fd);
      unlinkSync(this.path);
    } catch {
      // Best effort: the session's spill directory is removed when its run ends anyway.
    }
    this.#fd = undefined;
  }

  #writeRing(bytes: Buffer): void {
    // Only the last ring's worth of a long chunk can survive.
    if (bytes.length >= this.#ringBytes) {
      this.#writeAt(this.#headBytes, bytes.subarray(bytes.length - this.#ringBytes));
      this.#ringAt = 0;
      return;
    }
    const first = Math.min(bytes.length, this.#ringBytes - this.#ringAt);
    this.#writeAt(this.#headBytes + this.#ringAt, bytes.subarray(0, first));
    if (first < bytes.length) this.#writeAt(this.#headBytes, bytes.subarray(first));
    this.#ringAt = (this.#ringAt + bytes.length) % this.#ringBytes;
  }

  /** Rotate the ring left by `#ringAt` in place: three reversals, two buffers. */
  #rotateRing(): void {
    const start = this.#headBytes;
    const middle = start + this.#ringAt;
    const end = start + this.#ringBytes;
    const buffers = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)] as const;
    this.#reverse(start, middle, buffers);
    this.#reverse(middle, end, buffers);
    this.#reverse(start, end, buffers);
    this.#ringAt = 0;
  }

  #reverse(start: number, end: number, [low, high]: readonly [Buffer, Buffer]): void {
    while (end - start >= 2) {
      const size = Math.min(CHUNK_BYTES, Math.floor((end - start) / 2));
      const a = low.subarray(0, size);
      const b = high.subarray(0, size);
      this.#readAt(start, a);
      this.#readAt(end - size, b);
      this.#writeAt(start, b.reverse());
      this.#writeAt(end - size, a.reverse());
      start += size;
      end -= size;
    }
  }

  /** The note replaces the last bytes of the head; its length depends on the numbers in it. */
  #writeNote(): void {
    let reserved = 0;
    for (;;) {
      this.#noteBytes = reserved;
      const note =
        `\n\n... [${this.omittedBytes} bytes of output cut here: this file keeps the first ` +
        `${this.keptHeadBytes} and the last ${this.keptTailBytes} of ${this.#total} bytes] ...`;
      const length = Buffer.byteLength(note) + 2;
      // Lengths only grow here, so this ends; a note shorter than its room is padded.
      if (length <= reserved) {
        this.#writeAt(this.#headBytes - reserved, Buffer.from(`${note}${" ".repeat(reserved - length)}\n\n`));
        return;
      }
      reserved = length;
    }
  }

  #writeAt(position: number, bytes: Buffer): void {
    let done = 0;
    while (done < bytes.length) {
      done += writeSync(this.#fd!, bytes, done, bytes.length - done, position + done);
    }
  }

  #readAt(position: number, into: Buffer): void {
    let done = 0;
    while (done < into.length) {
      const read = readSync(this.#fd!, into, done, into.length - done, position + done);
      if (read === 0) throw new Error(`spill file ${this.path} is shorter than expected`);
      done += read;
    }
  }
}
