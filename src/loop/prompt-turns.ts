import type { SDKUserMessage, UserContentBlock } from "../protocol/index.js";
import type { QueryPrompt } from "./options.js";

/** Hook context rides along with the prompt it belongs to. */
export function withContext(content: string | UserContentBlock[], context: string[]): string | UserContentBlock[] {
  if (context.length === 0) return content;
  const blocks: UserContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : [...content];
  for (const text of context) blocks.push({ type: "text", text: `<system-reminder>\n${text}\n</system-reminder>` });
  return blocks;
}

/** The prompt's user turns: one for a string, each message of a stream in order. */
export async function* userTurns(prompt: QueryPrompt): AsyncGenerator<string | UserContentBlock[]> {
  if (typeof prompt === "string") {
    yield prompt;
    return;
  }
  for await (const message of prompt as AsyncIterable<SDKUserMessage>) yield message.message.content;
}
