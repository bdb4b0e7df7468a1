import type { ToolSession } from "../../tool-session.js";
import type { CommandExit, CommandProcess, StartCommandOptions } from "./command-process.js";
import { OutputCapture, outputSpillPath } from "./output-capture.js";
import { startCommand } from "./start-command.js";

/** `completed` is exit code 0, `failed` any other end, `killed` stopped by KillShell or the session ending. */
export type ShellStatus = "running" | "completed" | "failed" | "killed";

/** A command started with `run_in_background`. */
export interface BackgroundShell {
  readonly id: string;
  readonly command: string;
  readonly description: string | undefined;
  readonly startedAt: Date;
  readonly status: ShellStatus;
  /** How the shell ended; undefined while it runs. */
  readonly exit: CommandExit | undefined;
  readonly output: OutputCapture;
  /** Settles when the shell has ended (never rejects). */
  readonly ended: Promise<void>;
}

class Shell implements BackgroundShell {
  status: ShellStatus = "running";
  exit: CommandExit | undefined;
  readonly startedAt = new Date();
  readonly ended: Promise<void>;
  #killing: Promise<void> | undefined;

  constructor(
    readonly id: string,
    readonly command: string,
    readonly description: string | undefined,
    readonly output: OutputCapture,
    readonly process: CommandProcess,
  ) {
    process.onOutput((text) => output.append(text));
    this.ended = process.exited.then((exit) => {
      if (exit.startError) output.append(`Failed to start the shell: ${exit.startError}\n`);
      output.close();
      this.exit = exit;
      if (this.status === "running") this.status = exit.exitCode === 0 ? "completed" : "failed";
    });
  }

  kill(): Promise<void> {
    if (this.status !== "running") return this.#killing ?? this.ended;
    this.status = "killed";
    this.#killing ??= this.process.kill().then(() => this.ended);
    return this.#killing;
  }
}

/**
 * The background shells of one session, with ids `bash_1`, `bash_2`, ... Every shell is
 * stopped when the session is disposed.
 */
export class BackgroundShells {
  readonly #shells = new Map<string, Shell>();
  #next = 1;

  async start(
    options: StartCommandOptions & { pty?: boolean; sessionId: string; description?: string },
  ): Promise<BackgroundShell> {
    const id = `bash_${this.#next++}`;
    const output = new OutputCapture({ spillPath: outputSpillPath(options.sessionId, id) });
    const shell = new Shell(id, options.command, options.description, output, await startCommand(options));
    this.#shells.set(id, shell);
    return shell;
  }

  get(id: string): BackgroundShell | undefined {
    return this.#shells.get(id);
  }

  list(): BackgroundShell[] {
    return [...this.#shells.values()];
  }

  /** Stop a running shell's whole process tree; resolves once it has ended. */
  async kill(id: string): Promise<BackgroundShell | undefined> {
    const shell = this.#shells.get(id);
    if (shell) await shell.kill();
    return shell;
  }

  /** Stop every shell that is still running. */
  async killAll(): Promise<void> {
    const running = [...this.#shells.values()].filter((shell) => shell.status === "running");
    await Promise.all(running.map((shell) => shell.kill()));
  }
}

const KEY = Symbol("gyre.bash.backgroundShells");

/** The session's background shells, created on first use with cleanup registered on the session. */
export function backgroundShellsOf(session: ToolSession): BackgroundShells {
  return session.get(KEY, () => {
    const shells = new BackgroundShells();
    session.onDispose(() => shells.killAll());
    return shells;
  });
}
