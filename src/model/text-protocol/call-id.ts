import { createHash } from "node:crypto";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";

/**
 * The prefix of the ids given to tool calls read from text: a hash of the prompt that was
 * sent. Ids are reproducible (the same request gives the same ids, so tests and replays
 * are stable) and differ between turns, because every turn's prompt is a different one.
 */
export function callIdPrefix(prompt: LanguageModelV3Prompt): string {
  const text = JSON.stringify(prompt, (_key, value: unknown) =>
    value instanceof Uint8Array ? Buffer.from(value).toString("base64") : value,
  );
  return `call_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
}
