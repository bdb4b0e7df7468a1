import type { MockAnswer } from "./answer.js";

/**
 * OpenAI counts cached tokens inside the prompt tokens; the script counts them apart
 * (Anthropic's way), so the prompt total is input + cache read + cache write.
 */
function totals(answer: MockAnswer) {
  const { input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens } = answer.usage;
  const input = input_tokens + cache_read_input_tokens + cache_creation_input_tokens;
  return {
    input,
    output: output_tokens,
    cached: cache_read_input_tokens,
    cacheWrite: cache_creation_input_tokens,
  };
}

/** Chat Completions `usage`. */
export function chatUsage(answer: MockAnswer) {
  const { input, output, cached, cacheWrite } = totals(answer);
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: {
      cached_tokens: cached,
      ...(cacheWrite > 0 && { cache_write_tokens: cacheWrite }),
    },
    completion_tokens_details: { reasoning_tokens: answer.usage.reasoning_tokens },
  };
}

/** Responses API `usage`. */
export function responsesUsage(answer: MockAnswer) {
  const { input, output, cached, cacheWrite } = totals(answer);
  return {
    input_tokens: input,
    input_tokens_details: {
      cached_tokens: cached,
      ...(cacheWrite > 0 && { cache_write_tokens: cacheWrite }),
    },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: answer.usage.reasoning_tokens },
    total_tokens: input + output,
  };
}

const OPENAI_ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: null },
  503: { type: "server_error", code: "service_unavailable" },
};

/** OpenAI's error body (Chat Completions and Responses share it). */
export function openaiError(status: number, message: string) {
  const known = OPENAI_ERRORS[status] ?? {
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: null,
  };
  return { status, body: { error: { message, type: known.type, param: null, code: known.code } } };
}
