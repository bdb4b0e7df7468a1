import type { SDKMessage } from "../protocol/index.js";

/**
 * A subagent's message as the caller sees it: tagged with the id of the `Agent` call that
 * started the subagent (a nested subagent's keeps its own tag). The call's own progress (its
 * subagent's session started) stays the parent's message, so the parent's session stores it.
 */
export function fromSubagent(message: SDKMessage, toolUseId: string): SDKMessage {
  if (message.type === "tool_progress" && message.tool_use_id === toolUseId) return message;
  return "parent_tool_use_id" in message && message.parent_tool_use_id === null
    ? { ...message, parent_tool_use_id: toolUseId }
    : message;
}
