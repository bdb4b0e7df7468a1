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
  /** Start noting what the sandbox blocks for a command run in `cwd`; `finish` is given its output. */
  watch(cwd: string): { finish(output: string): SandboxViolation[] };
}

/** Something the sandbox blocked, in words the model can act on. */
export interface SandboxViolation {
  kind: "write" | "read" | "network";
  /** The path, or `host:port`. */
  target: string;
  message: string;
}
