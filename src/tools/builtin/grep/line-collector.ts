import type { OutputLine } from "./types.js";

/**
 * Collects the lines a content search prints: each match plus up to `before`/`after`
 * context lines, each line once, in order. Fed one line at a time, so files stream.
 */
export class LineCollector {
  readonly lines: OutputLine[] = [];
  count = 0;
  readonly #before: number;
  readonly #after: number;
  #pending: OutputLine[] = [];
  #afterLeft = 0;
  #lastPrinted = 0;

  constructor(before: number, after: number) {
    this.#before = before;
    this.#after = after;
  }

  /** Whether after-context lines are still owed, so the next lines must each be added. */
  get afterPending(): boolean {
    return this.#afterLeft > 0;
  }

  /** Add line `line` (1-based, in order); `match` says whether it matched. */
  add(line: number, text: string, match: boolean): void {
    if (match) {
      this.count++;
      for (const context of this.#pending) {
        if (context.line > this.#lastPrinted) this.lines.push(context);
      }
      this.#pending = [];
      this.lines.push({ line, text, match: true });
      this.#lastPrinted = line;
      this.#afterLeft = this.#after;
      return;
    }
    if (this.#afterLeft > 0) {
      this.#afterLeft--;
      this.lines.push({ line, text, match: false });
      this.#lastPrinted = line;
      return;
    }
    if (this.#before === 0) return;
    this.#pending.push({ line, text, match: false });
    if (this.#pending.length > this.#before) this.#pending.shift();
  }
}
