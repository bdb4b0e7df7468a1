import type { GyreError } from "../errors/index.js";

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff step; doubles each attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 10, baseDelayMs: 500, maxDelayMs: 32_000 };

/**
 * Delay before retry number `attempt` (1-based): the server's `retry-after` when it gave
 * one, else exponential backoff with ±25% jitter so many clients do not retry in step.
 */
export function retryDelayMs(attempt: number, error: GyreError, policy: RetryPolicy, random = Math.random): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, 60_000);
  const base = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(base * (0.75 + random() * 0.5));
}

/** Sleep that ends early (rejecting) when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
