import type { CommandExit, StartCommandOptions } from "./command-process.js";
import { OutputCapture } from "./output-capture.js";
import { startCommand } from "./start-command.js";

export interface ForegroundOptions extends StartCommandOptions {
  pty?: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  /** Where the full output goes if it outgrows memory. */
  spillPath: string;
  /** Called about every `progressIntervalMs` while the command runs. */
  onProgress?: (progress: ForegroundProgress) => void;
  progressIntervalMs?: number;
}

export interface ForegroundProgress {
  elapsedMs: number;
  /** The last non-empty line of output so far ("" when there is none yet). */
  lastLine: string;
  outputChars: number;
}

export interface ForegroundOutcome extends CommandExit {
  /** The output (head and tail with a note when it was long). */
  output: string;
  outputChars: number;
  /** The file with the whole output, when it was too long to keep in memory. */
  outputPath: string | undefined;
  timedOut: boolean;
  interrupted: boolean;
}

const DEFAULT_PROGRESS_INTERVAL_MS = 1_000;

/**
 * Run a command to completion. On timeout or abort the whole process tree is stopped and
 * this resolves once it is gone, with whatever output was produced.
 */
export async function runForeground(options: ForegroundOptions): Promise<ForegroundOutcome> {
  const capture = new OutputCapture({ spillPath: options.spillPath });
  const outcome = (exit: CommandExit, flags: { timedOut: boolean; interrupted: boolean }) => {
    capture.close();
    return {
      ...exit,
      ...flags,
      output: capture.text(),
      outputChars: capture.totalChars,
      outputPath: capture.spillPath,
    };
  };
  if (options.signal.aborted) {
    return outcome({ exitCode: null, signal: null }, { timedOut: false, interrupted: true });
  }
  const started = Date.now();
  const running = await startCommand(options);
  let lastLine = "";
  let latest = "";
  running.onOutput((text) => {
    capture.append(text);
    latest = text;
  });

  let killing: Promise<void> | undefined;
  const flags = { timedOut: false, interrupted: false };
  const stop = (flag: "timedOut" | "interrupted") => {
    flags[flag] = true;
    killing ??= running.kill();
  };
  const onAbort = () => stop("interrupted");
  const timer = setTimeout(() => stop("timedOut"), options.timeoutMs);
  options.signal.addEventListener("abort", onAbort, { once: true });
  const progress = options.onProgress
    ? setInterval(() => {
        lastLine = lastNonEmptyLine(latest) ?? lastLine;
        options.onProgress?.({ elapsedMs: Date.now() - started, lastLine, outputChars: capture.totalChars });
      }, options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS)
    : undefined;
  try {
    const exit = await running.exited;
    await killing;
    return outcome(exit, flags);
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
    options.signal.removeEventListener("abort", onAbort);
  }
}

function lastNonEmptyLine(text: string): string | undefined {
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    const line = text.slice(start, end).trim();
    if (line) return line.length > 200 ? `${line.slice(0, 200)}…` : line;
    end = start - 1;
  }
  return undefined;
}
