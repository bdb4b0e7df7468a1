/** The first arguments that name a command of `gyre` (or ask for help or the version). */
const COMMANDS = new Set([
  "run",
  "sessions",
  "trust",
  "untrust",
  "mcp",
  "mock-llm",
  "serve",
  "doctor",
  "help",
  "--help",
  "-h",
  "--version",
  "-v",
]);

/** The options before `--` (what follows it belongs to a command gyre starts, or is a prompt). */
function optionsPart(args: readonly string[]): readonly string[] {
  const end = args.indexOf("--");
  return end === -1 ? args : args.slice(0, end);
}

/** Whether the arguments ask for help: `--help` or `-h` before any `--`. */
export function asksForHelp(args: readonly string[]): boolean {
  const options = optionsPart(args);
  return options.includes("--help") || options.includes("-h");
}

/** Whether `gyre ARGS` asks for print mode with claude's flag: `-p` or `--print` before any `--`. */
export function namesPrintMode(args: readonly string[]): boolean {
  if (args[0] !== undefined && COMMANDS.has(args[0])) return false;
  const options = optionsPart(args);
  return options.includes("-p") || options.includes("--print");
}

/** The arguments of `gyre -p …` for `gyre run`: without the `-p`/`--print` flag. */
export function withoutPrintFlag(args: readonly string[]): string[] {
  const end = args.indexOf("--");
  return args.filter((arg, index) => (end !== -1 && index >= end) || (arg !== "-p" && arg !== "--print"));
}

/** Whether `gyre ARGS` is the interactive agent rather than a command: no command named, no help asked. */
export function namesNoCommand(args: readonly string[]): boolean {
  if (asksForHelp(args) || namesPrintMode(args)) return false;
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
