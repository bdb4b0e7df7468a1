import type { SDKMessage } from "../protocol/index.js";
import type { Transcript } from "./transcript.js";

/**
 * Shows a stored session's conversation in the transcript (`/resume`): each prompt as the
 * person typed it (its first text block; attached files and `!command` output follow it and
 * are not shown again), answers and tool lines as they were.
 */
export function replayMessages(transcript: Transcript, messages: readonly SDKMessage[]): void {
  for (const message of messages) {
    if (message.type === "stream_event") continue;
    // A stored session has no stream events to tell the repeated history from the answers
    // after it: a compaction is only noted, and what follows is shown as stored.
    if (message.type === "system" && message.subtype === "compact_boundary") {
      transcript.notice("Conversation compacted.");
      continue;
    }
    if (message.type === "user" && !message.parent_tool_use_id && !message.isSynthetic) {
      const content = message.message.content;
      const first = typeof content === "string" ? content : content.find((block) => block.type === "text")?.text;
      if (first !== undefined) {
        transcript.say(first);
        continue;
      }
    }
    transcript.apply(message);
  }
}
