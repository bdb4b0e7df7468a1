import { randomUUID } from "node:crypto";
import { AsyncQueue } from "../async/index.js";
import type { SDKUserMessage, UserContentBlock } from "../protocol/index.js";

/**
 * Prompts fed to a running query one at a time (streaming input): the CLI adds the
 * person's answer when the agent asks a question, and closes the queue when it is done.
 */
export class PromptQueue extends AsyncQueue<SDKUserMessage> {
  /** Adds a prompt: text, or content blocks (text with attached files and images). */
  say(content: string | UserContentBlock[]): void {
    this.push({
      type: "user",
      message: { role: "user", content },
      parent_tool_use_id: null,
      session_id: "",
      uuid: randomUUID(),
    });
  }
}
