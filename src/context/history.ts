import type { HistoryEntry, ToolResultBlock, UserContentBlock } from "../protocol/index.js";

export type UserEntry = Extract<HistoryEntry, { role: "user" }>;
export type AssistantEntry = Extract<HistoryEntry, { role: "assistant" }>;

/** The content of a user entry as blocks (a plain string becomes one text block). */
export function userBlocks(entry: UserEntry): UserContentBlock[] {
  return typeof entry.content === "string" ? [{ type: "text", text: entry.content }] : entry.content;
}

/** The tool_result blocks of a user entry. */
export function toolResults(entry: UserEntry): ToolResultBlock[] {
  if (typeof entry.content === "string") return [];
  return entry.content.filter((block): block is ToolResultBlock => block.type === "tool_result");
}

/** The ids of the tool calls an assistant entry makes. */
export function toolUseIds(entry: AssistantEntry): string[] {
  return entry.message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
}
