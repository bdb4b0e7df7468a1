import type { SDKMessage } from "../protocol/index.js";
import type { Transcript } from "./transcript.js";

/**
 * Shows a stored session's conversation in the transcript (`/resume`): each prompt as the
 * person typed it (its first text block; attached files and `!command` output follow it and
 * are not shown again), answers and tool lines as they were.
 */
export function replayMessages(transcript: Transcript, messages: readonly SDKMessage[]): void {
  for (const message of messages) replayMessage(transcript, message);
}

/**
 * The session's last exchange: its last prompt the person typed and what followed it (answers,
 * tool calls). All of it when it has no such prompt. What `gyre --continue` shows at start.
 */
export function lastExchange(messages: readonly SDKMessage[]): readonly SDKMessage[] {
  const start = messages.findLastIndex((message) => promptText(message) !== undefined);
  return start === -1 ? messages : messages.slice(start);
}

/** The text the person typed, for a prompt of theirs (its first text block). */
function promptText(message: SDKMessage): string | undefined {
  if (message.type !== "user" || message.parent_tool_use_id || message.isSynthetic) return undefined;
  const content = message.message.content;
  return typeof content === "string" ? content : content.find((block) => block.type === "text")?.text;
}

function replayMessage(transcript: Transcript, message: SDKMessage): void {
  if (message.type === "stream_event") return;
  // A stored session has no stream events to tell the repeated history from the answers
  // after it: a compaction is only noted, and what follows is shown as stored.
  if (message.type === "system" && message.subtype === "compact_boundary") {
    transcript.notice("Conversation compacted.");
    return;
  }
  const prompt = promptText(message);
  if (prompt !== undefined) transcript.say(prompt);
  else transcript.apply(message);
}
