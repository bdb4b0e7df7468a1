import { Box, Text } from "ink";

/** A piece of an answer: prose, or a fenced code block. */
export type MarkdownPart = { kind: "prose"; text: string } | { kind: "code"; language: string; text: string };

/** Splits an answer at its ``` fences; an unclosed fence (still streaming) is code up to the end. */
export function splitMarkdown(text: string): MarkdownPart[] {
  const parts: MarkdownPart[] = [];
  const lines = text.split("\n");
  let prose: string[] = [];
  let code: { language: string; lines: string[] } | undefined;
  for (const line of lines) {
    const fence = /^\s*```\s*([\w+-]*)\s*$/.exec(line);
    if (code) {
      if (fence && fence[1] === "") {
        parts.push({ kind: "code", language: code.language, text: code.lines.join("\n") });
        code = undefined;
      } else code.lines.push(line);
    } else if (fence) {
      if (prose.length > 0) parts.push({ kind: "prose", text: prose.join("\n") });
      prose = [];
      code = { language: fence[1] ?? "", lines: [] };
    } else prose.push(line);
  }
  if (code) parts.push({ kind: "code", language: code.language, text: code.lines.join("\n") });
  if (prose.length > 0) parts.push({ kind: "prose", text: prose.join("\n") });
  return parts.filter((part) => part.kind === "code" || part.text.trim() !== "");
}

/** Markdown-ish: headings bold, `code` and code blocks set apart; the rest as written. */
export function Markdown({ text }: { text: string }) {
  return (
    <Box flexDirection="column">
      {splitMarkdown(text).map((part, index) =>
        part.kind === "code" ? (
          <Box key={index} flexDirection="column" borderStyle="round" borderDimColor paddingX={1}>
            {part.language ? <Text dimColor>{part.language}</Text> : null}
            <Text color="cyan">{part.text}</Text>
          </Box>
        ) : (
          <Prose key={index} text={part.text} />
        ),
      )}
    </Box>
  );
}

function Prose({ text }: { text: string }) {
  return (
    <Box flexDirection="column">
      {text.split("\n").map((line, index) => {
        const heading = /^#{1,6}\s+(.*)$/.exec(line);
        if (heading)
          return (
            <Text key={index} bold>
              {heading[1]}
            </Text>
          );
        return <Text key={index}>{inline(line)}</Text>;
      })}
    </Box>
  );
}

/** `code` in colour and **bold** in bold, inside one line. */
function inline(line: string) {
  const pieces = line.split(/(`[^`]+`|\*\*[^*]+\*\*)/);
  return pieces.map((piece, index) => {
    if (piece.startsWith("`") && piece.endsWith("`") && piece.length > 2) {
      return (
        <Text key={index} color="cyan">
          {piece.slice(1, -1)}
        </Text>
      );
    }
    if (piece.startsWith("**") && piece.endsWith("**") && piece.length > 4) {
      return (
        <Text key={index} bold>
          {piece.slice(2, -2)}
        </Text>
      );
    }
    return piece;
  });
}
