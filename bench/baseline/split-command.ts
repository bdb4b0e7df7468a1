// The hand-written splitter Gyre used before the tree-sitter analysis (src/permissions/shell/analyze.ts),
// kept only as the baseline of bench/permissions.bench.mjs. Not part of the package.
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

/**
 * Split a shell command line into the simple commands it would run, following bash's
 * quoting rules: `&&`, `||`, `;`, `|`, `|&`, `&` and newlines separate commands; the bodies of
 * `$(…)`, backticks, `<(…)`, subshells `( … )` and unquoted here-documents contribute their
 * own commands; operators inside quotes are text.
 *
 * It is deliberately conservative: constructs it does not model (`case`, function
 * definitions, arithmetic commands, array assignments, unterminated quotes or
 * here-documents) make the whole line unparseable, and callers must then not treat it as
 * matching any allow rule.
 *
 * Hand-written rather than a dependency: `shell-quote` flattens `$(…)` and heredocs into
 * operator tokens; `sh-syntax` (mvdan/sh in WASM) is async, starts a Go runtime per parse and
 * its JSON bridge drops node kinds and children; tree-sitter needs async WASM loading.
 */
export function splitCommand(command: string): SplitResult {
  const commands: ShellCommand[] = [];
  try {
    new Scanner(command, commands, 0).run();
    return { ok: true, commands };
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { ok: false, reason: error.message };
    throw error;
  }
}

class ShellSyntaxError extends Error {}

/** Reserved words that may open or close a compound command; stripped from command starts. */
const RESERVED = new Set(["if", "then", "else", "elif", "fi", "while", "until", "do", "done", "!", "{", "}", "time"]);
/** Constructs not modelled: their presence makes the line unparseable. */
const UNSUPPORTED = new Set(["case", "esac", "function", "coproc", "select"]);
const WORD_END = /[ \t\n;&|()<>]/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const REDIRECT_OPS = ["&>>", "&>", "<<<", "<<-", "<<", ">>", ">|", ">&", "<&", "<>", ">", "<"];
const MAX_DEPTH = 32;

interface Draft {
  words: ShellWord[];
  redirects: ShellRedirect[];
}

interface PendingHeredoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
}

class Scanner {
  readonly #src: string;
  readonly #out: ShellCommand[];
  readonly #depth: number;
  #i = 0;
  #heredocs: PendingHeredoc[] = [];

  constructor(src: string, out: ShellCommand[], depth: number) {
    if (depth > MAX_DEPTH) throw new ShellSyntaxError("command nesting is too deep");
    this.#src = src;
    this.#out = out;
    this.#depth = depth;
  }

