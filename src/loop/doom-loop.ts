import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";

/**
 * Notices the same tool called with the same input several times in a row — the
 * signature of a model stuck repeating itself.
 */
export class DoomLoopDetector {
  readonly #threshold: number;
  #last: string | undefined;
  #count = 0;

  constructor(threshold: number) {
    this.#threshold = threshold;
  }

  /** Record a call; true when it makes `threshold` identical calls in a row. */
  record(toolName: string, input: unknown): boolean {
    // A digest, not the text: the last input may be megabytes, kept for the whole run.
    const key = createHash("sha256").update(`${toolName}\u0000`).update(canonicalJson(input)).digest("base64");
    this.#count = key === this.#last ? this.#count + 1 : 1;
    this.#last = key;
    return this.#threshold > 0 && this.#count >= this.#threshold;
  }

  /** Forget the streak (after a person allowed the repetition). */
  reset(): void {
    this.#count = 0;
  }
}
