import { evaluates, isDangerousVariable, programName, shellScript, WRAPPERS } from "./command-kinds.js";
import { readLiteral } from "./literal.js";
import { parseShell } from "./parser.js";
import type { ShellAnalysis, ShellCommand, ShellRedirect, ShellWord } from "./shell-command.js";
import { childForField, namedChildren, type SyntaxNode } from "./syntax-tree.js";
import { wordValues } from "./shell-command.js";

/**
 * Longer lines are not analysed (they ask): parsing grows to seconds and gigabytes at
 * megabytes of input, and 128 KiB is already more than `bash -c` takes as one argument.
 */
export const MAX_ANALYZED_LENGTH = 128 * 1024;

/** `sh -c 'sh -c …'` is followed this deep; deeper is hidden. */
const MAX_DEPTH = 8;

/** Nodes that only group statements: their statements are analysed, they add nothing. */
const CONTAINERS = new Set([
  "program",
  "list",
  "pipeline",
  "subshell",
  "compound_statement",
  "negated_command",
  "if_statement",
  "elif_clause",
  "else_clause",
]);

/** Nodes a word may consist of when its value can be known: checked again by `readLiteral`. */
const LITERAL_PARTS = new Set(["word", "string", "string_content", "raw_string", "concatenation", "number"]);

/**
 * Constructs that are not inert but cannot run code of their own: what they contain is
 * analysed (a `for` body's commands are judged), they only keep the line from being allowed.
 */
const VISIBLE = new Set([
  "for_statement",
  "while_statement",
  "case_statement",
  "case_item",
  "do_group",
  "function_definition",
  "command_substitution",
  "process_substitution",
  "simple_expansion",
  "string",
  "concatenation",
  "heredoc_body",
  "array",
  "word",
  "raw_string",
  "number",
  "string_content",
  "heredoc_content",
  "variable_name",
  "special_variable_name",
  "ansi_c_string",
  "translated_string",
  "brace_expression",
]);

/**
 * Tokens the grammar may place in each node the analysis reads. Any other token there — the
 * grammar keeps `$` of `$"…"` as a bare token of the command, for one — is text whose
 * meaning to bash the analysis does not know.
 */
const SEPARATORS = [";", "&", ";;", "\n"];
const TOKENS: Record<string, readonly string[]> = {
  program: SEPARATORS,
  list: ["&&", "||"],
  pipeline: ["|", "|&"],
  subshell: ["(", ")", ...SEPARATORS],
  compound_statement: ["{", "}", ...SEPARATORS],
  negated_command: ["!"],
  if_statement: ["if", "then", "fi", ...SEPARATORS],
  elif_clause: ["elif", "then", ...SEPARATORS],
  else_clause: ["else", ...SEPARATORS],
  redirected_statement: [],
  command: [],
  command_name: [],
  concatenation: [],
  string: ['"'],
  variable_assignment: ["=", "+="],
  variable_assignments: [],
  file_redirect: [">", ">>", ">|", "&>", "&>>", "<", "<>", ">&", "<&"],
  heredoc_redirect: ["<<", "<<-"],
  herestring_redirect: ["<<<"],
};

/** Redirection operators that open a file for writing. */
const WRITE_OPS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

/**
 * Analyse a command line with bash's grammar (see `ShellAnalysis`). Until the parser has
 * loaded, and for input it cannot read, the answer is "opaque and hidden": nothing matches
 * an allow rule and deny rules cannot be ruled out.
 */
export function analyzeShell(source: string, home: string, depth = 0): ShellAnalysis {
  const result: ShellAnalysis = { commands: [], redirects: [], opaque: [], hidden: [] };
  const unreadable = (reason: string) => {
    result.opaque.push(reason);
    result.hidden.push(reason);
    return result;
  };
  if (depth > MAX_DEPTH) return unreadable("shell scripts nested too deep");
  if (source.length > MAX_ANALYZED_LENGTH)
    return unreadable(`the command is longer than ${MAX_ANALYZED_LENGTH / 1024} KiB`);
  // bash reads NUL and CR differently from the grammar; such lines are never judged by rules.
  if (/[\0\r]/.test(source)) return unreadable("control characters in the command");
  const parsed = parseShell(source);
  if (!parsed) return unreadable("the shell parser is not loaded");
  if (parsed.hasError) unreadable("the command does not parse as bash");
  const root = parsed.root;
  new Analyzer(source, home, depth, result).visit(root);
  checkCoverage(source, root, result);
  return result;
}

