/** The value a shell word will have, when it can be known before it runs. */
export interface LiteralValue {
  /** The word after quote removal and tilde expansion (a glob pattern when `glob`). */
  value: string;
  /** It holds unquoted `*`, `?` or `[`: bash may replace it with matching file names. */
  glob: boolean;
}

/**
 * Read a word's source text the way bash would, independently of the parser's tree, and
 * give its value only when nothing in it is decided at run time. Anything this does not
 * model — `$` in any form, backticks, brace expansion, `~user`, a tilde after the first
 * character (bash expands `a=~/x`), parentheses (extglob), operators — makes it unknown.
 * This is the allow list for words: the tree says where words are, this says what they are.
 */
export function readLiteral(raw: string, home: string): LiteralValue | undefined {
  let value = "";
  let glob = false;
  let i = 0;
  // A word never starts a comment; if the parser says one does, the two disagree.
  if (raw === "" || raw.startsWith("#")) return undefined;
  // find's placeholder: braces with nothing between them are not an expansion.
  if (raw === "{}") return { value: raw, glob: false };
  if (raw.startsWith("~")) {
    if (raw.length > 1 && raw[1] !== "/") return undefined;
    value = home;
    i = 1;
  }
  while (i < raw.length) {
    const ch = raw[i]!;
    if (ch === "\\") {
      if (i + 1 >= raw.length) return undefined;
      // A backslash-newline is a line continuation: it disappears.
      if (raw[i + 1] !== "\n") value += raw[i + 1];
      i += 2;
    } else if (ch === "'") {
      const end = raw.indexOf("'", i + 1);
      if (end < 0) return undefined;
      value += raw.slice(i + 1, end);
      i = end + 1;
    } else if (ch === '"') {
      const end = readDoubleQuoted(raw, i + 1);
      if (end === undefined) return undefined;
      value += end.text;
      i = end.next;
    } else if (ch === "*" || ch === "?" || ch === "[") {
      glob = true;
      value += ch;
      i++;
    } else if (PLAIN.test(ch)) {
      value += ch;
      i++;
    } else {
      return undefined;
    }
  }
  return { value, glob };
}

/** Characters that stand for themselves outside quotes. `]` is plain once `[` made it a glob. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./\-\]^!#]$/;

/** Inside double quotes only `$`, backticks and backslash escapes are special. */
function readDoubleQuoted(raw: string, start: number): { text: string; next: number } | undefined {
  let text = "";
  let i = start;
  while (i < raw.length) {
    const ch = raw[i]!;
    if (ch === '"') return { text, next: i + 1 };
    if (ch === "$" || ch === "`") return undefined;
    if (ch === "\\") {
      const next = raw[i + 1];
      if (next === undefined) return undefined;
      if (next === "\n") {
        i += 2;
        continue;
      }
      text += /["\\$`]/.test(next) ? next : `\\${next}`;
      i += 2;
      continue;
    }
    text += ch;
    i++;
  }
  return undefined;
}
