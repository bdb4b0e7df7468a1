import {
  type AssistantContentBlock,
  describeWebSearchResult,
  type HistoryEntry,
  type UserContentBlock,
  webSearchQuery,
} from "../protocol/index.js";

export interface TranscriptOptions {
  /** Characters kept of each tool output (head and tail). Default 2,000. */
  maxToolOutputChars?: number;
  /** Characters kept of each tool call's input. Default 1,000. */
  maxToolInputChars?: number;
  /** Characters the whole transcript may take; the oldest entries go first. Default unlimited. */
  maxChars?: number;
}

/**
 * Render history entries as plain text for the summary request. A transcript, not the
 * entries themselves, so the summary call needs no tools, cannot break tool pairing, and
 * big outputs can be shortened to fit the model's window.
 */
export function renderTranscript(entries: readonly HistoryEntry[], options: TranscriptOptions = {}): string {
  const toolNames = new Map<string, string>();
  const parts = entries.map((entry) => renderEntry(entry, toolNames, options));
  const maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
  let total = parts.reduce((sum, part) => sum + part.length + 2, 0);
  let dropped = 0;
  while (total > maxChars && dropped < parts.length - 1) {
    total -= (parts[dropped]?.length ?? 0) + 2;
    dropped++;
  }
  const kept = parts.slice(dropped);
  if (dropped > 0) kept.unshift(`[${dropped} earlier entries omitted to fit the context window]`);
  const text = kept.join("\n\n");
  return text.length > maxChars ? text.slice(text.length - maxChars) : text;
}

function renderEntry(entry: HistoryEntry, toolNames: Map<string, string>, options: TranscriptOptions): string {
  if (entry.role === "assistant") {
    const lines = entry.message.content.flatMap((block) => assistantLines(block, toolNames, options));
    return `[Assistant]\n${lines.join("\n")}`;
  }
  if (typeof entry.content === "string") return `[User]\n${entry.content}`;
  const lines = entry.content.map((block) => userLine(block, toolNames, options));
  return `[User]\n${lines.join("\n")}`;
}

function assistantLines(
  block: AssistantContentBlock,
  toolNames: Map<string, string>,
  options: TranscriptOptions,
): string[] {
  switch (block.type) {
    case "text":
      return block.text.length > 0 ? [block.text] : [];
    case "thinking":
    case "redacted_thinking":
      return [];
    case "tool_use": {
      toolNames.set(block.id, block.name);
      const input = shorten(JSON.stringify(block.input ?? {}), options.maxToolInputChars ?? 1_000);
      return [`[Tool call ${block.name}] ${input}`];
    }
    case "server_tool_use":
      toolNames.set(block.id, webSearchQuery(block));
      return [`[Web search] ${webSearchQuery(block)}`];
    case "web_search_tool_result": {
      const text = describeWebSearchResult(block, toolNames.get(block.tool_use_id) ?? "");
      return [shorten(text, options.maxToolOutputChars ?? 2_000)];
    }
  }
}

function userLine(block: UserContentBlock, toolNames: Map<string, string>, options: TranscriptOptions): string {
  if (block.type === "text") return block.text;
  if (block.type === "image") return "[image]";
  const name = toolNames.get(block.tool_use_id) ?? "tool";
  const text =
    typeof block.content === "string"
      ? block.content
      : block.content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
  const label = block.is_error ? `[Tool error from ${name}]` : `[Tool result from ${name}]`;
  return `${label}\n${shorten(text, options.maxToolOutputChars ?? 2_000)}`;
}

/** Keep the head and the tail of long text, saying how much was cut. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters cut ...]\n${text.slice(-half)}`;
}
