import { execFileSync } from "node:child_process";

/** How long a wait for screen content may take before the test fails, saying what it saw. */
const WAIT_MS = 20_000;
const POLL_MS = 50;

/**
 * A real terminal for end-to-end tests: a detached tmux session on a private server socket,
 * driven with `send-keys` and read with `capture-pane`. Waits poll the screen for what they
 * expect (bounded), never sleep a fixed time.
 */
export class TmuxTerminal {
  readonly #socket: string;
  readonly #name: string;

  private constructor(socket: string, name: string) {
    this.#socket = socket;
    this.#name = name;
  }

  /**
   * Starts `command` (argv, run without a shell) in a `width`×`height` terminal in `cwd` with
   * `env` added. When it exits, the pane shows `[exited CODE]` and stays.
   */
  static start(options: {
    socket: string;
    name: string;
    cwd: string;
    command: string[];
    env: Record<string, string>;
    width?: number;
    height?: number;
  }): TmuxTerminal {
    const quoted = options.command.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(" ");
    const envArgs = Object.entries(options.env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
    execFileSync("tmux", [
      "-L",
      options.socket,
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      options.name,
      "-x",
      String(options.width ?? 120),
      "-y",
      String(options.height ?? 40),
      "-c",
      options.cwd,
      ...envArgs,
      `${quoted}; echo "[exited $?]"; sleep 600`,
    ]);
    return new TmuxTerminal(options.socket, options.name);
  }

  /**
   * Starts a socket's server with a session of its own that outlives the tests' sessions: tmux
   * exits once its last session is killed, and a test's `new-session` that reached the exiting
   * server failed ("server exited unexpectedly").
   */
  static startServer(socket: string): void {
    execFileSync("tmux", ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "keep", "sleep 86400"]);
  }

  /** Ends every session of a socket's server (the tests' own, never the user's). */
  static killServer(socket: string): void {
    try {
      execFileSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
    } catch {
      // No server left: nothing to end.
    }
  }

  /** The visible screen as text; with `escapes`, with its colours and styles as escape sequences. */
  screen(options: { escapes?: boolean } = {}): string {
    const args = ["-L", this.#socket, "capture-pane", "-p", ...(options.escapes ? ["-e"] : []), "-t", this.#name];
    return execFileSync("tmux", args, { encoding: "utf8" });
  }

  /** Resizes the terminal, as a person dragging its window would. */
  resize(width: number, height: number): void {
    execFileSync("tmux", [
      "-L",
      this.#socket,
      "resize-window",
      "-t",
      this.#name,
      "-x",
      String(width),
      "-y",
      String(height),
    ]);
  }

  /** Types text literally (no key names). */
  type(text: string): void {
    execFileSync("tmux", ["-L", this.#socket, "send-keys", "-t", this.#name, "-l", text]);
  }

  /** Pastes text as a terminal does: bracketed (`ESC[200~ … ESC[201~`) when the program asked for it. */
  paste(text: string): void {
    execFileSync("tmux", ["-L", this.#socket, "set-buffer", "-b", `paste-${this.#name}`, "--", text]);
    execFileSync("tmux", [
      "-L",
      this.#socket,
      "paste-buffer",
      "-p",
      "-d",
      "-b",
      `paste-${this.#name}`,
      "-t",
      this.#name,
    ]);
  }

  /** Presses keys by tmux name: Enter, Escape, BTab (Shift+Tab), C-d, C-c, Up. */
  press(...keys: string[]): void {
    execFileSync("tmux", ["-L", this.#socket, "send-keys", "-t", this.#name, ...keys]);
  }

  /** Waits until the screen matches, and returns it; fails with the last screen after a bound. */
  async waitFor(expected: string | RegExp, what = String(expected)): Promise<string> {
    return this.waitUntil(
      (screen) => (typeof expected === "string" ? screen.includes(expected) : expected.test(screen)),
      what,
    );
  }

  async waitUntil(check: (screen: string) => boolean, what: string): Promise<string> {
    const deadline = Date.now() + WAIT_MS;
    let screen = "";
    while (Date.now() < deadline) {
      screen = this.screen();
      if (check(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}; the screen was:\n${screen}`);
  }

  kill(): void {
    try {
      execFileSync("tmux", ["-L", this.#socket, "kill-session", "-t", this.#name], { stdio: "ignore" });
    } catch {
      // Already gone.
    }
  }
}
