import path from "node:path";
import { matchesCommand } from "./command-pattern.js";
import type { CompiledRule } from "./compiled-rule.js";
import { matchesPathPattern } from "./path-pattern.js";
import { expandHome, resolveRealPath } from "./resolve-path.js";
import {
  commandText,
  type ShellCommand,
  type ShellWord,
  type SplitResult,
  unquote,
  writesFile,
} from "./shell/shell-command.js";
import { ruleAppliesTo } from "./tool-kinds.js";

/** A Bash call as the rules see it. */
export interface BashCall {
  raw: string;
  split: SplitResult;
  cwd: string;
  home: string;
}

export interface BashAllowResult {
  /** The first rule that allowed a part, when every part was allowed. */
  rule?: CompiledRule;
  /** Commands (single-spaced text) that no allow rule covers; empty when allowed. */
  unmatched: string[];
}

/** Programs that run their arguments as a command; deny and ask rules look through them. */
const WRAPPERS = new Set([
  "command",
  "builtin",
  "exec",
  "nohup",
  "time",
  "nice",
  "env",
  "sudo",
  "xargs",
  "timeout",
]);
const DIRECTORY_CHANGERS = new Set(["cd", "pushd", "popd"]);
const SAFE_TARGETS = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

/**
 * The first deny/ask rule that catches any part of the command line: a `Bash(...)` rule
 * matching any simple command (also with assignments, wrappers like `env`/`sudo` and quotes
 * stripped), or an `Edit(...)` path rule matching a file an output redirection writes.
 * An unparseable line is matched as one string.
 */
export function findBlockingBashRule(
  rules: readonly CompiledRule[],
  call: BashCall,
): CompiledRule | undefined {
  const bashRules = rules.filter((rule) => rule.toolName === "Bash");
  const bare = bashRules.find((rule) => !rule.command);
  if (bare) return bare;
  if (!call.split.ok) {
    const text = call.raw.trim().replace(/\s+/g, " ");
    return bashRules.find((rule) => rule.command && matchesCommand(rule.command, text));
  }
  const editRules = rules.filter((rule) => rule.path && ruleAppliesTo(rule.toolName, "Edit"));
  for (const command of call.split.commands) {
    const texts = blockingCandidates(command);
    const byCommand = bashRules.find((rule) => texts.some((text) => matchesCommand(rule.command!, text)));
    if (byCommand) return byCommand;
    const targets = writtenFiles(command, call);
    const byPath = editRules.find((rule) => matchesPathPattern(rule.path!, targets));
    if (byPath) return byPath;
  }
  return undefined;
}

/**
 * Whether allow rules cover the whole line: every simple command must match an allow rule
 * (as written, assignments included, with a literal command name), and every output
 * redirection must write a static path inside the workspace. Unparseable lines never match.
 */
export function matchAllowBashRules(
  rules: readonly CompiledRule[],
  call: BashCall,
  inWorkspace: (file: string) => boolean,
): BashAllowResult {
  const bashRules = rules.filter((rule) => rule.toolName === "Bash");
  if (!call.split.ok) return { unmatched: [call.raw] };
  const bare = bashRules.find((rule) => !rule.command);
  if (bare) return { rule: bare, unmatched: [] };
  let first: CompiledRule | undefined;
  const unmatched: string[] = [];
  // After a `cd`, relative redirection targets no longer resolve against the call's cwd.
  const movesDirectory = call.split.commands.some((command) =>
    DIRECTORY_CHANGERS.has(unquote(command.words[0]?.raw ?? "")),
  );
  for (const command of call.split.commands) {
    const text = commandText(command, { withAssignments: true });
    const redirectsOk = command.redirects.filter(writesFile).every((redirect) => {
      const target = staticPath(redirect.target, call, movesDirectory);
      return target !== undefined && (SAFE_TARGETS.has(target) || inWorkspace(resolveRealPath(target)));
    });
    if (command.words.length === 0) {
      if (!redirectsOk) unmatched.push(text);
      continue;
    }
    const rule = command.words[0]!.dynamic
      ? undefined
      : bashRules.find((candidate) => matchesCommand(candidate.command!, text));
    if (rule && redirectsOk) first ??= rule;
    else unmatched.push(text);
  }
  if (unmatched.length > 0 || !first) return { unmatched: unmatched.length > 0 ? unmatched : [call.raw] };
  return { rule: first, unmatched: [] };
}

function blockingCandidates(command: ShellCommand): string[] {
  const variants: ShellWord[][] = [
    [...command.assignments, ...command.words],
    command.words,
    unwrap(command.words),
  ];
  const texts = new Set<string>();
  for (const words of variants) {
    texts.add(words.map((word) => word.raw).join(" "));
    texts.add(words.map((word) => (word.dynamic ? word.raw : unquote(word.raw))).join(" "));
  }
  return [...texts];
}

function unwrap(words: readonly ShellWord[]): ShellWord[] {
  const rest = [...words];
  while (rest.length > 0 && WRAPPERS.has(unquote(rest[0]!.raw))) {
    const wrapper = unquote(rest.shift()!.raw);
    while (rest.length > 0 && /^(-|[A-Za-z_][A-Za-z0-9_]*=)/.test(rest[0]!.raw)) rest.shift();
    if ((wrapper === "timeout" || wrapper === "nice") && /^\d/.test(rest[0]?.raw ?? "")) rest.shift();
  }
  return rest;
}

function writtenFiles(command: ShellCommand, call: BashCall): string[] {
  const files: string[] = [];
  for (const redirect of command.redirects.filter(writesFile)) {
    const target = staticPath(redirect.target, call);
    if (target !== undefined) files.push(target, resolveRealPath(target));
  }
  return files;
}

function staticPath(word: ShellWord, call: BashCall, movesDirectory = false): string | undefined {
  if (word.dynamic) return undefined;
  const target = expandHome(unquote(word.raw), call.home);
  if (movesDirectory && !path.isAbsolute(target)) return undefined;
  return path.resolve(call.cwd, target);
}
