/**
 * One-shot timers, as an interface so code that waits can be driven by a test's own clock
 * (no sleeping, no fake global timers). `systemTimers` is the real thing.
 */
export interface Timers {
  /** Call `callback` once, `ms` from now; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancel a timer that has not fired; a handle that already fired or was cleared is ignored. */
  clearTimeout(handle: unknown): void;
}

/** Node's timers. */
export const systemTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
