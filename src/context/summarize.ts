import { GyreError } from "../errors/index.js";
import { classifyModelError, type Model, type ProviderOptions, responseOf } from "../model/index.js";
import type { APIAssistantMessage, Usage } from "../protocol/index.js";
import { COMPACTION_SYSTEM_PROMPT, compactionPrompt } from "./compaction-prompt.js";

export interface SummaryRequest {
  model: Model;
  transcript: string;
  customInstructions?: string;
  maxOutputTokens: number;
  signal?: AbortSignal;
  providerOptions?: ProviderOptions;
}

export interface SummaryResponse {
  summary: string;
  usage: Usage;
}

/** No tools: the summary call only writes text. */
const NO_TOOLS = Object.freeze([]);

/**
 * Ask the model for a summary of `transcript`: one call without tools, its text taken.
 * Throws `GyreError` — `aborted` when the signal fired, `context_overflow` when even the
 * summary request is too long or the answer is empty, else the model call's own code.
 */
export async function requestSummary(request: SummaryRequest): Promise<SummaryResponse> {
  const signal = request.signal ?? new AbortController().signal;
  let message: APIAssistantMessage;
  try {
    const response = await responseOf(
      request.model.stream({
        system: COMPACTION_SYSTEM_PROMPT,
        history: [{ role: "user", content: compactionPrompt(request.transcript, request.customInstructions) }],
        tools: NO_TOOLS,
        maxOutputTokens: request.maxOutputTokens,
        providerOptions: request.providerOptions,
        signal,
      }),
    );
    message = response.message;
  } catch (error) {
    throw summaryError(error, signal);
  }
  const summary = message.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("")
    .trim();
  if (summary.length === 0)
    throw new GyreError("context_overflow", "Compaction failed: the model returned an empty summary.");
  return { summary, usage: message.usage };
}

function summaryError(thrown: unknown, signal: AbortSignal): GyreError {
  const error = classifyModelError(thrown, { aborted: signal.aborted });
  if (error.code === "aborted") return new GyreError("aborted", "Compaction was interrupted.", { cause: error });
  if (error.code === "model_prompt_too_long") {
    return new GyreError("context_overflow", "Compaction failed: the summary request itself is too long.", {
      cause: error,
      statusCode: error.statusCode,
    });
  }
  return new GyreError(error.code, `Compaction failed: the summary request failed: ${error.message}`, {
    cause: error,
    statusCode: error.statusCode,
    retryable: error.retryable,
    retryAfterMs: error.retryAfterMs,
  });
}
