import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { errorMessage } from "../../../errors/index.js";
import {
  type CommandExit,
  type CommandProcess,
  failedProcess,
  shellInvocation,
  type SpawnOptions,
} from "./command-process.js";
import { readProcessInfo } from "./proc-fs.js";
import { stopCommandProcesses } from "./process-tree.js";

/**
 * How long a foreground command's output may keep flowing after its shell exited. Past it,
 * whatever still holds the pipes open (`(server &)`) is a leftover, stopped by the caller.
 */
const DRAIN_GRACE_MS = 250;

/**
 * Run `command` with `<shell> -c` over pipes, stdin closed, in a new process group.
 * The script starts with `exec 2>&1` so stdout and stderr share one pipe and reach us in
 * exactly the order they were written (it sits on the command's first line, so error
 * messages keep their line numbers).
 */
export function spawnProcess(options: SpawnOptions): CommandProcess {
  let child: ReturnType<typeof spawn>;
  try {
    const { file, args } = shellInvocation(options, `exec 2>&1; ${options.command}`);
    child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      windowsHide: true,
    });
  } catch (error) {
    return failedProcess(errorMessage(error));
  }
  const listeners: Array<(text: string) => void> = [];
  const emit = (text: string) => {
    if (text) for (const listener of listeners) listener(text);
  };
  const streams = [child.stdout, child.stderr].filter((s): s is Readable => s !== null);
  for (const stream of streams) {
    const decoder = new StringDecoder("utf8");
    stream.on("data", (chunk: Buffer) => emit(decoder.write(chunk)));
    stream.on("end", () => emit(decoder.end()));
    stream.on("error", () => {});
  }
  // Read now, while the shell cannot have been reaped yet.
  const startTime = child.pid === undefined ? undefined : readProcessInfo(child.pid)?.startTime;
  const target = { pgid: child.pid, marker: options.marker, startTime };

  const exited = new Promise<CommandExit>((resolve) => {
    child.once("error", (error) => {
      if (child.pid === undefined) resolve({ exitCode: null, signal: null, startError: errorMessage(error) });
    });
    child.once("exit", (exitCode, signal) => {
      void drain(streams, options.background ? undefined : DRAIN_GRACE_MS).then((drained) => {
        if (!drained) for (const stream of streams) stream.destroy();
        resolve({ exitCode, signal });
      });
    });
  });

  return {
    pid: child.pid,
    onOutput: (listener) => listeners.push(listener),
    exited,
    kill: () => stopCommandProcesses(target, { graceMs: options.killGraceMs }),
  };
}

/** Resolves true when every stream ended, false when `graceMs` (if any) passed first. */
function drain(streams: Readable[], graceMs: number | undefined): Promise<boolean> {
  const open = streams.filter((stream) => !stream.readableEnded && !stream.destroyed);
  if (open.length === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    let remaining = open.length;
    const timer = graceMs === undefined ? undefined : setTimeout(() => resolve(false), graceMs);
    for (const stream of open) {
      stream.once("close", () => {
        remaining -= 1;
        if (remaining === 0) {
          clearTimeout(timer);
          resolve(true);
        }
      });
    }
  });
}
