import type { ToolSession } from "../../tool-session.js";
import type { CommandExit, CommandProcess, StartCommandOptions } from "./command-process.js";
import type { SandboxViolation, SandboxWatch } from "./command-sandbox.js";
import { OutputCapture } from "./output-capture.js";
import type { StopReport } from "./process-tree.js";
import { type SpillDirectory, spillDirectoryOf } from "./spill-directory.js";
import { startCommand } from "./start-command.js";

/** `completed`: exit code 0; `failed`: any other end; `killed`: by KillShell or the session ending. */
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
  /**
   * What the sandbox blocked since the last call, judged on `output` (the output read since
   * then); always empty for a shell that runs unsandboxed.
   */
  takeViolations(output: string): SandboxViolation[];
}

/** How long a stop waits for the output to close once the processes are gone. */
const OUTPUT_CLOSE_WAIT_MS = 1_000;

class Shell implements BackgroundShell {
  status: ShellStatus = "running";
  exit: CommandExit | undefined;
  readonly startedAt = new Date();
  readonly ended: Promise<void>;
  #stopping: Promise<StopReport> | undefined;
  readonly #watch: SandboxWatch | undefined;

  constructor(
    readonly id: string,
    readonly command: string,
    readonly description: string | undefined,
    readonly output: OutputCapture,
    readonly process: CommandProcess,
    watch: SandboxWatch | undefined,
  ) {
    this.#watch = watch;
    process.onOutput((text) => output.append(text));
    this.ended = process.exited.then((exit) => {
      if (exit.startError) output.append(`Failed to start the shell: ${exit.startError}\n`);
      output.close();
      this.exit = exit;
      if (this.status === "running") this.status = exit.exitCode === 0 ? "completed" : "failed";
      // What it planted is undone as it ends, not at the next read of its output (which may never come).
      watch?.end();
    });
  }

  takeViolations(output: string): SandboxViolation[] {
    return this.#watch?.report(output) ?? [];
  }

  /**
   * Stop the shell's processes: the shell and all it started while it runs, whatever it left
   * running once it has ended. Resolves with what was verified.
   */
  stop(): Promise<StopReport> {
    if (this.status === "running") this.status = "killed";
    this.#stopping ??= this.process
      .kill()
      .then(async (report) => {
        // Output closes once its writers are gone; one that cannot be found must not hang us.
        if (report.survivors.length === 0) await Promise.race([this.ended, delay(OUTPUT_CLOSE_WAIT_MS)]);
        return report;
      })
      .finally(() => {
        this.#stopping = undefined;
      });
    return this.#stopping;
  }
}

/**
 * The background shells of one session, with ids `bash_1`, `bash_2`, ... A shell owns the
 * processes it starts until KillShell stops it or the session is disposed, which stops every
 * shell and whatever the ended ones left running.
 */
export class BackgroundShells {
  readonly #shells = new Map<string, Shell>();
  readonly #spills: SpillDirectory | undefined;
  #next = 1;

  /** `spills`: where long outputs are saved (none: memory only). */
  constructor(spills?: SpillDirectory) {
    this.#spills = spills;
  }

  async start(
    options: StartCommandOptions & { pty?: boolean; description?: string; maxOutputFileBytes?: number },
  ): Promise<BackgroundShell> {
    const id = `bash_${this.#next++}`;
    const spills = this.#spills;
    const output = new OutputCapture({ openSpill: () => spills?.create(id, options.maxOutputFileBytes) });
    // Watched from before it starts: the sandbox counts the commands that run.
    const watch = options.sandbox?.watch(options.cwd);
    let process: CommandProcess;
    try {
      process = await startCommand({ ...options, background: true });
    } catch (error) {
      watch?.end();
      throw error;
    }
    const shell = new Shell(id, options.command, options.description, output, process, watch);
    this.#shells.set(id, shell);
    return shell;
  }

  get(id: string): BackgroundShell | undefined {
    return this.#shells.get(id);
  }

  list(): BackgroundShell[] {
    return [...this.#shells.values()];
  }

  /**
   * Stop a shell's processes (a running shell becomes `killed`); resolves once they are
   * gone, with the report of what was verified. Undefined for an unknown id.
   */
  async kill(id: string): Promise<{ shell: BackgroundShell; report: StopReport } | undefined> {
    const shell = this.#shells.get(id);
    if (!shell) return undefined;
    return { shell, report: await shell.stop() };
  }

  /** Stop every shell, and what ended shells left running. */
  async killAll(): Promise<void> {
    await Promise.all([...this.#shells.values()].map((shell) => shell.stop()));
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

const KEY = Symbol("gyre.bash.backgroundShells");

/** The session's background shells, created on first use with cleanup registered on the session. */
export function backgroundShellsOf(session: ToolSession): BackgroundShells {
  return session.get(KEY, () => {
    // Registered first so that it is disposed last: shells stop writing before their files go.
    const spills = spillDirectoryOf(session);
    const shells = new BackgroundShells(spills);
    session.onDispose(() => shells.killAll());
    return shells;
  });
}