class Analyzer {
  constructor(
    readonly source: string,
    readonly home: string,
    readonly depth: number,
    readonly result: ShellAnalysis,
  ) {}

  visit(node: SyntaxNode): void {
    const type = node.type;
    if (!node.named) return;
    if (type === "compound_statement" && node.children[0]?.type === "((") {
      this.#hidden("arithmetic can run code");
      return this.#children(node);
    }
    if (CONTAINERS.has(type)) return this.#children(node);
    switch (type) {
      case "comment":
        return;
      case "command":
        return this.#command(node);
      case "redirected_statement":
        return this.#children(node);
      case "variable_assignment":
        return this.#bareAssignments([node]);
      case "variable_assignments":
        return this.#bareAssignments(namedChildren(node));
      case "file_redirect":
      case "heredoc_redirect":
      case "herestring_redirect":
        return this.#redirect(node);
      case "expansion":
        this.#opaque("parameter expansion");
        // `${x}` only substitutes; `${x@P}`, `${a[i]}`, `${x:-$(…)}` can run code.
        if (!/^\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[#?$!*@-])\}$/.test(this.#text(node))) {
          this.#hidden(`\`${clip(this.#text(node))}\` can run code`);
        }
        return this.#children(node);
      case "ERROR":
        return this.#hidden("the command does not parse as bash");
    }
    if (VISIBLE.has(type)) {
      this.#opaque(describe(node));
      return this.#children(node);
    }
    // Arithmetic, `[[ ]]`, declarations and anything else: arithmetic evaluates `a[$(cmd)]`.
    this.#opaque(describe(node));
    this.#hidden(`${describe(node)} can run code`);
    this.#children(node);
  }

  #children(node: SyntaxNode): void {
    for (const child of node.children) if (child.named) this.visit(child);
  }

  #command(node: SyntaxNode): void {
    const command: ShellCommand = { assignments: [], words: [] };
    for (const child of node.children) {
      if (!child.named) continue;
      if (child.type === "variable_assignment") command.assignments.push(this.#assignment(child));
      else if (child.type.endsWith("_redirect")) this.#redirect(child);
      else if (child.type === "command_name") {
        const name = namedChildren(child)[0];
        if (name) command.words.push(this.#word(name));
      } else command.words.push(this.#word(child));
    }
    this.result.commands.push(command);
    const name = command.words[0];
    if (name && (!name.literal || name.literal.glob)) {
      this.#hidden(`the command name \`${clip(name.raw)}\` is decided at run time`);
    }
    this.#runs(wordValues(command.words), command.words);
  }

  /** What running these words runs: evaluators are hidden code, `sh -c` scripts are analysed. */
  #runs(argv: string[], words: readonly ShellWord[]): void {
    // `env -S 'pwn x'` splits a string into a command with quoting and `${VAR}` rules of its own.
    if (programName(argv[0] ?? "") === "env" && argv.some((arg) => /^(-[a-zA-Z]*S|--split-string)/.test(arg))) {
      this.#hidden("`env -S` runs a command it splits from a string");
    }
    const starts = WRAPPERS.has(programName(argv[0] ?? "")) ? argv.map((_, i) => i) : [0];
    for (const start of starts) {
      const word = words[start];
      if (start > 0 && word && !word.literal) {
        this.#hidden(`\`${programName(argv[0]!)}\` may run \`${clip(word.raw)}\`, decided at run time`);
        return;
      }
      const tail = argv.slice(start);
      // `find . -name x`: a `.` after a wrapper is a path; only `command .` and `builtin .` source.
      const path = start > 0 && tail[0] === "." && !["command", "builtin"].includes(argv[start - 1]!);
      const evaluation = path ? undefined : evaluates(tail);
      if (evaluation) {
        this.#opaque(evaluation);
        this.#hidden(evaluation);
      }
      const script = shellScript(tail);
      if (script === null) this.#hidden(`\`${tail[0]}\` runs commands that are not on the command line`);
      else if (script) {
        const scriptWord = words[start + script.index];
        if (!scriptWord?.literal) this.#hidden(`\`${tail[0]} -c\` runs a script decided at run time`);
        else this.#nested(scriptWord.literal.value);
      }
    }
  }

  #nested(script: string): void {
    const inner = analyzeShell(script, this.home, this.depth + 1);
    this.result.commands.push(...inner.commands);
    this.result.redirects.push(...inner.redirects);
    this.result.hidden.push(...inner.hidden);
    if (inner.redirects.some((redirect) => redirect.writes)) this.#opaque("a shell script that writes files");
  }

