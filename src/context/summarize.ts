import type { LanguageModelV3, LanguageModelV3Usage, SharedV3ProviderOptions } from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import { errorMessage, GyreError } from "../errors/index.js";
import type { Usage } from "../protocol/index.js";
import { COMPACTION_SYSTEM_PROMPT, compactionPrompt } from "./compaction-prompt.js";
import { isPromptTooLongError } from "./prompt-too-long.js";

export interface SummaryRequest {
  model: LanguageModelV3;
  transcript: string;
  customInstructions?: string;
  maxOutputTokens: number;
  signal?: AbortSignal;
  providerOptions?: SharedV3ProviderOptions;
}

export interface SummaryResponse {
  summary: string;
  usage: Usage;
}

/**
 * Ask the model for a summary of `transcript`: one plain call (`doGenerate`, no tools).
 * Throws `GyreError` — `aborted` when the signal fired, `context_overflow` when even the
 * summary request is too long or the answer is empty, `model_error` otherwise.
 */
export async function requestSummary(request: SummaryRequest): Promise<SummaryResponse> {
  let result: Awaited<ReturnType<LanguageModelV3["doGenerate"]>>;
  try {
    result = await request.model.doGenerate({
      prompt: [
        { role: "system", content: COMPACTION_SYSTEM_PROMPT },
        {
          role: "user",
          content: [{ type: "text", text: compactionPrompt(request.transcript, request.customInstructions) }],
        },
      ],
      maxOutputTokens: request.maxOutputTokens,
      abortSignal: request.signal,
      providerOptions: request.providerOptions,
    });
  } catch (error) {
    throw summaryError(error, request.signal);
  }
  const summary = result.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("")
    .trim();
  if (summary.length === 0)
    throw new GyreError("context_overflow", "Compaction failed: the model returned an empty summary.");
  return { summary, usage: toUsage(result.usage) };
}

function summaryError(error: unknown, signal: AbortSignal | undefined): GyreError {
  if (signal?.aborted) return new GyreError("aborted", "Compaction was interrupted.", { cause: error });
  if (isPromptTooLongError(error)) {
    return new GyreError("context_overflow", "Compaction failed: the summary request itself is too long.", {
      cause: error,
      statusCode: APICallError.isInstance(error) ? error.statusCode : undefined,
    });
  }
  const statusCode = APICallError.isInstance(error) ? error.statusCode : undefined;
  return new GyreError("model_error", `Compaction failed: the summary request failed: ${errorMessage(error)}`, {
    cause: error,
    statusCode,
    retryable: statusCode === undefined || statusCode === 429 || statusCode >= 500,
  });
}

function toUsage(usage: LanguageModelV3Usage): Usage {
  const cacheRead = usage.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
  return {
    input_tokens: usage.inputTokens.noCache ?? Math.max(0, (usage.inputTokens.total ?? 0) - cacheRead - cacheWrite),
    output_tokens: usage.outputTokens.total ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}
