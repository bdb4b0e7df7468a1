import { randomUUID } from "node:crypto";
import { AsyncQueue } from "../async/index.js";
import type { SDKUserMessage } from "../protocol/index.js";

/**
 * Prompts fed to a running query one at a time (streaming input): the CLI adds the
 * person's answer when the agent asks a question, and closes the queue when it is done.
 */
export class PromptQueue extends AsyncQueue<SDKUserMessage> {
  say(text: string): void {
    this.push({
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
      session_id: "",
      uuid: randomUUID(),
    });
  }
}
