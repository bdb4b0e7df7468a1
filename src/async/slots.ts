import { GyreError } from "../errors/index.js";

/**
 * A counting semaphore: `size` holders at once, the others wait in arrival order. A waiter
 * whose signal aborts leaves the line (rejecting with the signal's reason), so no slot is
 * ever handed to a call nobody waits for any more.
 */
export class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves once a slot is held (at once when one is free); {@link Slots.give} it back. */
  async take(signal: AbortSignal): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    // An abort before the wait would never fire its event: the waiter would hold a slot for nobody.
    if (signal.aborted) throw abortReason(signal);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#waiting.splice(this.#waiting.indexOf(wake), 1);
        reject(abortReason(signal));
      };
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#waiting.push(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Hands the slot to the first waiter, or frees it. */
  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new GyreError("aborted", "Interrupted");
}
