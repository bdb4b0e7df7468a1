import type { CommandSandbox } from "./command-sandbox.js";
import type { StopReport } from "./process-tree.js";

/** How a command ended. */
export interface CommandExit {
  /** The shell's exit code; null when it was ended by a signal or never started. */
  exitCode: number | null;
  /** The signal that ended the shell (e.g. "SIGTERM"), if any. */
  signal: string | null;
  /** Set when the shell could not be started at all. */
  startError?: string;
}

/** A running shell command, started in its own process group. */
export interface CommandProcess {
  /** Pid of the shell, which is also the id of its process group. */
  readonly pid: number | undefined;
  /** Receive output (stdout and stderr interleaved, in the order produced) as text. */
  onOutput(listener: (text: string) => void): void;
  /** Settles once the shell exited and its output was drained (never rejects). */
  readonly exited: Promise<CommandExit>;
  /**
   * Stop every process the command started (its group, and on Linux every process carrying
   * its marker), also after the shell itself has exited; resolves with what was verified.
   */
  kill(): Promise<StopReport>;
}

export interface StartCommandOptions {
  command: string;
  cwd: string;
  shell: string;
  env: Record<string, string>;
  /** Milliseconds between SIGTERM and SIGKILL when stopping the command's processes. */
  killGraceMs?: number;
  /**
   * A background shell: its output is read for as long as any process holds it open, since
   * those processes belong to the shell until it is killed. A foreground command stops
   * waiting shortly after the shell exits (its leftovers are then stopped).
   */
  background?: boolean;
  /** Run the shell inside this sandbox (see command-sandbox.ts). */
  sandbox?: CommandSandbox;
}

/** The options a process is spawned with: the command's marker is in `env` already. */
export interface SpawnOptions extends StartCommandOptions {
  marker: string;
}

/** A stand-in for a command whose shell could not be started. */
export function failedProcess(startError: string): CommandProcess {
  return {
    pid: undefined,
    onOutput: () => {},
    exited: Promise.resolve({ exitCode: null, signal: null, startError }),
    kill: async () => ({ stopped: 0, survivors: [], scope: "all" }),
  };
}

/** The program and arguments that run `shell -c script`, confined when the options carry a sandbox. */
export function shellInvocation(options: SpawnOptions, script: string): { file: string; args: string[] } {
  const args = ["-c", script];
  return options.sandbox ? options.sandbox.wrap(options.shell, args, options.cwd) : { file: options.shell, args };
}
