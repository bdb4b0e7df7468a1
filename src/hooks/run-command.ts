import { spawn } from "node:child_process";
import { basename } from "node:path";

/** How a command hook's process ended. */
export interface CommandExit {
  /** Exit code; `null` when killed by a signal or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not be started. */
  spawnError?: string;
}

export interface CommandRun {
  command: string;
  /** Written to stdin, then stdin is closed. */
  stdin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  shell: string;
  signal?: AbortSignal;
}

/** Output beyond this is dropped; hooks talk in small JSON documents. */
const MAX_CAPTURE = 1024 * 1024;

const POSIX_SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh"]);

/**
 * The shell hook commands run in: the user's `$SHELL` when it is a POSIX shell (so
 * syntax such as `[[ ]]` works as in their terminal), else `/bin/sh`.
 */
export function defaultShell(env: NodeJS.ProcessEnv = process.env): string {
  const shell = env.SHELL;
  return shell && POSIX_SHELLS.has(basename(shell)) ? shell : "/bin/sh";
}

/**
 * Run a hook command as `shell -c command` in its own process group, with the input on
 * stdin. On timeout or abort the whole group is killed (so `sleep` children die too) and
 * the result says so. Never rejects.
 */
export function runCommand(run: CommandRun): Promise<CommandExit> {
  return new Promise((resolve) => {
    const result: CommandExit = { exitCode: null, stdout: "", stderr: "", timedOut: false, aborted: false };
    if (run.signal?.aborted) {
      resolve({ ...result, aborted: true });
      return;
    }
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
      resolve(result);
    };
    const stop = (reason: "timedOut" | "aborted") => {
      // A hook that already exited but left a child holding its pipes is not a timeout.
      if (!exited) result[reason] = true;
      killGroup();
      child.stdout.destroy();
      child.stderr.destroy();
      if (exited) settle();
    };
    const onAbort = () => stop("aborted");
    const timer = setTimeout(() => stop("timedOut"), run.timeoutMs);
    run.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (result.stdout.length < MAX_CAPTURE) result.stdout += chunk;
    });
    child.stderr.on("data", (chunk: string) => {
      if (result.stderr.length < MAX_CAPTURE) result.stderr += chunk;
    });
    // A hook that never reads stdin makes the write fail with EPIPE; that is not an error.
    child.stdin.on("error", () => {});
    child.on("error", (error) => {
      result.spawnError = error.message;
      settle();
    });
    child.on("exit", (code) => {
      exited = true;
      result.exitCode = code;
      if (result.timedOut || result.aborted) settle();
    });
    child.on("close", settle);
    child.stdin.end(run.stdin);
  });
}
