/** One block of an answer, as the screen lays it out. */
export type MarkdownBlock =
  | { kind: "code"; language: string; text: string }
  | { kind: "heading"; level: number; text: string }
  | { kind: "item"; marker: string; depth: number; text: string }
  | { kind: "quote"; text: string }
  | { kind: "rule" }
  | { kind: "text"; text: string }
  | { kind: "blank" };

/** A styled run inside one line. */
export type InlineSpan =
  | { kind: "text"; text: string }
  | { kind: "code"; text: string }
  | { kind: "bold"; text: string }
  | { kind: "italic"; text: string }
  | { kind: "strike"; text: string }
  | { kind: "link"; text: string; url: string };

const FENCE = /^\s*(```+|~~~+)\s*([\w+#.-]*)[^`]*$/;

/**
 * Splits an answer into blocks: fenced code (an unclosed fence, still streaming, is code up to
 * the end), headings, list items, quotes, rules and plain lines. Runs of blank lines become one.
 */
export function markdownBlocks(text: string): MarkdownBlock[] {
  const blocks: MarkdownBlock[] = [];
  let code: { fence: string; language: string; lines: string[] } | undefined;
  for (const line of text.split("\n")) {
    if (code) {
      const fence = FENCE.exec(line);
      if (fence?.[1]?.startsWith(code.fence) && fence[2] === "") {
        blocks.push({ kind: "code", language: code.language, text: code.lines.join("\n") });
        code = undefined;
      } else code.lines.push(line);
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      code = { fence: fence[1] ?? "```", language: fence[2] ?? "", lines: [] };
      continue;
    }
    const block = lineBlock(line);
    if (block.kind === "blank" && (blocks.length === 0 || blocks.at(-1)?.kind === "blank")) continue;
    blocks.push(block);
  }
  if (code) blocks.push({ kind: "code", language: code.language, text: code.lines.join("\n") });
  while (blocks.at(-1)?.kind === "blank") blocks.pop();
  return blocks;
}

function lineBlock(line: string): MarkdownBlock {
  if (line.trim() === "") return { kind: "blank" };
  const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return { kind: "heading", level: heading[1]?.length ?? 1, text: heading[2] ?? "" };
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return { kind: "rule" };
  const item = /^(\s*)([-*+]|\d{1,9}[.)])\s+(?:\[([ xX])\]\s+)?(.*)$/.exec(line);
  if (item) {
    const depth = Math.floor((item[1]?.length ?? 0) / 2);
    const check = item[3];
    const marker = check === undefined ? (/\d/.test(item[2] ?? "") ? (item[2] ?? "") : "•") : check === " " ? "☐" : "☒";
    return { kind: "item", marker, depth, text: item[4] ?? "" };
  }
  const quote = /^\s*>\s?(.*)$/.exec(line);
  if (quote) return { kind: "quote", text: quote[1] ?? "" };
  return { kind: "text", text: line };
}

const INLINE =
  /(`+)(.+?)\1|\*\*(.+?)\*\*|__(.+?)__|~~(.+?)~~|\[([^\]]+)\]\(([^)\s]+)\)|(?<![\w*])\*(?!\s)(.+?)\*(?![\w*])|(?<!\w)_(?!\s)(.+?)_(?!\w)/g;

/** `code`, **bold**, *italic*, ~~struck~~ and [links](url) inside one line. */
export function inlineSpans(line: string): InlineSpan[] {
  const spans: InlineSpan[] = [];
  let at = 0;
  for (const found of line.matchAll(INLINE)) {
    if (found.index > at) spans.push({ kind: "text", text: line.slice(at, found.index) });
    const [, , code, bold, boldUnderscore, strike, linkText, url, italic, italicUnderscore] = found;
    if (code !== undefined) spans.push({ kind: "code", text: code.trim() === "" ? code : code.trim() });
    else if (bold !== undefined || boldUnderscore !== undefined)
      spans.push({ kind: "bold", text: bold ?? boldUnderscore ?? "" });
    else if (strike !== undefined) spans.push({ kind: "strike", text: strike });
    else if (linkText !== undefined) spans.push({ kind: "link", text: linkText, url: url ?? "" });
    else spans.push({ kind: "italic", text: italic ?? italicUnderscore ?? "" });
    at = found.index + found[0].length;
  }
  if (at < line.length) spans.push({ kind: "text", text: line.slice(at) });
  return spans;
}
