import { RequestError } from "./errors.js";

/** Per-key limits on `POST /v1/responses` (each API key counts apart; the open loopback server is one key). */
export interface KeyLimits {
  /** Responses one key may have running at once; one more is a 429. */
  concurrentResponses?: number;
  /** Responses one key may create per minute (a token bucket: bursts up to this many); more is a 429. */
  requestsPerMinute?: number;
}

/** A 429 with the spec's error and how long to wait, in whole seconds (`Retry-After`). */
export class RateLimitError extends RequestError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message, "rate_limit_exceeded");
  }
}

interface KeyState {
  running: number;
  tokens: number;
  refilledAt: number;
}

/** Admits responses per key under {@link KeyLimits}. */
export class KeyLimiter {
  readonly #keys = new Map<string, KeyState>();

  constructor(
    readonly limits: KeyLimits,
    readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes a slot for `owner`, or throws a {@link RateLimitError}. The returned function gives
   * the concurrency slot back (call it once, when the response ends); the rate is spent either way.
   */
  acquire(owner: string): () => void {
    const { concurrentResponses, requestsPerMinute } = this.limits;
    const state = this.#state(owner);
    if (concurrentResponses !== undefined && state.running >= concurrentResponses)
      throw new RateLimitError(
        `Too many concurrent responses for this key (limit ${concurrentResponses}); retry when one ends.`,
        1,
      );
    if (requestsPerMinute !== undefined) {
      this.#refill(state, requestsPerMinute);
      if (state.tokens < 1) {
        const waitMs = ((1 - state.tokens) * 60_000) / requestsPerMinute;
        throw new RateLimitError(
          `Rate limit of ${requestsPerMinute} responses per minute reached for this key.`,
          Math.max(1, Math.ceil(waitMs / 1000)),
        );
      }
      state.tokens -= 1;
    }
    state.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      state.running--;
    };
  }

  #state(owner: string): KeyState {
    let state = this.#keys.get(owner);
    if (!state) {
      state = { running: 0, tokens: this.limits.requestsPerMinute ?? 0, refilledAt: this.now() };
      this.#keys.set(owner, state);
    }
    return state;
  }

  #refill(state: KeyState, perMinute: number): void {
    const now = this.now();
    state.tokens = Math.min(perMinute, state.tokens + ((now - state.refilledAt) * perMinute) / 60_000);
    state.refilledAt = now;
  }
}
