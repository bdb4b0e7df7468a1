import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { TmuxTerminal } from "./tmux-terminal.js";

/** The built CLI the terminal tests drive. */
export const GYRE_CLI = resolve("dist/bin/gyre.js");
/** On the status line once the interactive agent reads keys. */
export const PROMPT_READY = "Shift+Tab: mode";

export interface GyreTerminalOptions {
  cwd: string;
  /** gyre's arguments. */
  args?: string[];
  /** Added to the terminal's environment (CI=true is always there, as in CI jobs). */
  env?: Record<string, string>;
  width?: number;
  height?: number;
  /** What shows the prompt is ready (default {@link PROMPT_READY}; a narrow terminal cuts it). */
  ready?: string;
}

/**
 * The real `gyre` in tmux terminals for one test file: a private tmux server (kept up between
 * tests), the build and tmux checked before the first test, the terminal of a test closed after it (then
 * `afterEachTest`, e.g. closing the file's mock LLM), the tmux server ended after the last.
 */
export function gyreTerminals(label: string, afterEachTest?: () => Promise<void>) {
  const socket = `gyre-${label}-test-${process.pid}`;
  let current: TmuxTerminal | undefined;
  let count = 0;
  const kill = () => {
    current?.kill();
    current = undefined;
  };
  beforeAll(() => {
    if (!existsSync(GYRE_CLI))
      throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
    execFileSync("tmux", ["-V"]);
    TmuxTerminal.startServer(socket);
  });
  afterEach(async () => {
    kill();
    await afterEachTest?.();
  });
  afterAll(() => TmuxTerminal.killServer(socket));
  return {
    /** Starts `gyre ARGS` in a new terminal (CI set: a terminal must still show every frame and colour). */
    start(options: GyreTerminalOptions): TmuxTerminal {
      current = TmuxTerminal.start({
        socket,
        name: `t${count++}`,
        cwd: options.cwd,
        command: [process.execPath, GYRE_CLI, ...(options.args ?? [])],
        env: { CI: "true", ...options.env },
        ...(options.width !== undefined && { width: options.width }),
        ...(options.height !== undefined && { height: options.height }),
      });
      return current;
    },
    /** Starts `gyre ARGS` and waits until its prompt reads keys. */
    async startReady(options: GyreTerminalOptions): Promise<TmuxTerminal> {
      const term = this.start(options);
      await term.waitFor(options.ready ?? PROMPT_READY, "the prompt to be ready");
      return term;
    },
    /** Closes the current terminal before the test ends. */
    kill,
  };
}

/** Types a prompt, waits until the prompt box shows it (so no key lands before the app reads), and sends it. */
export async function sendPrompt(term: TmuxTerminal, text: string): Promise<void> {
  term.type(text);
  await term.waitFor(`❯ ${text}`, `the prompt box to show "${text}"`);
  term.press("Enter");
}

/** Whether a process whose command line matches `pattern` runs (pgrep -f). */
export function processesRunning(pattern: string): boolean {
  try {
    execFileSync("pgrep", ["-f", pattern], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until a process whose command line matches `pattern` runs, or none does. */
export async function waitForProcess(pattern: string, running: boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (processesRunning(pattern) !== running) {
    if (Date.now() > deadline) throw new Error(`"${pattern}" ${running ? "never started" : "still runs"}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
