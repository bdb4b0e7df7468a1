import { fstatSync } from "node:fs";
import { GyreError } from "../errors/index.js";

/** What stdin is: a terminal, a shell pipe (FIFO), a regular file, a socket (Node's child_process pipes), or else. */
export type StdinKind = "tty" | "pipe" | "file" | "socket" | "other";

/** Largest prompt read from stdin: far past any real prompt, short of exhausting memory. */
export const MAX_STDIN_BYTES = 16 * 1024 * 1024;

/** How long a pipe may stay silent, with a prompt argument, before the run goes on without it (claude -p waits 3 s too). */
export const STDIN_GRACE_MS = 3000;

export function stdinKind(): StdinKind {
  if (process.stdin.isTTY) return "tty";
  try {
    const stat = fstatSync(0);
    if (stat.isFIFO()) return "pipe";
    if (stat.isFile()) return "file";
    if (stat.isSocket()) return "socket";
  } catch {
    // No stdin at all (closed descriptor): nothing to read.
  }
  return "other";
}

/**
 * The prompt of `gyre run`, from its arguments and stdin, as `claude -p` takes it:
 * - `-` among the arguments, or no argument and a stdin that is not a terminal: stdin is read
 *   to its end; `-` alone is the whole prompt, `"review this" -` puts the prompt first.
 * - a prompt argument and a stdin that is a shell pipe or a file: stdin is appended as
 *   context. A pipe that gives nothing within {@link STDIN_GRACE_MS} is left alone (a parent
 *   that holds stdin open without writing must not hang the run). Sockets, which is what
 *   Node's child_process gives a child, are not read unless asked with `-`, so a program that
 *   spawns gyre keeps stdin for answering questions.
 * Returns "" when there is no prompt at all.
 */
export async function promptFrom(positionals: readonly string[], kind: StdinKind = stdinKind()): Promise<string> {
  const asksForStdin = positionals.includes("-");
  const text = positionals.filter((word) => word !== "-").join(" ");
  if (asksForStdin || (text === "" && kind !== "tty")) {
    if (kind === "tty") process.stderr.write("gyre: reading the prompt from the terminal; end it with Ctrl+D\n");
    return joined(text, await readStdin());
  }
  if (kind === "file") return joined(text, await readStdin());
  if (kind !== "pipe") return text;
  if (!(await stdinStartsWithin(STDIN_GRACE_MS))) {
    process.stderr.write(
      `gyre: stdin is a pipe that gave nothing in ${STDIN_GRACE_MS / 1000}s; going on without it ` +
        `(< /dev/null skips the wait; "-" waits for it)\n`,
    );
    return text;
  }
  return joined(text, await readStdin());
}

function joined(prompt: string, context: string): string {
  const trimmed = context.replace(/\s+$/, "");
  if (prompt === "") return trimmed;
  return trimmed === "" ? prompt : `${prompt}\n\n${trimmed}`;
}

/** Whether stdin has data or has ended within `ms`; stops reading when it has not, keeping nothing back. */
function stdinStartsWithin(ms: number): Promise<boolean> {
  const stdin = process.stdin;
  return new Promise((resolve) => {
    const done = (started: boolean) => {
      clearTimeout(timer);
      stdin.off("readable", onReadable);
      stdin.off("end", onEnd);
      // Whatever was read stays buffered in the stream for whoever reads next, and a pipe held
      // open by a silent writer no longer keeps the process alive once the run is done.
      if (!started) {
        stdin.pause();
        (stdin as { unref?: () => void }).unref?.();
      }
      resolve(started);
    };
    const onReadable = () => done(true);
    const onEnd = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    stdin.once("readable", onReadable);
    stdin.once("end", onEnd);
  });
}

/** All of stdin as UTF-8 text, up to {@link MAX_STDIN_BYTES}. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_STDIN_BYTES) {
      throw new GyreError("config_error", `the prompt on stdin is over ${MAX_STDIN_BYTES / 1024 / 1024} MiB`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
