import { Box, Text } from "ink";
import { useMemo } from "react";
import { type Token, highlight } from "./highlight.js";
import { type InlineSpan, type MarkdownBlock, inlineSpans, markdownBlocks } from "./markdown-blocks.js";

/** Colours of code tokens (plain code keeps the terminal's colour). */
const TOKEN_COLORS: Record<Token["kind"], string | undefined> = {
  plain: undefined,
  keyword: "magenta",
  string: "green",
  comment: "gray",
  number: "yellow",
};

/**
 * An answer rendered as Markdown: headings, lists, quotes, rules, inline code, bold, italic and
 * links, and fenced code blocks in a box with their syntax highlighted. Redrawn as the text
 * streams in: an unclosed fence is shown as code up to the end.
 */
export function Markdown({ text, dim = false }: { text: string; dim?: boolean }) {
  const blocks = useMemo(() => markdownBlocks(text), [text]);
  return (
    <Box flexDirection="column" flexShrink={1}>
      {blocks.map((block, index) => (
        <Block key={index} block={block} dim={dim} />
      ))}
    </Box>
  );
}

function Block({ block, dim }: { block: MarkdownBlock; dim: boolean }) {
  switch (block.kind) {
    case "code":
      return <CodeBlock language={block.language} code={block.text} />;
    case "heading":
      return (
        <Text bold underline={block.level === 1} dimColor={dim}>
          {inline(inlineSpans(block.text))}
        </Text>
      );
    case "item":
      return (
        <Box paddingLeft={block.depth * 2}>
          <Text dimColor={dim}>{block.marker} </Text>
          <Text dimColor={dim}>{inline(inlineSpans(block.text))}</Text>
        </Box>
      );
    case "quote":
      return (
        <Box>
          <Text dimColor>│ </Text>
          <Text italic dimColor={dim}>
            {inline(inlineSpans(block.text))}
          </Text>
        </Box>
      );
    case "rule":
      return <Text dimColor>{"─".repeat(20)}</Text>;
    case "blank":
      return <Text> </Text>;
    case "text":
      return <Text dimColor={dim}>{inline(inlineSpans(block.text))}</Text>;
  }
}

/** A fenced code block in its own box, its language named and its syntax coloured. */
export function CodeBlock({ language, code }: { language: string; code: string }) {
  const lines = useMemo(() => highlight(code, language), [code, language]);
  return (
    <Box flexDirection="column" borderStyle="round" borderDimColor paddingX={1}>
      {language ? <Text dimColor>{language}</Text> : null}
      {lines.map((tokens, index) => (
        <Text key={index}>
          {tokens.length === 0
            ? " "
            : tokens.map((token, at) => (
                <Text key={at} color={TOKEN_COLORS[token.kind]} dimColor={token.kind === "comment"}>
                  {token.text}
                </Text>
              ))}
        </Text>
      ))}
    </Box>
  );
}

function inline(spans: InlineSpan[]) {
  return spans.map((span, index) => {
    switch (span.kind) {
      case "text":
        return span.text;
      case "code":
        return (
          <Text key={index} color="cyan">
            {span.text}
          </Text>
        );
      case "bold":
        return (
          <Text key={index} bold>
            {span.text}
          </Text>
        );
      case "italic":
        return (
          <Text key={index} italic>
            {span.text}
          </Text>
        );
      case "strike":
        return (
          <Text key={index} strikethrough>
            {span.text}
          </Text>
        );
      case "link":
        return (
          <Text key={index}>
            <Text color="blue" underline>
              {span.text}
            </Text>
            {span.url !== span.text ? <Text dimColor> ({span.url})</Text> : null}
          </Text>
        );
    }
  });
}
