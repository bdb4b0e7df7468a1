import { lstatSync } from "node:fs";
import path from "node:path";
import { matchesCommand, matchesCommandText } from "./command-pattern.js";
import type { CompiledRule } from "./compiled-rule.js";
import { matchesPathPattern } from "./path-pattern.js";
import { globMayMatchProtected, isProtectedPath, mentionsProtectedPath } from "./protected-paths.js";
import { readsProcessState } from "./process-paths.js";
import { expandHome, resolveRealPath } from "./resolve-path.js";
import { programName, READ_ONLY_COMMANDS, WRAPPERS } from "./shell/command-kinds.js";
import {
  type ShellAnalysis,
  type ShellCommand,
  type ShellRedirect,
  type ShellWord,
  wordValues,
} from "./shell/shell-command.js";
import { ruleAppliesTo } from "./tool-kinds.js";

/** A Bash call as the rules see it. */
export interface BashCall {
  raw: string;
  analysis: ShellAnalysis;
  cwd: string;
  home: string;
}

export interface BashAllowResult {
  /** The first rule that allowed a part, when every part was allowed. */
  rule?: CompiledRule;
  /** Commands (as rule text) that no allow rule covers; empty when allowed. */
  unmatched: string[];
}

const DIRECTORY_CHANGERS = new Set(["cd", "pushd", "popd"]);
/** Programs that write files named by their arguments, or run code passed as one. */
const WRITE_ARGUMENTS = new Set([
  "cp",
  "mv",
  "ln",
  "install",
  "rsync",
  "tee",
  "dd",
  "touch",
  "truncate",
  "mkdir",
  "rm",
  "rmdir",
  "chmod",
  "chown",
  "chgrp",
  "sed",
  "awk",
  "gawk",
  "perl",
  "python",
  "python3",
  "node",
  "ruby",
  "php",
  "tar",
  "unzip",
  "zip",
  "gzip",
  "gunzip",
  "curl",
  "wget",
  "patch",
  "split",
  "csplit",
  "sort",
]);
const SAFE_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

/**
 * The first deny/ask rule that catches any command of the line — including those inside
 * substitutions, `sh -c '…'` scripts and behind wrappers (`timeout 5 rm`, `env -u X rm`,
 * `/bin/rm`, `'r'm`) — or an `Edit(...)` path rule matching a file a redirection writes.
 */
export function findBlockingBashRule(rules: readonly CompiledRule[], call: BashCall): CompiledRule | undefined {
  const bashRules = rules.filter((rule) => rule.toolName === "Bash");
  const bare = bashRules.find((rule) => !rule.command);
  if (bare) return bare;
  for (const command of call.analysis.commands) {
    const texts = blockingCandidates(command);
    const byCommand = bashRules.find((rule) => texts.some((text) => matchesCommandText(rule.command!, text)));
    if (byCommand) return byCommand;
  }
  const editRules = rules.filter((rule) => rule.path && ruleAppliesTo(rule.toolName, "Edit"));
  if (editRules.length === 0) return undefined;
  const targets = call.analysis.redirects.flatMap((redirect) => writtenFiles(redirect, call));
  return editRules.find((rule) => matchesPathPattern(rule.path!, targets));
}

/**
 * Why a deny/ask rule might catch this line although none matched what the analysis saw:
 * code it cannot see (expansions that run code, command names decided at run time,
 * `eval`), or a redirection to a file it cannot name. Such a line must not be allowed
 * without asking while those rules exist.
 */
export function blockingUncertainty(
  rules: readonly CompiledRule[],
  call: BashCall,
): { rule: CompiledRule; reason: string } | undefined {
  const commandRule = rules.find((rule) => rule.toolName === "Bash" && rule.command);
  if (commandRule && call.analysis.hidden.length > 0) return { rule: commandRule, reason: call.analysis.hidden[0]! };
  const editRule = rules.find((rule) => rule.path && ruleAppliesTo(rule.toolName, "Edit"));
  const unknown = editRule && unknownWriteTarget(call);
  if (editRule && unknown) return { rule: editRule, reason: unknown };
  return undefined;
}

/**
 * Whether allow rules cover the whole line: it must be inert (see `ShellAnalysis.opaque`),
 * every simple command must match an allow rule word for word (assignments included), and
 * every output redirection must write a literal path inside the workspace.
 */
