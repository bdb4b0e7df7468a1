/** The first arguments that name a command of `gyre` (or ask for help or the version). */
const COMMANDS = new Set([
  "run",
  "sessions",
  "trust",
  "untrust",
  "mcp",
  "mock-llm",
  "serve",
  "help",
  "--help",
  "-h",
  "--version",
  "-v",
]);

/** Whether `gyre ARGS` is the interactive agent rather than a command: no command named. */
export function namesNoCommand(args: readonly string[]): boolean {
  return args[0] === undefined || !COMMANDS.has(args[0]);
}

/**
 * Whether `gyre ARGS` starts the interactive terminal agent: no command named, and both
 * stdin and stdout are a terminal. Decided before the CLI loads, so print mode never pays
 * for the terminal UI (Ink and React load only here).
 */
export function wantsInteractive(args: readonly string[], stdinIsTty: boolean, stdoutIsTty: boolean): boolean {
  return namesNoCommand(args) && stdinIsTty && stdoutIsTty;
}
