import { invalidPatternError } from "./errors.js";

/** Flags of a search that shape the compiled regex. */
export interface RegexOptions {
  ignoreCase: boolean;
  /** rg `-U --multiline-dotall`: `.` matches newlines, `^`/`$` match at line breaks. */
  multiline: boolean;
}

/** JavaScript's `u`-mode allows escaping only these (plus `-` inside a class). */
const JS_ESCAPABLE = new Set("^$\\.*+?()[]{}|/");

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7F",
  blank: "\\t ",
  cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/**
 * Compile a ripgrep (Rust regex) pattern as a JavaScript `RegExp` with the `u` flag.
 * Translated: leading inline flags `(?i)` `(?s)` `(?m)`, `(?P<name>`, `\A` and `\z`,
 * `\x{HEX}`, one-letter `\pL`, POSIX classes like `[[:alpha:]]`, and escaped punctuation
 * that `u` mode refuses (`\-`, `\#`, ...). Refused like rg does: look-around and
 * backreferences. Not translated (they behave as JavaScript defines them): `\d`, `\w`,
 * `\s` and `\b` are ASCII-only here but Unicode-aware in rg; inline flag groups such as
 * `(?i:...)`, class set operations (`&&`, `--`) and `(?x)` are rejected or literal.
 * Throws the model-facing invalid-pattern error when the pattern does not compile.
 */
export function compilePattern(pattern: string, options: RegexOptions): RegExp {
  const flags = new Set(["u"]);
  let body = pattern;
  const inline = /^\(\?([a-zA-Z]+)\)/.exec(body);
  if (inline?.[1] && /^[ism]+$/.test(inline[1])) {
    for (const flag of inline[1]) if (flag !== "m" || options.multiline) flags.add(flag);
    body = body.slice(inline[0].length);
  }
  if (options.ignoreCase) flags.add("i");
  if (options.multiline) for (const flag of "gms") flags.add(flag);
  const translated = translate(pattern, body, options.multiline);
  try {
    return new RegExp(translated, [...flags].join(""));
  } catch (error) {
    throw invalidPatternError(pattern, error instanceof Error ? error.message : String(error));
  }
}

function translate(original: string, body: string, multiline: boolean): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const char = body[i]!;
    if (char === "\\") {
      const [text, consumed] = translateEscape(original, body, i, inClass, multiline);
      out += text;
      i += consumed - 1;
      continue;
    }
    if (inClass) {
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(body.slice(i));
      if (posix?.[2] && posix[1] === "" && POSIX_CLASSES[posix[2]]) {
        out += POSIX_CLASSES[posix[2]];
        i += posix[0].length - 1;
        continue;
      }
      if (char === "]") inClass = false;
      out += char;
      continue;
    }
    if (char === "[") {
      inClass = true;
      out += char;
      // A `]` right after `[` or `[^` is a literal in Rust, an empty class in JavaScript.
      if (body[i + 1] === "^") {
        out += "^";
        i++;
      }
      if (body[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (char === "{") {
      // A repetition is copied whole; a stray `}` or `]` is a literal in Rust, an error in `u` mode.
      const end = body.indexOf("}", i);
      const quantifier = end > 0 ? body.slice(i, end + 1) : char;
      out += quantifier;
      i += quantifier.length - 1;
      continue;
    }
    if (char === "}" || char === "]") {
      out += `\\${char}`;
      continue;
    }
    if (char === "(" && body[i + 1] === "?") {
      const rest = body.slice(i + 2);
      if (/^(=|!|<=|<!)/.test(rest)) {
        throw invalidPatternError(original, "look-around, including look-ahead and look-behind, is not supported");
      }
      if (rest.startsWith("P<")) {
        out += "(?<";
        i += 3;
        continue;
      }
    }
    out += char;
  }
  return out;
}

/** Translate the escape at `body[i]`; returns the JavaScript text and how many characters were read. */
function translateEscape(
  original: string,
  body: string,
  i: number,
  inClass: boolean,
  multiline: boolean,
): [string, number] {
  const next = body[i + 1];
  if (next === undefined) return ["\\", 1];
  if (/[1-9]/.test(next) && !inClass) {
    throw invalidPatternError(original, "backreferences are not supported");
  }
  if (next === "n" && !multiline && !inClass) {
    throw invalidPatternError(
      original,
      "the literal '\\n' is not allowed in a regex (set multiline: true to match across lines)",
    );
  }
  // Line by line, each line is the whole haystack, so plain anchors do (and keep the prefilter valid).
  if (!inClass && next === "A") return [multiline ? "(?<![\\s\\S])" : "^", 2];
  if (!inClass && next === "z") return [multiline ? "(?![\\s\\S])" : "$", 2];
  if (next === "x" && body[i + 2] === "{") {
    const end = body.indexOf("}", i + 3);
    if (end > 0) return [`\\u{${body.slice(i + 3, end)}}`, end - i + 1];
  }
  if ((next === "p" || next === "P") && body[i + 2] !== "{" && body[i + 2] !== undefined) {
    return [`\\${next}{${body[i + 2]}}`, 3];
  }
  const isPunctuation = /[!-/:-@[-`{-~]/.test(next);
  if (isPunctuation && !JS_ESCAPABLE.has(next) && !(inClass && next === "-")) {
    return [next, 2];
  }
  return [`\\${next}`, 2];
}
