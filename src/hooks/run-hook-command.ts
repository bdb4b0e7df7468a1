import { spawn } from "node:child_process";
import { basename } from "node:path";

/** How a command hook's process ended. */
export interface HookCommandExit {
  /** Exit code; `null` when killed by a signal or never started. */
  exitCode: number | null;
  /** The signal that ended the process, when one did. */
  signal?: NodeJS.Signals;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /**
   * Set to the limit (bytes) when stdout went past it: the hook was killed and `stdout` is
   * empty. Never read as an answer — a cut deny must not become "no decision".
   */
  stdoutOverflow?: number;
  /** stderr went past its limit; `stderr` holds its start, the rest was read and dropped. */
  stderrTruncated?: boolean;
  /** Reading stdout or stderr failed: what the hook said is unknown. */
  readError?: string;
  /** Set when the process could not be started. */
  spawnError?: string;
}

export interface HookCommandRun {
  command: string;
  /** Written to stdin, then stdin is closed. */
  stdin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  shell: string;
  signal?: AbortSignal;
  /** stdout bytes kept before the hook counts as failed (default `MAX_HOOK_STDOUT_BYTES`). */
  maxStdoutBytes?: number;
}

/**
 * stdout past this fails the hook. As large as the biggest tool input we accept (64 MiB),
 * so a PreToolUse hook can hand back any input it was given through `updatedInput`.
 */
export const MAX_HOOK_STDOUT_BYTES = 64 * 1024 * 1024;

/** stderr kept (the exit-2 reason, error reports); the rest is drained and dropped. */
export const MAX_HOOK_STDERR_BYTES = 1024 * 1024;

const POSIX_SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh"]);

/**
 * The shell hook commands run in: the user's `$SHELL` when it is a POSIX shell (so
 * syntax such as `[[ ]]` works as in their terminal), else `/bin/sh`.
 */
export function defaultShell(env: NodeJS.ProcessEnv = process.env): string {
  const shell = env.SHELL;
  return shell && POSIX_SHELLS.has(basename(shell)) ? shell : "/bin/sh";
}

/** Bytes of one stream, kept up to a limit; memory never grows past it. */
class Capture {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  overflowed = false;

  constructor(readonly limit: number) {}

  /** Keeps what fits; returns false once the stream has gone past the limit. */
  add(chunk: Buffer): boolean {
    if (this.overflowed) return false;
    const room = this.limit - this.#bytes;
    if (chunk.length > room) {
      if (room > 0) this.#chunks.push(chunk.subarray(0, room));
      this.#bytes = this.limit;
      this.overflowed = true;
      return false;
    }
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    return true;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString("utf8");
  }
}

/**
 * Run a hook command as `shell -c command` in its own process group, with the input on
 * stdin. On timeout, abort or stdout past its limit the whole group is killed (so `sleep`
 * children die too) and the result says so. Never rejects.
 */
export function runHookCommand(run: HookCommandRun): Promise<HookCommandExit> {
  return new Promise((resolve) => {
    const result: HookCommandExit = { exitCode: null, stdout: "", stderr: "", timedOut: false, aborted: false };
    if (run.signal?.aborted) {
      resolve({ ...result, aborted: true });
      return;
    }
    const stdout = new Capture(run.maxStdoutBytes ?? MAX_HOOK_STDOUT_BYTES);
    const stderr = new Capture(MAX_HOOK_STDERR_BYTES);
    const windows = process.platform === "win32";
    const child = windows
      ? spawn(run.command, { cwd: run.cwd, env: run.env, shell: true, stdio: "pipe" })
      : spawn(run.shell, ["-c", run.command], { cwd: run.cwd, env: run.env, detached: true, stdio: "pipe" });
    let settled = false;
    let exited = false;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        if (windows) child.kill("SIGKILL");
        else process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener("abort", onAbort);
      // Output past the limit is never read, so it is not decoded either.
      if (stdout.overflowed) result.stdoutOverflow = stdout.limit;
      else result.stdout = stdout.text();
      result.stderr = stderr.text();
      if (stderr.overflowed) result.stderrTruncated = true;
      resolve(result);
    };
    const stop = (reason: "timedOut" | "aborted" | "overflow") => {
      // A hook that already exited but left a child holding its pipes is not a timeout;
      // output past the limit is incomplete whoever wrote it (`settle` records that).
      if (!exited && reason !== "overflow") result[reason] = true;
      killGroup();
      child.stdout.destroy();
      child.stderr.destroy();
      if (exited) settle();
    };
    const onAbort = () => stop("aborted");
    const timer = setTimeout(() => stop("timedOut"), run.timeoutMs);
    run.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => {
      if (!stdout.add(chunk)) stop("overflow");
    });
    // stderr past its limit is drained, not a failure: exit 0 ignores it and exit 2 needs only its start.
    child.stderr.on("data", (chunk: Buffer) => stderr.add(chunk));
    const onReadError = (error: Error) => {
      result.readError ??= error.message;
    };
    child.stdout.on("error", onReadError);
    child.stderr.on("error", onReadError);
    // A hook that never reads stdin makes the write fail with EPIPE; that is not an error.
    child.stdin.on("error", () => {});
    child.on("error", (error) => {
      result.spawnError = error.message;
      settle();
    });
    child.on("exit", (code, signal) => {
      exited = true;
      result.exitCode = code;
      if (signal) result.signal = signal;
      if (result.timedOut || result.aborted || stdout.overflowed) settle();
    });
    child.on("close", settle);
    child.stdin.end(run.stdin);
  });
}
