import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { SDKMessage } from "../protocol/index.js";

/** The part of the MCP SDK's request `extra` that progress needs. */
export interface ProgressTarget {
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

const MAX_MESSAGE_CHARS = 120;

/**
 * Sends MCP progress notifications for a request, when the client asked for them (it sent a
 * `progressToken`): one per step, with a count that only grows. A notification that cannot
 * be sent (the client went away) is dropped: progress must never fail the work it reports.
 */
export class ProgressReporter {
  readonly #target: ProgressTarget;
  #count = 0;

  constructor(target: ProgressTarget) {
    this.#target = target;
  }

  async report(message: string): Promise<void> {
    const progressToken = this.#target._meta?.progressToken;
    if (progressToken === undefined) return;
    this.#count += 1;
    await this.#target
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken, progress: this.#count, message: clip(message) },
      })
      .catch(() => {});
  }
}

/**
 * What a message of the inner run says in a progress line: each tool call as
 * `Bash: npm test`, each answer as its first words. Other messages say nothing.
 */
export function describeProgress(message: SDKMessage): string[] {
  if (message.type !== "assistant") return [];
  return message.message.content.flatMap((block) => {
    if (block.type === "tool_use") return [`${block.name}: ${mainArgument(block.input)}`.trimEnd()];
    if (block.type === "text" && block.text.trim()) return [block.text.trim()];
    return [];
  });
}

/** Input keys that say best what a built-in or MCP tool call does, in order of preference. */
const TELLING_KEYS = ["command", "file_path", "path", "pattern", "url", "query", "prompt", "description"];

function mainArgument(input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const record = input as Record<string, unknown>;
  const key = TELLING_KEYS.find((name) => typeof record[name] === "string");
  return key ? String(record[key]) : JSON.stringify(input);
}

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return line.length <= MAX_MESSAGE_CHARS ? line : `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
}
