/**
 * What the Bash tools need from an OS sandbox (src/sandbox implements it): the tools only
 * ask whether a call is confined, turn `shell -c script` into the confined argv, and hear
 * what the sandbox blocked while a command ran.
 */
export interface CommandSandbox {
  /** Whether a call runs confined: not when its command is excluded or `dangerouslyDisableSandbox` is honoured. */
  confines(input: { command: string; dangerouslyDisableSandbox?: boolean }): boolean;
  /** Whether `dangerouslyDisableSandbox: true` is honoured (`sandbox.allowUnsandboxedCommands`). */
  readonly allowsUnsandboxed: boolean;
  /** The program and arguments that run `file args` inside the sandbox, in `cwd`. */
  wrap(file: string, args: readonly string[], cwd: string): { file: string; args: string[] };
  /** A host directory the confined command can read (and write): where long scripts are put. */
  readonly temporaryDirectory: string;
  /**
   * Start noting what the sandbox blocks for a command about to run in `cwd` (before `wrap`: the
   * sandbox counts the commands that run). Every watch is ended (`end` or `finish`).
   */
  watch(cwd: string): SandboxWatch;
}

/** One command's watch: what the sandbox blocked and what it undid after the command. */
export interface SandboxWatch {
  /**
   * The command has ended: the workspace is checked now (what the command planted is undone at
   * once) and what was found is kept for `report`, or for the sandbox's close if none comes.
   */
  end(): void;
  /**
   * What the sandbox blocked or undid since the last report (the workspace is checked again
   * while the command runs); `output` is the command's output since then.
   */
  report(output: string): SandboxViolation[];
  /** `end`, then `report`: for a foreground command. */
  finish(output: string): SandboxViolation[];
}

/** Something the sandbox blocked, in words the model can act on. */
export interface SandboxViolation {
  kind: "write" | "read" | "network";
  /** The path, or `host:port`. */
  target: string;
  message: string;
}
