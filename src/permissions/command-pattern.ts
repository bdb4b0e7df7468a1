import { commandText } from "./shell/shell-command.js";
import { splitCommand } from "./shell/split-command.js";

/** A `Bash(...)` rule's content, compiled. */
export type CommandPattern =
  | { kind: "exact"; text: string }
  | { kind: "prefix"; prefix: string }
  | { kind: "wildcard"; regex: RegExp };

/**
 * Compile Claude Code's command rule forms: `npm run build` (exact), `npm run test:*`
 * (prefix on a word boundary: matches `npm run test` and `npm run test --watch`, never
 * `npm run testx`), and `*` wildcards (`git * main`; a trailing ` *` also matches the bare
 * command, so `ls *` matches `ls` and `ls -la` but not `lsof`). `\*` is a literal star.
 */
export function compileCommandPattern(content: string): CommandPattern {
  const hasWildcard = /(^|[^\\])\*/.test(content.endsWith(":*") ? content.slice(0, -2) : content);
  if (!hasWildcard && content.endsWith(":*"))
    return { kind: "prefix", prefix: normalize(content.slice(0, -2)) };
  if (!hasWildcard) return { kind: "exact", text: normalize(content.replace(/\\\*/g, "*")) };
  const pattern = collapse(content.endsWith(":*") ? `${content.slice(0, -2)} *` : content);
  return { kind: "wildcard", regex: wildcardRegex(pattern) };
}

/** Whether a single command's text (see `commandText`) matches the pattern. */
export function matchesCommand(pattern: CommandPattern, text: string): boolean {
  switch (pattern.kind) {
    case "exact":
      return text === pattern.text;
    case "prefix":
      return text === pattern.prefix || text.startsWith(`${pattern.prefix} `);
    case "wildcard":
      return pattern.regex.test(text);
  }
}

function wildcardRegex(pattern: string): RegExp {
  const trailing = pattern.endsWith(" *") && !pattern.endsWith("\\ *");
  const body = trailing ? pattern.slice(0, -2) : pattern;
  let source = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === "\\" && body[i + 1] === "*") {
      source += "\\*";
      i++;
    } else if (ch === "*") source += ".*";
    else source += ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}${trailing ? "(?: .*)?" : ""}$`, "s");
}

/** Rule text in the same single-spaced form `commandText` gives commands. */
function normalize(text: string): string {
  const split = splitCommand(text);
  const only = split.ok && split.commands.length === 1 ? split.commands[0] : undefined;
  // A rule naming a redirection or several commands keeps its text, so it matches no single command.
  if (!only || only.redirects.length > 0) return collapse(text);
  return commandText(only, { withAssignments: true });
}

function collapse(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}
