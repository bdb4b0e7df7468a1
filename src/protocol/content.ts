import { z } from "zod";

/**
 * Content blocks in the shapes of Anthropic's Messages API, which is what the Claude Agent
 * SDK's messages carry. `provider_metadata` is Gyre's addition: opaque data a provider
 * needs back on the next request (reasoning signatures, Responses item ids).
 */
const ProviderMetadata = z.record(z.string(), z.record(z.string(), z.unknown())).optional();

export const TextBlock = z.object({
  type: z.literal("text"),
  text: z.string(),
  /** Anthropic's citations of a text block; Gyre emits `null` (none). */
  citations: z.array(z.unknown()).nullable().optional(),
  provider_metadata: ProviderMetadata,
});
export type TextBlock = z.infer<typeof TextBlock>;

export const ThinkingBlock = z.object({
  type: z.literal("thinking"),
  thinking: z.string(),
  signature: z.string().optional(),
  provider_metadata: ProviderMetadata,
});
export type ThinkingBlock = z.infer<typeof ThinkingBlock>;

export const RedactedThinkingBlock = z.object({
  type: z.literal("redacted_thinking"),
  data: z.string(),
  provider_metadata: ProviderMetadata,
});
export type RedactedThinkingBlock = z.infer<typeof RedactedThinkingBlock>;

export const ToolUseBlock = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  provider_metadata: ProviderMetadata,
});
export type ToolUseBlock = z.infer<typeof ToolUseBlock>;

export const ImageBlock = z.object({
  type: z.literal("image"),
  source: z.object({
    type: z.literal("base64"),
    media_type: z.string(),
    data: z.string(),
  }),
});
export type ImageBlock = z.infer<typeof ImageBlock>;

export const ToolResultBlock = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.union([TextBlock, ImageBlock]))]),
  is_error: z.boolean().optional(),
});
export type ToolResultBlock = z.infer<typeof ToolResultBlock>;

export const AssistantContentBlock = z.discriminatedUnion("type", [
  TextBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
]);
export type AssistantContentBlock = z.infer<typeof AssistantContentBlock>;

export const UserContentBlock = z.discriminatedUnion("type", [TextBlock, ImageBlock, ToolResultBlock]);
export type UserContentBlock = z.infer<typeof UserContentBlock>;

/** Token usage in Anthropic's field names; all counts are integers. */
export const Usage = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  };
}

/** Why the model stopped, in Anthropic's vocabulary (OpenAI reasons are mapped onto it). */
export const StopReason = z.enum(["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn"]);
export type StopReason = z.infer<typeof StopReason>;
