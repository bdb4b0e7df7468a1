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

/**
 * A call of a tool the provider runs itself (Anthropic's `server_tool_use`): Gyre offers only
 * web search (`name: "web_search"`, `input: { query }`). It is never executed by the loop; its
 * result follows in the same message as a `web_search_tool_result` block.
 */
export const ServerToolUseBlock = z.object({
  type: z.literal("server_tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  provider_metadata: ProviderMetadata,
});
export type ServerToolUseBlock = z.infer<typeof ServerToolUseBlock>;

/**
 * One page a provider's web search found, as Anthropic's `web_search_result`. `encrypted_content`
 * is what Anthropic needs back on the next request to cite it ("" from a provider without it).
 */
export const WebSearchResult = z.object({
  type: z.literal("web_search_result"),
  url: z.string(),
  title: z.string(),
  page_age: z.string().nullable(),
  encrypted_content: z.string(),
});
export type WebSearchResult = z.infer<typeof WebSearchResult>;

/** Why a provider's web search failed (Anthropic's error codes: `max_uses_exceeded`, `unavailable`, ...). */
export const WebSearchToolResultError = z.object({
  type: z.literal("web_search_tool_result_error"),
  error_code: z.string(),
});
export type WebSearchToolResultError = z.infer<typeof WebSearchToolResultError>;

/** What a provider's web search returned (Anthropic's `web_search_tool_result`, also for OpenAI's `web_search_call`). */
export const WebSearchToolResultBlock = z.object({
  type: z.literal("web_search_tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.array(WebSearchResult), WebSearchToolResultError]),
  provider_metadata: ProviderMetadata,
});
export type WebSearchToolResultBlock = z.infer<typeof WebSearchToolResultBlock>;

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
  ServerToolUseBlock,
  WebSearchToolResultBlock,
]);
export type AssistantContentBlock = z.infer<typeof AssistantContentBlock>;

export const UserContentBlock = z.discriminatedUnion("type", [TextBlock, ImageBlock, ToolResultBlock]);
export type UserContentBlock = z.infer<typeof UserContentBlock>;

/** Requests of the provider's own tools (Anthropic's `usage.server_tool_use`), billed apart from tokens. */
export const ServerToolUsage = z.object({
  web_search_requests: z.number().int().nonnegative(),
  web_fetch_requests: z.number().int().nonnegative(),
});
export type ServerToolUsage = z.infer<typeof ServerToolUsage>;

/**
 * Token usage in Anthropic's field names; all counts are integers. `server_tool_use`: the
 * provider's own searches, present when the answer made any.
 */
export const Usage = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  server_tool_use: ServerToolUsage.nullable().optional(),
});
export type Usage = z.infer<typeof Usage>;

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  };
  if (a.server_tool_use || b.server_tool_use) {
    sum.server_tool_use = {
      web_search_requests: webSearchRequests(a) + webSearchRequests(b),
      web_fetch_requests: (a.server_tool_use?.web_fetch_requests ?? 0) + (b.server_tool_use?.web_fetch_requests ?? 0),
    };
  }
  return sum;
}

/** The provider's own web searches a usage counts (0 when none). */
export function webSearchRequests(usage: Usage): number {
  return usage.server_tool_use?.web_search_requests ?? 0;
}

/** Why the model stopped, in Anthropic's vocabulary (OpenAI reasons are mapped onto it). */
export const StopReason = z.enum(["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn"]);
export type StopReason = z.infer<typeof StopReason>;
