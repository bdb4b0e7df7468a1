/**
 * Keeps the first `headChars` and the last `tailChars` characters of a stream of text and
 * counts what falls between, so memory stays bounded however much is appended.
 */
export class HeadTailBuffer {
  readonly headChars: number;
  readonly tailChars: number;
  #head = "";
  #tail: string[] = [];
  #tailLength = 0;
  #total = 0;

  constructor(headChars: number, tailChars: number) {
    this.headChars = headChars;
    this.tailChars = tailChars;
  }

  append(text: string): void {
    this.#total += text.length;
    let rest = text;
    if (this.#head.length < this.headChars) {
      const room = this.headChars - this.#head.length;
      this.#head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest.length === 0) return;
    this.#tail.push(rest);
    this.#tailLength += rest.length;
    this.#trimTail();
  }

  /** Characters appended since creation or the last `clear()`. */
  get totalChars(): number {
    return this.#total;
  }

  /** Characters appended but no longer held (they fell between head and tail). */
  get droppedChars(): number {
    return this.#total - this.retainedChars;
  }

  /** Characters held in memory. */
  get retainedChars(): number {
    return this.#head.length + this.#tailLength;
  }

  /** What is held: everything when nothing was dropped, else head and tail with the gap size. */
  parts(): { head: string; tail: string; dropped: number } {
    return { head: this.#head, tail: this.#tail.join(""), dropped: this.droppedChars };
  }

  clear(): void {
    this.#head = "";
    this.#tail = [];
    this.#tailLength = 0;
    this.#total = 0;
  }

  #trimTail(): void {
    let excess = this.#tailLength - this.tailChars;
    while (excess > 0) {
      const first = this.#tail[0]!;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailLength -= first.length;
        excess -= first.length;
      } else {
        // Copy rather than slice so the kept piece does not pin its (possibly huge) parent string.
        this.#tail[0] = Buffer.from(first.slice(excess), "utf8").toString("utf8");
        this.#tailLength -= excess;
        excess = 0;
      }
    }
  }
}
