import { unquote } from "./shell/shell-command.js";

/** A `Bash(...)` rule's content, compiled to the words it names. */
export type CommandPattern =
  | { kind: "exact"; words: string[] }
  | { kind: "prefix"; words: string[] }
  /** `first`: the program name, when the pattern spells it out (so `git *` never matches a program named `git x`). */
  | { kind: "wildcard"; regex: RegExp; first?: string }
  /** Names a redirection, several commands or an expansion: it matches no single command. */
  | { kind: "never" };

/**
 * Compile Claude Code's command rule forms: `npm run build` (exact), `npm run test:*`
 * (prefix on a word boundary: matches `npm run test` and `npm run test --watch`, never
 * `npm run testx`), and `*` wildcards (`git * main`; a trailing ` *` also matches the bare
 * command, so `ls *` matches `ls` and `ls -la` but not `lsof`). `\*` is a literal star.
 * Rule text is split into words as the shell would, quotes removed.
 */
export function compileCommandPattern(content: string): CommandPattern {
  const prefix = content.endsWith(":*");
  const body = prefix ? content.slice(0, -2) : content;
  const hasWildcard = /(^|[^\\])\*/.test(body);
  const words = ruleWords(body);
  if (words === undefined) return { kind: "never" };
  if (!hasWildcard) return prefix ? { kind: "prefix", words } : { kind: "exact", words };
  // Wildcard rules keep their text (`\*` stays a literal star), single-spaced.
  const text = body.trim().replace(/\s+/g, " ");
  const pattern = prefix ? `${text} *` : text;
  const head = text.split(" ")[0]!;
  const first = /[*'"\\]/.test(head) ? undefined : head;
  return { kind: "wildcard", regex: wildcardRegex(pattern), ...(first === undefined ? {} : { first }) };
}

/**
 * Whether a command's words (their values) match the pattern — word for word, so that a
 * quoted `'git status'` is never the program `git` with argument `status`. Allow rules use this.
 */
export function matchesCommand(pattern: CommandPattern, argv: readonly string[]): boolean {
  switch (pattern.kind) {
    case "exact":
      return argv.length === pattern.words.length && pattern.words.every((word, i) => argv[i] === word);
    case "prefix":
      return argv.length >= pattern.words.length && pattern.words.every((word, i) => argv[i] === word);
    case "wildcard":
      return (pattern.first === undefined || argv[0] === pattern.first) && pattern.regex.test(argv.join(" "));
    case "never":
      return false;
  }
}

/**
 * Whether the command's text (words joined by single spaces) matches: looser than
 * `matchesCommand`, so deny and ask rules also catch `env -S 'rm -rf x'`.
 */
export function matchesCommandText(pattern: CommandPattern, text: string): boolean {
  switch (pattern.kind) {
    case "exact":
      return text === pattern.words.join(" ");
    case "prefix": {
      const prefix = pattern.words.join(" ");
      return text === prefix || text.startsWith(`${prefix} `);
    }
    case "wildcard":
      return pattern.regex.test(text);
    case "never":
      return false;
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

/**
 * The words of a rule as the user wrote them, quotes removed; `undefined` when the rule
 * holds shell syntax that makes it more than one simple command (`;`, `|`, `>`, `$`, …).
 */
function ruleWords(text: string): string[] | undefined {
  const words: string[] = [];
  let current = "";
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\") {
      current += text.slice(i, i + 2);
      started = true;
      i++;
    } else if (ch === "'" || ch === '"') {
      const end = findClosingQuote(text, i);
      if (end < 0) return undefined;
      const quoted = text.slice(i, end + 1);
      if (ch === '"' && /(^|[^\\])[$`]/.test(quoted)) return undefined;
      current += quoted;
      started = true;
      i = end;
    } else if (/\s/.test(ch)) {
      if (started) words.push(unquote(current));
      current = "";
      started = false;
    } else if (/[;&|<>()$`]/.test(ch)) {
      return undefined;
    } else {
      current += ch;
      started = true;
    }
  }
  if (started) words.push(unquote(current));
  return words.length > 0 ? words : undefined;
}

function findClosingQuote(text: string, start: number): number {
  const quote = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === "\\") i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}