  #bareAssignments(nodes: SyntaxNode[]): void {
    this.result.commands.push({ assignments: nodes.map((node) => this.#assignment(node)), words: [] });
  }

  #assignment(node: SyntaxNode): ShellWord {
    const name = childForField(node, "name");
    const value = childForField(node, "value");
    if (name?.type !== "variable_name") {
      this.#opaque("an array element assignment");
      this.#hidden("an array subscript can run code");
    } else if (isDangerousVariable(this.#text(name))) {
      this.#hidden(`assigning ${this.#text(name)} changes what runs`);
    }
    const raw = this.#text(node);
    if (!value) return { raw, literal: { value: raw, glob: false } };
    const word = this.#word(value);
    if (!word.literal || name?.type !== "variable_name") return { raw };
    // Globs are not expanded in assignments.
    const assigned = raw.slice(0, value.start - node.start);
    return { raw, literal: { value: `${assigned}${word.literal.value}`, glob: false } };
  }

  #word(node: SyntaxNode): ShellWord {
    const raw = this.#text(node);
    if (isLiteralShaped(node)) {
      const literal = readLiteral(raw, this.home);
      if (literal) return { raw, literal };
    }
    this.visit(node);
    // A word the two readings disagree on is opaque even if its nodes looked plain.
    this.#opaque(`\`${clip(raw)}\` is only known at run time`);
    return { raw };
  }

  #redirect(node: SyntaxNode): void {
    if (node.type === "heredoc_redirect") return this.#heredoc(node);
    const target = childForField(node, "destination") ?? namedChildren(node).at(-1);
    const op = node.children.find((child) => !child.named)?.type ?? "";
    if (node.type === "herestring_redirect" || !target) {
      if (target) this.#word(target);
      else this.#opaque("a redirection without a target");
      return;
    }
    if (namedChildren(node).filter((child) => child.type !== "file_descriptor").length !== 1) {
      this.#opaque("a redirection with several targets");
    }
    const word = this.#word(target);
    const value = word.literal?.value;
    const duplicatesFd = (op === ">&" || op === "<&") && value !== undefined && /^(\d+|-)$/.test(value);
    const writes = WRITE_OPS.has(op) || (op === ">&" && !duplicatesFd);
    const redirect: ShellRedirect = { op, target: word, writes };
    this.result.redirects.push(redirect);
  }

