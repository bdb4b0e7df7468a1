import type { ComponentChild } from "preact";

/**
 * A small Markdown renderer for what models write: fenced code, headings, lists, quotes,
 * paragraphs; inline code, bold, italics and http(s) links. It builds Preact elements, never
 * HTML strings, so every character of the text is text: a model's `<script>` or
 * `javascript:` link stays a string on the screen.
 */
export function Markdown({ text }: { text: string }) {
  return <div class="md">{blocks(text)}</div>;
}

function blocks(text: string): ComponentChild[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: ComponentChild[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    const fence = /^\s*(```|~~~)\s*([\w+-]*)/.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? "").trimStart().startsWith(fence[1] ?? "```"))
        body.push(lines[i++] ?? "");
      i++;
      out.push(
        <pre key={out.length} data-lang={fence[2] || undefined}>
          <code>{body.join("\n")}</code>
        </pre>,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, (heading[1] ?? "#").length + 2);
      const Tag = `h${level}` as "h3";
      out.push(<Tag key={out.length}>{inline(heading[2] ?? "")}</Tag>);
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: string[] = [];
      while (i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i] ?? ""))
        items.push((lines[i++] ?? "").replace(/^\s*([-*+]|\d+[.)])\s+/, ""));
      const children = items.map((item, index) => <li key={index}>{inline(item)}</li>);
      out.push(ordered ? <ol key={out.length}>{children}</ol> : <ul key={out.length}>{children}</ul>);
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && /^\s*>/.test(lines[i] ?? "")) quoted.push((lines[i++] ?? "").replace(/^\s*>\s?/, ""));
      out.push(<blockquote key={out.length}>{blocks(quoted.join("\n"))}</blockquote>);
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const paragraph: string[] = [];
    while (
      i < lines.length &&
      (lines[i] ?? "").trim() !== "" &&
      !/^\s*(```|~~~|#{1,6}\s|>|[-*+]\s|\d+[.)]\s)/.test(lines[i] ?? "")
    )
      paragraph.push(lines[i++] ?? "");
    if (paragraph.length === 0) paragraph.push(lines[i++] ?? "");
    out.push(<p key={out.length}>{inline(paragraph.join("\n"))}</p>);
  }
  return out;
}

const INLINE = /(`+)([^`]|[^`][\s\S]*?[^`])\1|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)\)/g;

function inline(text: string): ComponentChild[] {
  const out: ComponentChild[] = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const start = match.index ?? 0;
    if (start > last) out.push(text.slice(last, start));
    last = start + match[0].length;
    if (match[2] !== undefined) out.push(<code key={start}>{match[2]}</code>);
    else if (match[3] !== undefined || match[4] !== undefined)
      out.push(<strong key={start}>{match[3] ?? match[4]}</strong>);
    else if (match[5] !== undefined) out.push(<em key={start}>{match[5]}</em>);
    else if (match[6] !== undefined) out.push(link(match[6], match[7] ?? "", start));
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** A link only to http(s): anything else (javascript:, data:) is shown as the text it is. */
function link(label: string, href: string, key: number): ComponentChild {
  if (!/^https?:\/\//i.test(href)) return `[${label}](${href})`;
  return (
    <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
      {label}
    </a>
  );
}
