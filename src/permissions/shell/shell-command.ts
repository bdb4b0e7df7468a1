import type { LiteralValue } from "./literal.js";

/** One word of a shell command: its source text, and its value when that is known before it runs. */
export interface ShellWord {
  /** The source text, quotes and escapes kept. */
  raw: string;
  /** Absent when the value is decided at run time (`$var`, `$(…)`, `$'…'`, braces, …). */
  literal?: LiteralValue;
}

/** A redirection of a command or a compound statement (`> out.txt`, `2>&1`, `<<EOF`). */
export interface ShellRedirect {
  /** The operator without its file descriptor: `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<<`, `<<<`, `>&`, `<&`, `<>`. */
  op: string;
  target: ShellWord;
  /** Whether it opens a file for writing (as opposed to reading, a here-document or an fd copy). */
  writes: boolean;
}

/** One simple command: leading `NAME=value` assignments apart from its words. */
export interface ShellCommand {
  assignments: ShellWord[];
  words: ShellWord[];
}

/**
 * What a command line would do, as far as it can be known without running it.
 * `opaque` lists why it cannot be proven inert (empty: every node is one the analysis
 * understands and every word has a known value). `hidden` lists why the commands it runs
 * cannot all be known — code in expansions, command names decided at run time, builtins
 * that evaluate their arguments — so no rule can be sure it does not match.
 */
export interface ShellAnalysis {
  /** Every simple command, in source order, including those inside substitutions and `sh -c '…'`. */
  commands: ShellCommand[];
  redirects: ShellRedirect[];
  opaque: string[];
  hidden: string[];
}

/** The values of a command's words, with the source text standing in for unknown ones. */
export function wordValues(words: readonly ShellWord[]): string[] {
  return words.map((word) => word.literal?.value ?? word.raw);
}

/** The value of a static word with its quotes and escapes removed (for rule text, which the user wrote). */
export function unquote(raw: string): string {
  let out = "";
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i]!;
    if (ch === "\\") {
      out += raw[i + 1] ?? "";
      i += 2;
    } else if (ch === "'") {
      const end = raw.indexOf("'", i + 1);
      out += raw.slice(i + 1, end < 0 ? raw.length : end);
      i = end < 0 ? raw.length : end + 1;
    } else if (ch === '"') {
      i++;
      while (i < raw.length && raw[i] !== '"') {
        if (raw[i] === "\\" && /["\\$`]/.test(raw[i + 1] ?? "")) i++;
        out += raw[i] ?? "";
        i++;
      }
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
