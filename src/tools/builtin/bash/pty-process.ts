import { constants } from "node:os";
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
import { TerminalTextCleaner } from "./terminal-text.js";

/** Wide enough that ordinary output is not wrapped by the terminal. */
const COLUMNS = 200;
const ROWS = 50;
/** Ctrl-D: end of input for a program that reads the terminal. */
const END_OF_INPUT = "\x04";

/**
 * Run `command` under a pseudo-terminal (for programs that behave differently, or refuse
 * to run, without a tty). The shell leads a new session and process group. Input is
 * closed at once with Ctrl-D, so a program that reads the terminal sees end of input
 * instead of waiting for a human. Escape sequences are stripped from the output.
 */
export async function ptyProcess(options: SpawnOptions): Promise<CommandProcess> {
  let pty: typeof import("@lydell/node-pty");
  let terminal: import("@lydell/node-pty").IPty;
  try {
    // Loaded on first use: the native module is only needed when pty mode is asked for.
    pty = await import("@lydell/node-pty");
    const { file, args } = shellInvocation(options, options.command);
    terminal = pty.spawn(file, args, {
      name: "xterm-256color",
      cols: COLUMNS,
      rows: ROWS,
      cwd: options.cwd,
      env: { ...options.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
  } catch (error) {
    return failedProcess(errorMessage(error));
  }
  terminal.write(END_OF_INPUT);
  const listeners: Array<(text: string) => void> = [];
  const cleaner = new TerminalTextCleaner();
  const emit = (text: string) => {
    if (text) for (const listener of listeners) listener(text);
  };
  terminal.onData((data) => emit(cleaner.push(data)));
  const pid = terminal.pid;
  // Read now, while the shell cannot have been reaped yet.
  const target = { pgid: pid, marker: options.marker, startTime: readProcessInfo(pid)?.startTime };
  const exited = new Promise<CommandExit>((resolve) => {
    terminal.onExit(({ exitCode, signal }) => {
      emit(cleaner.flush());
      resolve({ exitCode: signal ? null : exitCode, signal: signal ? signalName(signal) : null });
    });
  });
  return {
    pid,
    onOutput: (listener) => listeners.push(listener),
    exited,
    kill: () => stopCommandProcesses(target, { graceMs: options.killGraceMs }),
  };
}

function signalName(signal: number): string {
  const entry = Object.entries(constants.signals).find(([, number]) => number === signal);
  return entry ? entry[0] : `signal ${signal}`;
}