  run(): void {
    this.#sequence(false);
    if (this.#heredocs.length > 0) throw new ShellSyntaxError("unterminated here-document");
  }

  /** Scan a here-document body or other text where only expansions are active. */
  expansions(): void {
    const src = this.#src;
    while (this.#i < src.length) {
      const ch = src[this.#i];
      if (ch === "\\") this.#i += 2;
      else if (ch === "$") this.#dollar();
      else if (ch === "`") this.#backtick();
      else this.#i++;
    }
  }

  #sequence(nested: boolean): void {
    const src = this.#src;
    let draft: Draft = { words: [], redirects: [] };
    const finish = () => {
      this.#emit(draft);
      draft = { words: [], redirects: [] };
    };
    for (;;) {
      this.#skipBlanks();
      const ch = src[this.#i];
      const next = src[this.#i + 1];
      if (ch === undefined) {
        if (nested) throw new ShellSyntaxError("missing closing parenthesis");
        finish();
        return;
      }
      if (ch === ")") {
        if (!nested) throw new ShellSyntaxError("unexpected ')'");
        this.#i++;
        finish();
        return;
      }
      if (ch === "#") this.#skipComment();
      else if (ch === "\n") {
        this.#i++;
        finish();
        this.#readHeredocs();
      } else if (ch === ";") {
        if (next === ";") throw new ShellSyntaxError("';;' outside a case statement");
        this.#i++;
        finish();
      } else if (ch === "|") {
        this.#i += next === "|" || next === "&" ? 2 : 1;
        finish();
      } else if (ch === "&" && next !== ">") {
        this.#i += next === "&" ? 2 : 1;
        finish();
      } else if (ch === "(") {
        if (draft.words.some((word) => !isReserved(word))) throw new ShellSyntaxError("unexpected '('");
        if (next === "(") throw new ShellSyntaxError("arithmetic commands are not supported");
        this.#i++;
        this.#sequence(true);
      } else if ((ch === "<" || ch === ">") && next === "(") {
        draft.words.push(this.#processSubstitution());
      } else if (ch === "<" || ch === ">" || ch === "&" || /^\d+[<>]/.test(src.slice(this.#i, this.#i + 12))) {
        draft.redirects.push(this.#redirect());
      } else {
        draft.words.push(this.#word());
      }
    }
  }

  #emit(draft: Draft): void {
    const words = [...draft.words];
    while (words.length > 0 && isReserved(words[0]!)) words.shift();
    const first = words[0];
    if (first && !first.dynamic && UNSUPPORTED.has(first.raw)) {
      throw new ShellSyntaxError(`'${first.raw}' is not supported`);
    }
    // A `for` header names a variable and a word list; its expansions were already scanned.
    if (first && !first.dynamic && first.raw === "for") words.length = 0;
    const assignments: ShellWord[] = [];
    while (words.length > 0 && ASSIGNMENT.test(words[0]!.raw)) assignments.push(words.shift()!);
    if (words.length + assignments.length + draft.redirects.length === 0) return;
    this.#out.push({ assignments, words, redirects: draft.redirects });
  }

  #word(): ShellWord {
    const src = this.#src;
    const start = this.#i;
    let dynamic = false;
    while (this.#i < src.length) {
      const ch = src[this.#i]!;
      if (WORD_END.test(ch)) break;
      if (ch === "\\") this.#i += 2;
      else if (ch === "'") this.#singleQuoted();
      else if (ch === '"') {
        this.#i++;
        dynamic = this.#doubleQuoted() || dynamic;
      } else if (ch === "`") {
        this.#backtick();
        dynamic = true;
      } else if (ch === "$") dynamic = this.#dollar() || dynamic;
      else this.#i++;
    }
    if (this.#i === start) throw new ShellSyntaxError(`unexpected '${src[start] ?? "end of input"}'`);
    return { raw: src.slice(start, Math.min(this.#i, src.length)), dynamic };
  }

  #redirect(): ShellRedirect {
    const src = this.#src;
    while (/\d/.test(src[this.#i] ?? "")) this.#i++;
    const op = REDIRECT_OPS.find((candidate) => src.startsWith(candidate, this.#i));
    if (!op) throw new ShellSyntaxError(`unexpected '${src[this.#i]}'`);
    this.#i += op.length;
    this.#skipBlanks();
    const target = this.#word();
    if (op === "<<" || op === "<<-") {
      this.#heredocs.push({
        delimiter: unquoteDelimiter(target.raw),
        quoted: /['"\\]/.test(target.raw),
        stripTabs: op === "<<-",
      });
      return { op: "<<", target };
    }
    return { op, target };
  }

  #processSubstitution(): ShellWord {
    const start = this.#i;
    this.#i += 2;
    this.#sequence(true);
    return { raw: this.#src.slice(start, this.#i), dynamic: true };
  }

  #singleQuoted(): void {
    const end = this.#src.indexOf("'", this.#i + 1);
    if (end < 0) throw new ShellSyntaxError("unterminated single quote");
    this.#i = end + 1;
  }

  /** Scan past a double-quoted string (opening quote already consumed); true if it expands. */
  #doubleQuoted(): boolean {
    const src = this.#src;
    let dynamic = false;
    while (this.#i < src.length) {
      const ch = src[this.#i];
      if (ch === '"') {
        this.#i++;
        return dynamic;
      }
      if (ch === "\\") this.#i += 2;
      else if (ch === "`") {
        this.#backtick();
        dynamic = true;
      } else if (ch === "$") dynamic = this.#dollar() || dynamic;
      else this.#i++;
    }
    throw new ShellSyntaxError("unterminated double quote");
  }

  /** Scan a `$` expansion at the cursor; true when it expands at run time. */
  #dollar(): boolean {
    const src = this.#src;
    const next = src[this.#i + 1];
    if (next === "(" && src[this.#i + 2] === "(") {
      this.#i += 3;
      this.#arithmetic();
      return true;
    }
    if (next === "(") {
      this.#i += 2;
      this.#sequence(true);
      return true;
    }
    if (next === "{") {
      this.#i += 2;
      this.#braceParameter();
      return true;
    }
    if (next === "'") {
      this.#i += 2;
      this.#ansiCQuoted();
      return false;
    }
    if (next === '"') {
      this.#i += 2;
      return this.#doubleQuoted();
    }
    if (next !== undefined && /[A-Za-z_]/.test(next)) {
      this.#i += 2;
      while (/[A-Za-z0-9_]/.test(src[this.#i] ?? "")) this.#i++;
      return true;
    }
    if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      this.#i += 2;
      return true;
    }
    this.#i++;
    return false;
  }

  #braceParameter(): void {
    const src = this.#src;
    while (this.#i < src.length) {
      const ch = src[this.#i];
      if (ch === "}") {
        this.#i++;
        return;
      }
      if (ch === "\\") this.#i += 2;
      else if (ch === "'") this.#singleQuoted();
      else if (ch === '"') {
        this.#i++;
        this.#doubleQuoted();
      } else if (ch === "`") this.#backtick();
      else if (ch === "$") this.#dollar();
      else this.#i++;
    }
    throw new ShellSyntaxError("unterminated ${");
  }

  #arithmetic(): void {
    const src = this.#src;
    let depth = 0;
    while (this.#i < src.length) {
      const ch = src[this.#i];
      if (ch === ")" && depth === 0) {
        if (src[this.#i + 1] !== ")") throw new ShellSyntaxError("unterminated $((");
        this.#i += 2;
        return;
      }
      if (ch === "(") depth++;
      if (ch === ")") depth--;
      if (ch === "$") this.#dollar();
      else if (ch === "`") this.#backtick();
      else this.#i++;
    }
    throw new ShellSyntaxError("unterminated $((");
  }

  #ansiCQuoted(): void {
    const src = this.#src;
    while (this.#i < src.length) {
      if (src[this.#i] === "\\") this.#i += 2;
      else if (src[this.#i] === "'") {
        this.#i++;
        return;
      } else this.#i++;
    }
    throw new ShellSyntaxError("unterminated $'");
  }

  /** A backtick substitution: unescape its body and split it as a command line of its own. */
  #backtick(): void {
    const src = this.#src;
    let body = "";
    this.#i++;
    while (this.#i < src.length) {
      const ch = src[this.#i]!;
      if (ch === "`") {
        this.#i++;
        new Scanner(body, this.#out, this.#depth + 1).run();
        return;
      }
      if (ch === "\\") {
        const escaped = src[this.#i + 1] ?? "";
        body += /[`\\$]/.test(escaped) ? escaped : ch + escaped;
        this.#i += 2;
      } else {
        body += ch;
        this.#i++;
      }
    }
    throw new ShellSyntaxError("unterminated backtick");
  }

  /** Read the bodies of here-documents opened on the line that just ended. */
  #readHeredocs(): void {
    const src = this.#src;
    for (const heredoc of this.#heredocs) {
      let body = "";
      for (;;) {
        if (this.#i >= src.length) throw new ShellSyntaxError(`unterminated here-document '${heredoc.delimiter}'`);
        const lineEnd = src.indexOf("\n", this.#i);
        const line = src.slice(this.#i, lineEnd < 0 ? src.length : lineEnd);
        this.#i = lineEnd < 0 ? src.length : lineEnd + 1;
        if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line) === heredoc.delimiter) break;
        body += `${line}\n`;
      }
      if (!heredoc.quoted) new Scanner(body, this.#out, this.#depth + 1).expansions();
    }
    this.#heredocs = [];
  }

  #skipBlanks(): void {
    const src = this.#src;
    for (;;) {
      const ch = src[this.#i];
      if (ch === " " || ch === "\t") this.#i++;
      else if (ch === "\\" && src[this.#i + 1] === "\n") this.#i += 2;
      else return;
    }
  }

  #skipComment(): void {
    const end = this.#src.indexOf("\n", this.#i);
    this.#i = end < 0 ? this.#src.length : end;
  }
}

function isReserved(word: ShellWord): boolean {
  return !word.dynamic && RESERVED.has(word.raw);
}

function unquoteDelimiter(raw: string): string {
  return raw.replace(/\\(.)/g, "$1").replace(/['"]/g, "");
}