export function matchAllowBashRules(
  rules: readonly CompiledRule[],
  call: BashCall,
  inWorkspace: (file: string) => boolean,
): BashAllowResult {
  const bashRules = rules.filter((rule) => rule.toolName === "Bash");
  const bare = bashRules.find((rule) => !rule.command);
  if (bare) {
    const reason = call.analysis.hidden[0];
    return reason === undefined ? { rule: bare, unmatched: [] } : { unmatched: [call.raw] };
  }
  if (call.analysis.opaque.length > 0) return { unmatched: [call.raw] };
  const redirectsOk = call.analysis.redirects
    .filter((redirect) => redirect.writes)
    .every((redirect) => {
      const target = staticTarget(redirect, call);
      return target !== undefined && (SAFE_TARGETS.has(target) || inWorkspace(resolveRealPath(target)));
    });
  let first: CompiledRule | undefined;
  const unmatched: string[] = [];
  for (const command of call.analysis.commands) {
    const argv = wordValues([...command.assignments, ...command.words]);
    const rule = bashRules.find((candidate) => matchesCommand(candidate.command!, argv));
    if (rule) first ??= rule;
    else unmatched.push(ruleText(argv));
  }
  if (!redirectsOk) return { unmatched: unmatched.length > 0 ? unmatched : [call.raw] };
  if (unmatched.length > 0 || !first) return { unmatched: unmatched.length > 0 ? unmatched : [call.raw] };
  return { rule: first, unmatched: [] };
}

/**
 * Why the line may write a protected path (`.git/`, `.gyre/`, settings — see
 * protected-paths.ts): a redirection there or to a file it cannot name, a command that is
 * not read-only naming one (also through a symlink or a glob), `git config` setting a value,
 * or code it cannot see.
 */
export function protectedWrite(call: BashCall): string | undefined {
  const { analysis } = call;
  if (analysis.hidden.length > 0) return `it cannot be known what the command writes: ${analysis.hidden[0]}`;
  const unknown = unknownWriteTarget(call);
  if (unknown) return unknown;
  for (const redirect of analysis.redirects.filter((r) => r.writes)) {
    const target = staticTarget(redirect, call)!;
    if (isProtectedPath(target) || isProtectedPath(resolveRealPath(target))) {
      return `it writes ${target}, which controls the agent or the repository`;
    }
  }
  for (const command of analysis.commands) {
    for (const argv of runnableTails(command)) {
      const reason = protectedArgument(argv, command, call);
      if (reason) return reason;
    }
  }
  return undefined;
}

/**
 * Why the line may read another process's state through `/proc` (its environment holds API
 * keys; see process-paths.ts): a path argument or an input redirection naming `/proc/<pid>/…`,
 * `/proc/self/…`, `/proc` or `/` — as written, as a glob, after a `cd`, or through a symlink.
 * Such a read is outside the workspace: asked about even under an allow rule.
 */
export function processStateRead(call: BashCall): string | undefined {
  const directories = possibleDirectories(call);
  const reads = call.analysis.redirects.filter((redirect) => !redirect.writes).map((redirect) => redirect.target);
  for (const word of [...call.analysis.commands.flatMap((command) => command.words), ...reads]) {
    const literal = word.literal;
    if (!literal) continue;
    for (const candidate of pathCandidates(literal.value)) {
      const file = expandHome(candidate, call.home);
      const bases = path.isAbsolute(file) ? [call.cwd] : directories;
      if (bases.some((base) => namesProcessState(path.resolve(base, file), literal.glob, base)))
        return `\`${word.raw}\` reads another process's state in /proc, outside the workspace`;
    }
  }
  return undefined;
}

/** The argument itself, and the value of `--opt=value` and `-xVALUE`-style options. */
function pathCandidates(value: string): string[] {
  if (!value.startsWith("-")) return [value];
  const at = value.indexOf("=");
  if (at >= 0) return [value.slice(at + 1)];
  const slash = value.indexOf("/");
  return slash > 0 ? [value.slice(slash)] : [];
}

function namesProcessState(file: string, glob: boolean, base: string): boolean {
  if (readsProcessState(file, glob)) return true;
  if (glob || !mayBeLink(file, base)) return false;
  return readsProcessState(resolveRealPath(file));
}

/** Whether a symlink may stand in the path: anything absolute, or a relative path whose first component is one. */
function mayBeLink(file: string, base: string): boolean {
  const relative = path.relative(base, file);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return true;
  const first = path.join(base, relative.split(path.sep)[0]!);
  const stat = lstatSync(first, { throwIfNoEntry: false });
  return stat !== undefined && (stat.isSymbolicLink() || first !== file);
}

/**
 * Every folder a relative path of the line may be resolved from: the call's, and whatever the
 * line's `cd`s may lead to, in any order; `/` when a `cd` goes where the text does not say.
 */
function possibleDirectories(call: BashCall): string[] {
  const directories = new Set([call.cwd]);
  for (const command of call.analysis.commands) {
    if (!DIRECTORY_CHANGERS.has(command.words[0]?.literal?.value ?? "")) continue;
    const isOption = (word: ShellWord) => word.literal?.value.startsWith("-") === true && word.literal.value !== "-";
    const target = command.words.slice(1).find((word) => !isOption(word));
    const value = target?.literal?.value;
    const known = command.words[0]!.literal!.value !== "popd" && (target === undefined || (value && value !== "-"));
    if (!known || target?.literal?.glob) return ["/"];
    const next =
      value === undefined
        ? [call.home]
        : [...directories].map((dir) => path.resolve(dir, expandHome(value, call.home)));
    for (const directory of next) directories.add(directory);
  }
  return [...directories];
}

