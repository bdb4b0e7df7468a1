import type { Timers } from "../async/index.js";

/**
 * A tool call still running this long after it started gets its first progress message (after
 * the one every call starts with, see tool-call.ts); a call that ends sooner gets none. As in
 * Claude Code, progress is for calls that take a while.
 */
export const TOOL_PROGRESS_THRESHOLD_MS = 1_000;

/** After the first, one `tool_progress` message per interval until the call ends. */
export const TOOL_PROGRESS_INTERVAL_MS = 1_000;

export interface ToolProgressOptions {
  timers: Timers;
  /** The run's clock; `elapsed_time_seconds` is measured with it. */
  now: () => number;
  /** Send one progress message: seconds since the call started, and the tool's latest report, if any. */
  emit: (elapsedSeconds: number, data: unknown) => void;
}

/**
 * The `tool_progress` schedule of one call: nothing before `TOOL_PROGRESS_THRESHOLD_MS`,
 * then one message every `TOOL_PROGRESS_INTERVAL_MS` until `stop()`. What the tool reports
 * itself (Bash's latest output line, ...) rides on the next scheduled message — the latest
 * report wins — so a chatty tool cannot flood the stream and a quiet one still shows it is alive.
 */
export class ToolProgress {
  readonly #options: ToolProgressOptions;
  readonly #startedAt: number;
  #timer: unknown;
  #data: { value: unknown } | undefined;
  #stopped = false;

  constructor(options: ToolProgressOptions) {
    this.#options = options;
    this.#startedAt = options.now();
    this.#timer = options.timers.setTimeout(() => this.#tick(), TOOL_PROGRESS_THRESHOLD_MS);
  }

  /** What the tool says about its progress; sent with the next scheduled message. */
  report(data: unknown): void {
    if (!this.#stopped) this.#data = { value: data };
  }

  /** The call ended: no more messages. */
  stop(): void {
    this.#stopped = true;
    this.#options.timers.clearTimeout(this.#timer);
  }

  #tick(): void {
    if (this.#stopped) return;
    const data = this.#data?.value;
    this.#data = undefined;
    this.#options.emit((this.#options.now() - this.#startedAt) / 1000, data);
    this.#timer = this.#options.timers.setTimeout(() => this.#tick(), TOOL_PROGRESS_INTERVAL_MS);
  }
}
