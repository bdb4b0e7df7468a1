/** How a command ended. */
export interface CommandExit {
  /** The shell's exit code; null when it was ended by a signal or never started. */
  exitCode: number | null;
  /** The signal that ended the shell (e.g. "SIGTERM"), if any. */
  signal: string | null;
  /** Set when the shell could not be started at all. */
  startError?: string;
  /**
   * True when the shell exited but processes it left behind still held its output open;
   * they were stopped so the call could return.
   */
  strayProcessesStopped?: boolean;
}

/** A running shell command, started in its own process group. */
export interface CommandProcess {
  /** Pid of the shell, which is also the id of its process group. */
  readonly pid: number | undefined;
  /** Receive output (stdout and stderr interleaved, in the order produced) as text. */
  onOutput(listener: (text: string) => void): void;
  /** Settles once the shell exited and its output was drained (never rejects). */
  readonly exited: Promise<CommandExit>;
  /** Stop the whole process tree (SIGTERM, then SIGKILL after a grace period). */
  kill(): Promise<void>;
}

export interface StartCommandOptions {
  command: string;
  cwd: string;
  shell: string;
  env: Record<string, string>;
  /** Milliseconds between SIGTERM and SIGKILL when stopping the tree. */
  killGraceMs?: number;
}

/** A stand-in for a command whose shell could not be started. */
export function failedProcess(startError: string): CommandProcess {
  return {
    pid: undefined,
    onOutput: () => {},
    exited: Promise.resolve({ exitCode: null, signal: null, startError }),
    kill: async () => {},
  };
}
