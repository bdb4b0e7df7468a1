/** What a piece of code is, for its colour. */
export type TokenKind = "plain" | "keyword" | "string" | "comment" | "number";

export interface Token {
  kind: TokenKind;
  text: string;
}

/** How one family of languages writes comments, strings and keywords. */
interface Grammar {
  lineComment?: RegExp;
  blockComment?: { open: string; close: string };
  strings: RegExp;
  keywords: ReadonlySet<string>;
}

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

const C_LIKE_STRINGS = /"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?/y;
const SCRIPT_STRINGS = /"(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?/y;

const C_LIKE: Grammar = {
  lineComment: /\/\/.*/y,
  blockComment: { open: "/*", close: "*/" },
  strings: C_LIKE_STRINGS,
  keywords: words(`
    abstract as async await break case catch class const continue debugger default defer delete do else enum
    export extends false final finally fn for from func function go if impl implements import in instanceof
    interface let loop match mod mut new nil null override package private protected pub public readonly
    return satisfies static struct super switch this throw true try type typeof undefined use var void
    where while with yield int long char bool boolean double float string String self Self unsafe trait
    chan map range select fallthrough goto`),
};

const SCRIPT: Grammar = {
  lineComment: /#.*/y,
  strings: SCRIPT_STRINGS,
  keywords: words(`
    and as assert async await break case class continue def del do done elif else end esac except export
    False fi finally for from function global if import in is lambda local None nonlocal not or pass raise
    return then True try unless until while with yield echo exit require module begin rescue ensure`),
};

const JSON_LIKE: Grammar = { strings: SCRIPT_STRINGS, keywords: words("true false null") };

const YAML: Grammar = { lineComment: /#.*/y, strings: SCRIPT_STRINGS, keywords: words("true false null yes no") };

const SQL: Grammar = {
  lineComment: /--.*/y,
  blockComment: { open: "/*", close: "*/" },
  strings: SCRIPT_STRINGS,
  keywords: words(`
    select from where insert into values update set delete create table index drop alter add join left right
    inner outer on group by order having limit offset and or not null primary key references as distinct
    union all case when then else end returning begin commit rollback`),
};

const GRAMMARS: Record<string, Grammar> = {};
for (const name of "js jsx mjs cjs javascript ts tsx typescript java c h cpp cc c++ cs csharp go rust rs kotlin kt swift scala php dart zig css scss".split(
  " ",
))
  GRAMMARS[name] = C_LIKE;
for (const name of "py python rb ruby sh bash zsh shell console fish ps1 powershell make makefile dockerfile toml ini r perl pl".split(
  " ",
))
  GRAMMARS[name] = SCRIPT;
for (const name of ["json", "jsonc", "json5"]) GRAMMARS[name] = JSON_LIKE;
for (const name of ["yaml", "yml"]) GRAMMARS[name] = YAML;
GRAMMARS.sql = SQL;

const NUMBER = /(?:0[xX][\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\b/y;
const WORD = /[A-Za-z_$][\w$]*/y;

/** Whether the code of a fence's language gets colours (others are shown plain). */
export function knowsLanguage(language: string): boolean {
  return language.toLowerCase() in GRAMMARS;
}

/**
 * Splits code into coloured tokens, line by line: keywords, strings, comments and numbers of
 * the common languages (C-like, scripts and shells, JSON, YAML, SQL). A small scanner, not a
 * parser: it only has to look right, and an unknown language comes back as plain lines.
 */
export function highlight(code: string, language: string): Token[][] {
  const lines = code.split("\n");
  const grammar = GRAMMARS[language.toLowerCase()];
  if (!grammar) return lines.map((line) => (line === "" ? [] : [{ kind: "plain", text: line }]));
  let inBlockComment = false;
  return lines.map((line) => {
    const tokens: Token[] = [];
    const push = (kind: TokenKind, text: string) => {
      const last = tokens.at(-1);
      if (last?.kind === kind) last.text += text;
      else if (text !== "") tokens.push({ kind, text });
    };
    let at = 0;
    if (inBlockComment && grammar.blockComment) {
      const end = line.indexOf(grammar.blockComment.close);
      if (end === -1) return line === "" ? [] : [{ kind: "comment", text: line }];
      at = end + grammar.blockComment.close.length;
      push("comment", line.slice(0, at));
      inBlockComment = false;
    }
    while (at < line.length) {
      const block = grammar.blockComment;
      if (block && line.startsWith(block.open, at)) {
        const end = line.indexOf(block.close, at + block.open.length);
        if (end === -1) {
          push("comment", line.slice(at));
          inBlockComment = true;
          break;
        }
        push("comment", line.slice(at, end + block.close.length));
        at = end + block.close.length;
        continue;
      }
      const comment = match(grammar.lineComment, line, at);
      if (comment) {
        push("comment", comment);
        break;
      }
      const string = match(grammar.strings, line, at);
      if (string) {
        push("string", string);
        at += string.length;
        continue;
      }
      const word = match(WORD, line, at);
      if (word) {
        push(grammar.keywords.has(word) ? "keyword" : "plain", word);
        at += word.length;
        continue;
      }
      const number = match(NUMBER, line, at);
      if (number) {
        push("number", number);
        at += number.length;
        continue;
      }
      push("plain", line[at] ?? "");
      at++;
    }
    return tokens;
  });
}

function match(pattern: RegExp | undefined, line: string, at: number): string | undefined {
  if (!pattern) return undefined;
  pattern.lastIndex = at;
  return pattern.exec(line)?.[0];
}
