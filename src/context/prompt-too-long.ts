import { APICallError } from "@ai-sdk/provider";

/** Phrases providers use when the request does not fit the model's context window. */
const TOO_LONG = [
  /prompt is too long/i, // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  /context_length_exceeded/i, // OpenAI error code
  /maximum context length/i, // OpenAI: "This model's maximum context length is ..."
  /exceeds the context window/i, // OpenAI Responses
  /input is too long/i, // Bedrock / Vertex wording
  /too many (input )?tokens/i,
];

/**
 * Whether `error` is a provider's "the prompt does not fit" rejection (Anthropic 400
 * `invalid_request_error` "prompt is too long", OpenAI `context_length_exceeded`), so the
 * loop can compact and retry once. Looks through `cause` chains (a `GyreError` wrapping an
 * AI SDK `APICallError`) and at the status code, response body and message. Rate limits and
 * server errors never match.
 */
export function isPromptTooLongError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    if (APICallError.isInstance(current)) return apiErrorTooLong(current);
    if (typeof current !== "object") return false;
    if (matches((current as { message?: unknown }).message)) return true;
    if (isStreamError(current) && matches(current.error.message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function apiErrorTooLong(error: APICallError): boolean {
  if (error.statusCode !== undefined && error.statusCode !== 400 && error.statusCode !== 413) return false;
  return matches(error.responseBody) || matches(error.message) || matches(safeStringify(error.data));
}

function matches(text: unknown): boolean {
  return typeof text === "string" && TOO_LONG.some((pattern) => pattern.test(text));
}

/** An in-stream error part, e.g. Anthropic's `{ type: "error", error: { message } }`. */
function isStreamError(value: object): value is { error: { message?: unknown } } {
  const inner = (value as { error?: unknown }).error;
  return typeof inner === "object" && inner !== null;
}

function safeStringify(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
