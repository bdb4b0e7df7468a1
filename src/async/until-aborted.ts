/** What `untilAborted` resolves to when the signal aborted before the promise settled. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * Wait for `promise` unless `signal` aborts first; then resolve to `ABORTED` at once, without
 * waiting for work that ignores its signal. A later rejection of the abandoned promise is
 * swallowed so it cannot surface as an unhandled rejection.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      resolve(ABORTED);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