  /**
   * A here-document is data when its delimiter is quoted or its body holds no `$`, backtick
   * or backslash; and the body must end exactly where bash ends it: at the first line that
   * is the delimiter (after leading tabs, for `<<-`).
   */
  #heredoc(node: SyntaxNode): void {
    const start = node.children.find((child) => child.type === "heredoc_start");
    const body = node.children.find((child) => child.type === "heredoc_body");
    const end = node.children.find((child) => child.type === "heredoc_end");
    for (const child of node.children) {
      if (child.named && !/^heredoc_(start|body|end)$/.test(child.type)) this.visit(child);
    }
    const delimiter = start ? readLiteral(this.#text(start), "") : undefined;
    if (!start || !end || !delimiter || delimiter.glob) {
      this.#opaque("a here-document");
      this.#hidden("a here-document bash may read differently");
      return;
    }
    const stripTabs = node.children.some((child) => child.type === "<<-");
    const quoted = /['"\\]/.test(this.#text(start));
    const bodyStart = body?.start ?? end.start;
    const lines = this.source.slice(bodyStart, end.start).split("\n").slice(0, -1);
    const endLine = lineAround(this.source, end.start, end.end);
    const isDelimiter = (line: string) => (stripTabs ? line.replace(/^\t+/, "") : line) === delimiter.value;
    if (lines.some(isDelimiter) || !isDelimiter(endLine)) {
      this.#opaque("a here-document");
      this.#hidden("a here-document bash may read differently");
      return;
    }
    if (!quoted && body && /[$`\\]/.test(this.#text(body))) {
      this.#opaque("a here-document with expansions");
      this.#children(body);
    }
    this.result.redirects.push({ op: stripTabs ? "<<-" : "<<", target: { raw: this.#text(start) }, writes: false });
  }

  #text(node: SyntaxNode): string {
    return this.source.slice(node.start, node.end);
  }

  #opaque(reason: string): void {
    if (!this.result.opaque.includes(reason)) this.result.opaque.push(reason);
  }

  #hidden(reason: string): void {
    this.#opaque(reason);
    if (!this.result.hidden.includes(reason)) this.result.hidden.push(reason);
  }
}

function isLiteralShaped(node: SyntaxNode): boolean {
  if (!LITERAL_PARTS.has(node.type)) return false;
  for (const child of node.children) if (child.named && !isLiteralShaped(child)) return false;
  return true;
}

/**
 * The grammar must account for every character the way bash would: between its tokens only
 * blanks, newlines and line continuations; a comment only where bash starts one. Text it
 * skipped would be text bash runs and the analysis never saw.
 */
function checkCoverage(source: string, root: SyntaxNode, result: ShellAnalysis): void {
  let position = 0;
  const fail = (reason: string) => {
    if (!result.hidden.includes(reason)) result.hidden.push(reason);
    if (!result.opaque.includes(reason)) result.opaque.push(reason);
  };
  const walk = (node: SyntaxNode): boolean => {
    if (node.children.length === 0 || node.type === "heredoc_body" || node.type === "comment") {
      if (node.start < position) return true;
      const gap = source.slice(position, node.start);
      if (!/^([ \t\n]|\\\n)*$/.test(gap)) {
        fail("the parser skipped part of the command");
        return false;
      }
      // bash deletes a backslash-newline before reading words: with no blank beside it, it
      // joins the text on both sides (`r\<newline>m` is `rm`), where the grammar splits.
      if (position > 0 && gap.includes("\\\n") && gap.replace(/\\\n/g, "") === "") {
        fail("a line continuation inside a word");
        return false;
      }
      if (node.type === "comment" && node.start > 0 && !/[ \t\n;&|()<>]/.test(source[node.start - 1]!)) {
        fail("a comment where bash sees none");
        return false;
      }
      position = Math.max(position, node.end);
      const allowed = !node.named && node.parent ? TOKENS[node.parent.type] : undefined;
      if (allowed && !allowed.includes(node.type)) {
        fail(`\`${clip(source.slice(node.start, node.end))}\` where bash may read it otherwise`);
      }
      return true;
    }
    for (const child of node.children) if (!walk(child)) return false;
    return true;
  };
  if (walk(root) && !/^([ \t\n]|\\\n)*$/.test(source.slice(position))) fail("the parser skipped part of the command");
}

/** The whole source line holding [start, end). */
function lineAround(source: string, start: number, end: number): string {
  const from = source.lastIndexOf("\n", start - 1) + 1;
  const to = source.indexOf("\n", end);
  return source.slice(from, to < 0 ? source.length : to);
}

function describe(node: SyntaxNode): string {
  return node.type.replace(/_/g, " ");
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
