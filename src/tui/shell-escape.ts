import { spawn } from "node:child_process";

/** Output kept of a `!command` (each stream): the head, with a note of what was cut. */
const MAX_OUTPUT_CHARS = 30_000;
/** A `!command` that runs longer is ended (it is for quick looks, not servers). */
const TIMEOUT_MS = 10 * 60 * 1000;

/** How a `!command` went. */
export interface ShellRun {
  command: string;
  stdout: string;
  stderr: string;
  /** The exit code, or undefined when a signal ended it. */
  exitCode: number | undefined;
  signal: string | undefined;
}

/**
 * Runs a command the person typed after `!`, as the person (it is their own command, so no
 * permission rule applies, as in Claude Code's bash mode): `bash -c` in `cwd`, stdin closed,
 * in its own process group so that `signal` (Esc) or the timeout ends all of it.
 */
export function runShellEscape(command: string, cwd: string, signal: AbortSignal): Promise<ShellRun> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const stdout = new CappedText();
    const stderr = new CappedText();
    child.stdout.on("data", (chunk: Buffer) => stdout.add(chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => stderr.add(chunk.toString("utf8")));
    const stop = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(stop, TIMEOUT_MS);
    signal.addEventListener("abort", stop, { once: true });
    const finish = (exitCode: number | undefined, ended: string | undefined) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", stop);
      resolve({ command, stdout: stdout.text(), stderr: stderr.text(), exitCode, signal: ended });
    };
    child.on("error", (error) => {
      stderr.add(error.message);
      finish(127, undefined);
    });
    child.on("close", (code, ended) => finish(code ?? undefined, ended ?? undefined));
  });
}

/**
 * What the model is told of a `!command` with the next prompt, in Claude Code's tags, so it
 * knows what the person ran and saw.
 */
export function shellContext(run: ShellRun): string {
  const status = run.signal
    ? `\n<bash-exit>ended by ${run.signal}</bash-exit>`
    : run.exitCode
      ? `\n<bash-exit>${run.exitCode}</bash-exit>`
      : "";
  return (
    `<bash-input>${run.command}</bash-input>\n` +
    `<bash-stdout>${run.stdout}</bash-stdout><bash-stderr>${run.stderr}</bash-stderr>${status}`
  );
}

/** The run as the transcript shows it: the command, its output, and how it ended when not 0. */
export function shellSummary(run: ShellRun): string {
  const output = [run.stdout, run.stderr]
    .map((text) => text.replace(/\n$/, ""))
    .filter(Boolean)
    .join("\n");
  const end = run.signal ? `(ended by ${run.signal})` : run.exitCode ? `(exit ${run.exitCode})` : "";
  return [`! ${run.command}`, output, end].filter(Boolean).join("\n");
}

class CappedText {
  #text = "";
  #dropped = 0;

  add(chunk: string): void {
    const room = MAX_OUTPUT_CHARS - this.#text.length;
    if (room > 0) this.#text += chunk.slice(0, room);
    this.#dropped += Math.max(0, chunk.length - Math.max(0, room));
  }

  text(): string {
    return this.#dropped > 0 ? `${this.#text}\n… ${this.#dropped} more characters not kept` : this.#text;
  }
}
