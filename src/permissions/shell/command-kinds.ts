import path from "node:path";

/**
 * Programs that run (part of) their arguments as another command. Deny and ask rules look
 * through them: every suffix of a wrapper's arguments is tried as a command, so their
 * options need no table (`timeout -s KILL 5 rm x` is caught at `rm x`).
 */
export const WRAPPERS: ReadonlySet<string> = new Set([
  "builtin",
  "busybox",
  "chroot",
  "chrt",
  "command",
  "coproc",
  "doas",
  "env",
  "exec",
  "fakeroot",
  "find",
  "firejail",
  "flock",
  "ionice",
  "ltrace",
  "nice",
  "nohup",
  "nsenter",
  "parallel",
  "runuser",
  "setsid",
  "stdbuf",
  "strace",
  "sudo",
  "taskset",
  "time",
  "timeout",
  "unbuffer",
  "unshare",
  "watch",
  "xargs",
]);

/** Shells whose `-c` argument is a script: it is parsed and its commands judged too. */
const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"]);

/**
 * Builtins that evaluate their arguments as code or as arithmetic (where `a[$(cmd)]` runs
 * `cmd`), or change how later words are read. A prefix rule never vouches for them: with
 * `Bash(printf:*)`, `printf -v 'a[$(touch p)]' x` runs `touch`.
 */
const EVALUATORS: ReadonlySet<string> = new Set([
  ".",
  "alias",
  "bind",
  "complete",
  "compgen",
  "declare",
  "enable",
  "eval",
  "export",
  "fc",
  "getopts",
  "hash",
  "let",
  "local",
  "mapfile",
  "read",
  "readarray",
  "readonly",
  "shopt",
  "source",
  "trap",
  "typeset",
  "unalias",
  "unset",
  "wait",
]);

/** Builtins that evaluate only with one of these options (`printf -v 'a[$(id)]'`, `[ -v 'a[$(id)]' ]`). */
const EVALUATING_OPTIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["printf", new Set(["-v"])],
  ["test", new Set(["-v", "-R"])],
  ["[", new Set(["-v", "-R"])],
]);

/**
 * Variables that change which program a name runs or what bash runs on its own (`PATH`,
 * `BASH_ENV`, `LD_PRELOAD`, `BASH_FUNC_x%%`, …): assigning one hides what runs next.
 */
export function isDangerousVariable(name: string): boolean {
  return DANGEROUS_VARIABLES.has(name) || /^(LD_|DYLD_|BASH_FUNC_)/.test(name);
}

const DANGEROUS_VARIABLES: ReadonlySet<string> = new Set([
  "PATH",
  "BASH_ENV",
  "ENV",
  "IFS",
  "CDPATH",
  "GLOBIGNORE",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  "BASH_LOADABLES_PATH",
  "EXECIGNORE",
]);

/** The program name as rules see it: `/usr/bin/rm` and `./rm` are `rm`. */
export function programName(word: string): string {
  return word.includes("/") ? path.posix.basename(word) : word;
}

/** Why running these words hides code, if it does. */
export function evaluates(argv: readonly string[]): string | undefined {
  const name = programName(argv[0] ?? "");
  if (EVALUATORS.has(name)) return `\`${name}\` evaluates its arguments`;
  const options = EVALUATING_OPTIONS.get(name);
  if (options && argv.slice(1).some((arg) => options.has(arg))) {
    return `\`${name}\` with ${argv.find((arg) => options.has(arg))} evaluates its arguments`;
  }
  return undefined;
}

/**
 * For a shell invocation: the `-c` script (`bash -lc 'rm x'` → `rm x`), `null` when the shell
 * reads its commands from a file or stdin (unknowable here), `undefined` when `argv` is not a shell.
 */
export function shellScript(argv: readonly string[]): { index: number } | null | undefined {
  if (!SHELLS.has(programName(argv[0] ?? ""))) return undefined;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--" || !arg.startsWith("-")) return null;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) return i + 1 < argv.length ? { index: i + 1 } : null;
    // `-o option` takes a value.
    if (arg === "-o" || arg === "+o" || arg === "-O" || arg === "+O") i++;
  }
  return null;
}

/** Commands whose arguments are only read, so naming a protected file with them writes nothing. */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  "basename",
  "cat",
  "cmp",
  "diff",
  "dirname",
  "du",
  "echo",
  "egrep",
  "fgrep",
  "file",
  "grep",
  "head",
  "less",
  "ls",
  "md5sum",
  "more",
  "pwd",
  "readlink",
  "realpath",
  "rg",
  "sha1sum",
  "sha256sum",
  "stat",
  "tail",
  "test",
  "[",
  "tree",
  "wc",
]);
