import type { SDKMessage } from "../protocol/index.js";

/**
 * A message a tool call passes up from a run nested in it (a subagent's) as the caller sees
 * it: tagged with the call's id (a deeper nested run's keeps its own tag). The call's own
 * progress (its nested session started) stays the parent's message, so the parent's session stores it.
 */
export function nestedIn(message: SDKMessage, toolUseId: string): SDKMessage {
  if (message.type === "tool_progress" && message.tool_use_id === toolUseId) return message;
  return "parent_tool_use_id" in message && message.parent_tool_use_id === null
    ? { ...message, parent_tool_use_id: toolUseId }
    : message;
}
