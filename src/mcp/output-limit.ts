import { estimateTextTokens, IMAGE_TOKENS } from "../context/index.js";
import type { ImageBlock, TextBlock } from "../protocol/index.js";
import type { ToolResult } from "../tools/index.js";

/** Tokens kept free for the note, so that a truncated result with its note stays within the limit. */
const NOTE_TOKENS = 120;

/**
 * Base64 characters an image may have (5 MiB, the Anthropic API's limit per image): a bigger
 * one would make the provider refuse the whole request, so it is always dropped.
 */
export const MAX_IMAGE_BASE64_CHARS = 5 * 1024 * 1024;

/**
 * An MCP result cut to about `maxTokens` estimated tokens (text at characters / 4, each image
 * at the flat amount the compactor counts): blocks are kept in order while they fit, the text
 * block that crosses the limit is cut, images past it (or over {@link MAX_IMAGE_BASE64_CHARS})
 * are dropped, and a note tells the model
 * what was cut and how to ask for less (as Claude Code does with `MAX_MCP_OUTPUT_TOKENS`).
 * A result within the limit is returned as it is.
 */
export function limitOutput(result: ToolResult, maxTokens: number): ToolResult {
  const blocks: Array<TextBlock | ImageBlock> =
    typeof result.content === "string" ? [{ type: "text", text: result.content }] : result.content;
  const total = blocks.reduce((sum, block) => sum + tokensOf(block), 0);
  if (total <= maxTokens) return result;
  let budget = Math.max(0, maxTokens - NOTE_TOKENS);
  let cutChars = 0;
  let droppedImages = 0;
  const kept: Array<TextBlock | ImageBlock> = [];
  for (const block of blocks) {
    if (block.type === "image") {
      if (budget >= IMAGE_TOKENS && block.source.data.length <= MAX_IMAGE_BASE64_CHARS) {
        kept.push(block);
        budget -= IMAGE_TOKENS;
      } else droppedImages++;
      continue;
    }
    const room = budget * 4;
    if (block.text.length <= room) {
      kept.push(block);
      budget -= estimateTextTokens(block.text);
      continue;
    }
    if (room > 0) kept.push({ type: "text", text: block.text.slice(0, room) });
    cutChars += block.text.length - room;
    budget = 0;
  }
  const note = { type: "text" as const, text: truncationNote(total, maxTokens, cutChars, droppedImages) };
  const content = [...kept, note];
  const onlyText = content.every((block) => block.type === "text");
  return {
    ...result,
    content: onlyText ? content.map((block) => (block as TextBlock).text).join("\n") : content,
  };
}

function tokensOf(block: TextBlock | ImageBlock): number {
  if (block.type === "text") return estimateTextTokens(block.text);
  return block.source.data.length > MAX_IMAGE_BASE64_CHARS ? Number.POSITIVE_INFINITY : IMAGE_TOKENS;
}

function truncationNote(total: number, limit: number, cutChars: number, droppedImages: number): string {
  const cut = [
    ...(cutChars > 0 ? [`${cutChars} characters of text`] : []),
    ...(droppedImages > 0 ? [`${droppedImages} image${droppedImages === 1 ? "" : "s"}`] : []),
  ].join(" and ");
  return (
    `\n[OUTPUT TRUNCATED: this result was ${Number.isFinite(total) ? `about ${total} tokens` : "too large"}, over the limit of ${limit} tokens for an ` +
    `MCP tool result (MAX_MCP_OUTPUT_TOKENS), so ${cut} were cut. If the tool can return less ` +
    "(pagination, a filter, a narrower query), call it again for the part you need; otherwise tell the user " +
    "that the full output could not be read.]"
  );
}
