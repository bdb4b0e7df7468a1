/** One word of a shell command as written. */
export interface ShellWord {
  /** The source text, quotes and escapes kept. */
  raw: string;
  /**
   * True when the word's value is only known at run time: it holds `$var`, `${…}`, `$(…)`,
   * backticks, arithmetic or a process substitution.
   */
  dynamic: boolean;
}

/** A redirection of one simple command (`> out.txt`, `2>&1`, `<<EOF`). */
export interface ShellRedirect {
  /** The operator without its file descriptor: `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<<`, `<<<`, `>&`, `<&`, `<>`. */
  op: string;
  target: ShellWord;
}

/**
 * One simple command of a compound shell command line. Leading reserved words (`if`, `then`,
 * `do`, `!`, `{`, …) are stripped; leading `NAME=value` assignments are kept apart.
 */
export interface ShellCommand {
  assignments: ShellWord[];
  words: ShellWord[];
  redirects: ShellRedirect[];
}

export type SplitResult = { ok: true; commands: ShellCommand[] } | { ok: false; reason: string };

/** The command's words as one string, single-spaced, quotes kept: what rules are matched against. */
export function commandText(command: ShellCommand, options: { withAssignments?: boolean } = {}): string {
  const words = options.withAssignments ? [...command.assignments, ...command.words] : command.words;
  return words.map((word) => word.raw).join(" ");
}

/** Whether a redirection writes to a file (as opposed to reading, a heredoc, or an fd duplication). */
export function writesFile(redirect: ShellRedirect): boolean {
  if (redirect.op === ">&") return !/^(\d+|-)$/.test(redirect.target.raw);
  return [">", ">>", ">|", "&>", "&>>", "<>"].includes(redirect.op);
}

/** The value of a static word with its quotes and escapes removed. */
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