function protectedArgument(argv: string[], command: ShellCommand, call: BashCall): string | undefined {
  const name = programName(argv[0] ?? "");
  if (name === "git" && setsGitConfig(argv)) return "`git config` changes the repository's configuration";
  if (READ_ONLY_COMMANDS.has(name)) return undefined;
  const words = command.words.slice(command.words.length - argv.length);
  for (const [i, word] of words.entries()) {
    if (i === 0) continue;
    if (!word.literal) {
      // Only programs that write the paths they are given (or run code they are given) can
      // reach a protected file through an argument decided at run time: `git commit -m "$(…)"`
      // is not asked about, `cp x "$d/config"` is.
      if (WRITE_ARGUMENTS.has(name)) return `it cannot be known which files \`${name}\` writes: \`${word.raw}\``;
      continue;
    }
    const value = word.literal.value;
    if (mentionsProtectedPath(value) || (word.literal.glob && globMayMatchProtected(value))) {
      return `\`${name}\` names ${value}, which controls the agent or the repository`;
    }
    if (!value.startsWith("-") && linksToProtected(path.resolve(call.cwd, value), call.cwd)) {
      return `\`${name}\` names ${value}, which leads to a file that controls the agent or the repository`;
    }
  }
  return undefined;
}

/**
 * A path that leads, through a symlink, to a protected one its text does not name. Only a
 * path whose first component exists can go through one: a single lstat rules out the
 * usual arguments (`test`, `status`, `-la`) before any resolving.
 */
function linksToProtected(file: string, cwd: string): boolean {
  const relative = path.relative(cwd, file);
  if (relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)) {
    const first = path.join(cwd, relative.split(path.sep)[0]!);
    const stat = lstatSync(first, { throwIfNoEntry: false });
    if (!stat || (!stat.isSymbolicLink() && first === file)) return false;
  }
  const real = resolveRealPath(file);
  return real !== file && isProtectedPath(real);
}

/** `git config a b`, `git config set …`: anything but reading. */
function setsGitConfig(argv: readonly string[]): boolean {
  const at = argv.indexOf("config");
  if (at < 0) return false;
  const rest = argv.slice(at + 1);
  const reads = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "get", "list"];
  return !rest.some((arg) => reads.includes(arg));
}

/** The command and, behind a wrapper, every tail that may be the command it runs. */
function runnableTails(command: ShellCommand): string[][] {
  const argv = wordValues(command.words);
  if (!WRAPPERS.has(programName(argv[0] ?? ""))) return [argv];
  return argv.map((_, i) => argv.slice(i));
}

function blockingCandidates(command: ShellCommand): string[] {
  const texts = new Set<string>();
  const withAssignments = wordValues([...command.assignments, ...command.words]);
  texts.add(withAssignments.join(" "));
  for (const tail of runnableTails(command)) {
    texts.add(tail.join(" "));
    if (tail[0]?.includes("/")) texts.add([programName(tail[0]), ...tail.slice(1)].join(" "));
  }
  return [...texts];
}

/** Why some redirection writes a file that cannot be named before the command runs. */
function unknownWriteTarget(call: BashCall): string | undefined {
  for (const redirect of call.analysis.redirects.filter((r) => r.writes)) {
    if (staticTarget(redirect, call) === undefined) {
      return `it writes to \`${redirect.target.raw}\`, a file known only when it runs`;
    }
  }
  return undefined;
}

function writtenFiles(redirect: ShellRedirect, call: BashCall): string[] {
  if (!redirect.writes) return [];
  const target = staticTarget(redirect, call);
  return target === undefined ? [] : [target, resolveRealPath(target)];
}

/** The absolute path a redirection writes, when it is known: literal, no glob, not relative after a `cd`. */
function staticTarget(redirect: ShellRedirect, call: BashCall): string | undefined {
  const literal = redirect.target.literal;
  if (!literal || literal.glob) return undefined;
  const target = expandHome(literal.value, call.home);
  if (!path.isAbsolute(target) && movesDirectory(call.analysis)) return undefined;
  return path.resolve(call.cwd, target);
}

/** After a `cd`, relative paths no longer resolve against the call's cwd. */
function movesDirectory(analysis: ShellAnalysis): boolean {
  return analysis.commands.some((command) => DIRECTORY_CHANGERS.has(command.words[0]?.literal?.value ?? ""));
}

/** A command as the text of an exact rule that would allow it. */
function ruleText(argv: readonly string[]): string {
  return argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(" ");
}
