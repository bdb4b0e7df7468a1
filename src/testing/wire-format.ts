import type { MockAnswer } from "./answer.js";

/** The provider API a request was made to. */
export type MockFormat = "anthropic" | "openai-chat" | "openai-responses" | "gemini";

/** An error answer: HTTP status and the provider's real error body. */
export interface WireError {
  status: number;
  body: unknown;
}

/**
 * One provider wire format: how to read a request's conversation and how to write an
 * answer, streamed (`frames`, each one complete SSE event text) or whole (`json`).
 */
export interface WireFormat {
  readonly format: MockFormat;
  /** Runs of contiguous assistant-side items in the request's conversation. */
  assistantRuns(request: Record<string, unknown>): number;
  /** The request's system prompt (instructions), as plain text; "" when it has none. */
  systemText(request: Record<string, unknown>): string;
  /** The provider's error body for `status` with `message`. */
  error(status: number, message: string): WireError;
  json(answer: MockAnswer): unknown;
  frames(answer: MockAnswer): string[];
}

/** An SSE frame with an `event:` line (Anthropic, Responses). */
export function namedEvent(event: string, data: Record<string, unknown>): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** An SSE frame with only a `data:` line (Chat Completions). */
export function dataEvent(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** Count runs of consecutive items for which `isAssistantSide` holds. */
export function countRuns(items: unknown, isAssistantSide: (item: Record<string, unknown>) => boolean): number {
  if (!Array.isArray(items)) return 0;
  let runs = 0;
  let inRun = false;
  for (const item of items) {
    const assistant = isRecord(item) && isAssistantSide(item);
    if (assistant && !inRun) runs++;
    inRun = assistant;
  }
  return runs;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of a prompt part: a string, a list of text parts, or `{ parts: [...] }` (Gemini). */
export function plainText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(plainText).join("\n");
  if (typeof value !== "object" || value === null) return "";
  const record = value as Record<string, unknown>;
  if (typeof record.text === "string") return record.text;
  return plainText(record.parts ?? record.content);
}

/** The text of the messages in `items` whose role is system or developer (OpenAI's formats). */
export function systemMessagesText(items: unknown): string {
  if (!Array.isArray(items)) return "";
  return items
    .filter((item) => {
      const role = (item as Record<string, unknown> | null)?.role;
      return role === "system" || role === "developer";
    })
    .map((item) => plainText((item as Record<string, unknown>).content))
    .join("\n");
}
