import type { AssistantContentBlock, HistoryEntry, Usage, UserContentBlock } from "../protocol/index.js";

/**
 * The tokens a provider reported for one call: everything it read (fresh, cache-written and
 * cache-read input) plus what it wrote, which the next request carries as history.
 */
export function usageTokens(usage: Usage): number {
  return usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens + usage.output_tokens;
}

/**
 * A rough token count of text: characters / 4. Only used for what was added since the
 * provider last reported usage (and when it never did), so the error stays small; no
 * tokenizer is loaded, which keeps start-up fast and works for every provider.
 */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Images count as a flat amount: providers bill them by size, not by base64 length. */
export const IMAGE_TOKENS = 1_600;

/** chars/4 estimate of one history entry, as the provider would see it. */
export function estimateEntryTokens(entry: HistoryEntry): number {
  return entry.role === "user" ? estimateUserTokens(entry.content) : estimateAssistantTokens(entry.message.content);
}

/** chars/4 estimate of a user message's content (text, images, tool results). */
export function estimateUserTokens(content: string | readonly UserContentBlock[]): number {
  if (typeof content === "string") return estimateTextTokens(content);
  let tokens = 0;
  for (const block of content) {
    if (block.type === "text") tokens += estimateTextTokens(block.text);
    else if (block.type === "image") tokens += IMAGE_TOKENS;
    else if (typeof block.content === "string") tokens += estimateTextTokens(block.content) + 10;
    else
      for (const part of block.content) tokens += part.type === "text" ? estimateTextTokens(part.text) : IMAGE_TOKENS;
  }
  return tokens;
}

/** chars/4 estimate of an assistant message's content (text, thinking, tool calls). */
export function estimateAssistantTokens(content: readonly AssistantContentBlock[]): number {
  let tokens = 0;
  for (const block of content) {
    if (block.type === "text") tokens += estimateTextTokens(block.text);
    else if (block.type === "thinking") tokens += estimateTextTokens(block.thinking);
    else if (block.type === "redacted_thinking") tokens += estimateTextTokens(block.data);
    else if (block.type === "web_search_tool_result") tokens += estimateTextTokens(JSON.stringify(block.content)) + 10;
    else tokens += estimateTextTokens(block.name + JSON.stringify(block.input ?? {})) + 10;
  }
  return tokens;
}

/** chars/4 estimate of a list of entries. */
export function estimateHistoryTokens(history: readonly HistoryEntry[]): number {
  let tokens = 0;
  for (const entry of history) tokens += estimateEntryTokens(entry);
  return tokens;
}
