import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { SDKUserMessage } from "../protocol/messages/index.js";
import type { PromptQueue } from "./prompt-queue.js";

/** What a line of `--input-format stream-json` must be: a user message, as the Claude Agent SDK sends it. */
const InputLine = SDKUserMessage.pick({ type: true, message: true }).extend({
  uuid: SDKUserMessage.shape.uuid.optional(),
  parent_tool_use_id: SDKUserMessage.shape.parent_tool_use_id.optional(),
});

/**
 * `gyre run --input-format stream-json`: each line of `input` is a user message
 * (`{"type":"user","message":{"role":"user","content":…}}`), added to `prompts` in order, so
 * they run one after another in one session; the queue closes when `input` ends. A line that
 * is not such a message is skipped and reported through `skipped` (with its 1-based number).
 */
export async function feedStreamJsonInput(
  input: NodeJS.ReadableStream,
  prompts: PromptQueue,
  skipped: (line: number, why: string) => void,
): Promise<void> {
  let number = 0;
  try {
    for await (const text of createInterface({ input, crlfDelay: Infinity })) {
      number += 1;
      if (text.trim() === "") continue;
      const message = parseLine(text);
      if (typeof message === "string") skipped(number, message);
      else prompts.push(message);
    }
  } finally {
    prompts.close();
  }
}

function parseLine(text: string): SDKUserMessage | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  const type = (json as { type?: unknown } | null)?.type;
  if (type !== "user") return `a message of type ${JSON.stringify(type)}, where only "user" messages are read`;
  const parsed = InputLine.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `not a user message (${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid"})`;
  }
  return {
    type: "user",
    message: parsed.data.message,
    parent_tool_use_id: null,
    session_id: "",
    uuid: parsed.data.uuid ?? randomUUID(),
  };
}
