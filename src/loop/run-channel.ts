import type { SDKMessage } from "../protocol/index.js";

type Pulled<T> = { result: IteratorResult<SDKMessage, T> } | { error: unknown };

/**
 * Messages that reach a run's stream from outside its steps: those of background agents,
 * which go on after their Agent call returned. `merge` passes them on while a step runs (a
 * model call, a blocking AgentOutput) and between steps; a message is never dropped, and
 * each source keeps its own order.
 */
export class RunChannel {
  readonly #buffer: SDKMessage[] = [];
  /** Wakes the merge waiting for either a pushed message or its source's next one. */
  #wake: (() => void) | undefined;

  push(message: SDKMessage): void {
    this.#buffer.push(message);
    this.#notify();
  }

  /**
   * `source`'s messages with the channel's in between. Messages pushed before the source
   * yields one come out first, so everything pushed before the run's `result` precedes it.
   */
  async *merge<T>(source: AsyncGenerator<SDKMessage, T>): AsyncGenerator<SDKMessage, T> {
    let pulled: Pulled<T> | undefined;
    let pending: Promise<unknown> = Promise.resolve();
    let finished = false;
    const pull = () => {
      pulled = undefined;
      pending = source.next().then(
        (result) => ((pulled = { result }), this.#notify()),
        (error: unknown) => ((pulled = { error }), this.#notify()),
      );
    };
    pull();
    try {
      for (;;) {
        while (this.#buffer.length > 0) yield this.#buffer.shift() as SDKMessage;
        const ready = pulled as Pulled<T> | undefined;
        if (ready === undefined) {
          await new Promise<void>((resolve) => (this.#wake = resolve));
          continue;
        }
        if ("error" in ready) {
          finished = true;
          throw ready.error;
        }
        if (ready.result.done) {
          finished = true;
          return ready.result.value;
        }
        yield ready.result.value;
        pull();
      }
    } finally {
      // The caller stopped early: close the source once its pending step settles (the run's abort ends it).
      if (!finished) void pending.then(() => source.return(undefined as T)).catch(() => undefined);
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
