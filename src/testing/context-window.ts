import type { MockFormat, WireError, WireFormat } from "./wire-format.js";

/** The tokens the mock counts for a request: characters / 4 of its body, as its default usage does. */
export function requestTokens(body: Record<string, unknown>): number {
  return Math.ceil(JSON.stringify(body).length / 4);
}

/** Each provider's wording for an input over the context window (what clients match on). */
const MESSAGES: Record<MockFormat, (tokens: number, limit: number) => string> = {
  anthropic: (tokens, limit) => `prompt is too long: ${tokens} tokens > ${limit} maximum`,
  "openai-chat": (tokens, limit) =>
    `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
  "openai-responses": () =>
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
  gemini: (tokens, limit) =>
    `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`,
};

/** The provider's HTTP 400 for a request of `tokens` to a model of `limit`; OpenAI's carries `context_length_exceeded`. */
export function contextWindowError(wire: WireFormat, tokens: number, limit: number): WireError {
  const error = wire.error(400, MESSAGES[wire.format](tokens, limit));
  if (wire.format !== "openai-chat" && wire.format !== "openai-responses") return error;
  const body = error.body as { error: Record<string, unknown> };
  return { status: 400, body: { error: { ...body.error, param: "input", code: "context_length_exceeded" } } };
}
