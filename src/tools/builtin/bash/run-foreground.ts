import type { CommandExit, StartCommandOptions } from "./command-process.js";
import { OutputCapture } from "./output-capture.js";
import type { StopReport } from "./process-tree.js";
import type { SpillFile } from "./spill-file.js";
import { startCommand } from "./start-command.js";

export interface ForegroundOptions extends StartCommandOptions {
  pty?: boolean;
  timeoutMs: number;
  signal: AbortSignal;
  /** Creates the file the output goes to if it outgrows memory. */
  openSpill?: () => SpillFile | undefined;
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
  /** The file with the output, when it was too long to keep in memory. */
  outputPath: string | undefined;
  /** Bytes of output even the file could not keep (it holds head and tail). */
  outputFileOmittedBytes: number;
  timedOut: boolean;
  interrupted: boolean;
  /**
   * What stopping the command's processes achieved: on timeout or abort, all of them; after
   * a normal exit, whatever the command left running (`cmd &`, `setsid`, `nohup`).
   */
  stop: StopReport;
}

const DEFAULT_PROGRESS_INTERVAL_MS = 1_000;
const NOTHING_STOPPED: StopReport = { stopped: 0, survivors: [], scope: "all" };

/**
 * Run a command to completion. On timeout or abort every process it started is stopped;
 * when it exits by itself, so is every process it left running: a foreground call leaves
 * nothing behind (background shells are for that). Resolves once that has been checked.
 */
export async function runForeground(options: ForegroundOptions): Promise<ForegroundOutcome> {
  const capture = new OutputCapture({ openSpill: options.openSpill });
  type Flags = { timedOut: boolean; interrupted: boolean };
  const outcome = (exit: CommandExit, flags: Flags, stop: StopReport): ForegroundOutcome => {
    capture.close();
    return {
      ...exit,
      ...flags,
      stop,
      output: capture.text(),
      outputChars: capture.totalChars,
      outputPath: capture.spillPath,
      outputFileOmittedBytes: capture.spillOmittedBytes,
    };
  };
  if (options.signal.aborted) {
    return outcome({ exitCode: null, signal: null }, { timedOut: false, interrupted: true }, NOTHING_STOPPED);
  }
  const started = Date.now();
  const running = await startCommand(options);
  let lastLine = "";
  let latest = "";
  running.onOutput((text) => {
    capture.append(text);
    latest = text;
  });

  let stopping: Promise<StopReport> | undefined;
  const flags = { timedOut: false, interrupted: false };
  const stop = (flag: "timedOut" | "interrupted") => {
    if (stopping) return;
    flags[flag] = true;
    stopping = running.kill();
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
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
    // The shell is gone; sweep up whatever it left running.
    const report = await (stopping ?? running.kill());
    return outcome(exit, flags, report);
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
