import type { LanguageModelV3Usage } from "@ai-sdk/provider";
import type { ApiUsage, StopReason, Usage } from "../../protocol/index.js";
import { StopReason as StopReasonSchema } from "../../protocol/index.js";

/**
 * Anthropic's usage semantics: `input_tokens` excludes cache reads and writes. The output's
 * reasoning tokens, where the provider reports them, are Anthropic's `output_tokens_details`.
 */
export function toUsage(usage: LanguageModelV3Usage): Usage & Pick<ApiUsage, "output_tokens_details"> {
  const cacheRead = usage.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
  const input = usage.inputTokens.noCache ?? Math.max(0, (usage.inputTokens.total ?? 0) - cacheRead - cacheWrite);
  const reasoning = usage.outputTokens.reasoning;
  return {
    input_tokens: input,
    output_tokens: usage.outputTokens.total ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
    ...(reasoning !== undefined && { output_tokens_details: { thinking_tokens: reasoning } }),
  };
}

const UNIFIED_STOP: Record<string, StopReason> = {
  stop: "end_turn",
  length: "max_tokens",
  "tool-calls": "tool_use",
  "content-filter": "refusal",
};

/** Map the provider's finish reason onto Anthropic's stop reasons. */
export function toStopReason(unified: string, raw: string | undefined): StopReason {
  const direct = StopReasonSchema.safeParse(raw);
  if (direct.success) return direct.data;
  if (raw === "refusal") return "refusal";
  return UNIFIED_STOP[unified] ?? "end_turn";
}
