import { z } from "zod";
import type { Usage } from "./content.js";

/**
 * Anthropic's Messages API reports fields Gyre does not track (server tool use, cache tiers,
 * service tier, container, context management). The Claude Agent SDK types them as required,
 * so messages carry them as the API does when they are unused: null, or zero in the result's
 * totals. Programs written against the SDK's `SDKMessage` then read Gyre's messages as they
 * read Claude Code's (test/sdk-message-types.test.ts type-checks a recorded run against it).
 */
export const ApiUsageExtras = {
  cache_creation: z.object({ ephemeral_1h_input_tokens: z.number(), ephemeral_5m_input_tokens: z.number() }).nullable(),
  server_tool_use: z.object({ web_search_requests: z.number(), web_fetch_requests: z.number() }).nullable(),
  service_tier: z.enum(["standard", "priority", "batch"]).nullable(),
  speed: z.enum(["standard", "fast"]).nullable(),
  inference_geo: z.string().nullable(),
  iterations: z.array(z.unknown()).nullable(),
  output_tokens_details: z.object({ thinking_tokens: z.number() }).nullable(),
  fallback_credit: z.unknown().nullable(),
};

type Extras = { [K in keyof typeof ApiUsageExtras]: z.infer<(typeof ApiUsageExtras)[K]> };

/** An assistant message's usage: Gyre's four counts, the reasoning tokens where reported, and the API's other fields, unused. */
export function apiUsage(usage: Usage & Partial<Pick<Extras, "output_tokens_details">>): Usage & Extras {
  return {
    ...pick(usage),
    cache_creation: null,
    server_tool_use: usage.server_tool_use ? { ...usage.server_tool_use } : null,
    service_tier: null,
    speed: null,
    inference_geo: null,
    iterations: null,
    output_tokens_details: usage.output_tokens_details ?? null,
    fallback_credit: null,
  };
}

/** A result's totals: as {@link apiUsage}, with zeros instead of nulls (the SDK's `NonNullableUsage`). */
export function resultUsage(usage: Usage): Usage & Extras {
  return {
    ...pick(usage),
    // Gyre does not see which cache tier a write used; Anthropic's default tier is 5 minutes.
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: usage.cache_creation_input_tokens },
    server_tool_use: {
      web_search_requests: usage.server_tool_use?.web_search_requests ?? 0,
      web_fetch_requests: usage.server_tool_use?.web_fetch_requests ?? 0,
    },
    service_tier: "standard",
    speed: "standard",
    inference_geo: "",
    iterations: [],
    output_tokens_details: { thinking_tokens: 0 },
    fallback_credit: null,
  };
}

/** The message-level fields of Anthropic's API message that Gyre leaves unused. */
export const API_MESSAGE_EXTRAS = {
  container: null,
  context_management: null,
  diagnostics: null,
  stop_details: null,
} as const;

/**
 * A content block as the API returns it: text blocks carry `citations` (none), and a thinking
 * block carries its `signature` from the start (empty until the signature arrives).
 */
export function apiBlock<T extends { type: string }>(block: T): T {
  if (block.type === "text" && !("citations" in block)) return { ...block, citations: null };
  if (block.type === "thinking" && !("signature" in block && block.signature !== undefined))
    return { ...block, signature: "" };
  return block;
}

/**
 * A raw stream event as Anthropic sends it: `message_start` carries a full message,
 * `content_block_start` a full block, `message_delta` its context management and full usage.
 */
export function apiStreamEvent<T extends { type: string }>(event: T): T {
  const fields = event as Record<string, unknown>;
  switch (event.type) {
    case "message_start": {
      const message = fields.message as { usage: Usage; content: Array<{ type: string }> };
      return {
        ...event,
        message: {
          ...API_MESSAGE_EXTRAS,
          ...message,
          content: message.content.map(apiBlock),
          usage: apiUsage(message.usage),
        },
      };
    }
    case "content_block_start":
      return { ...event, content_block: apiBlock(fields.content_block as { type: string }) };
    case "content_block_delta": {
      const delta = fields.delta as { type: string };
      // Anthropic's running estimate of thinking tokens; Gyre has none to give.
      return delta.type === "thinking_delta" ? { ...event, delta: { estimated_tokens: null, ...delta } } : event;
    }
    case "message_delta": {
      const usage = fields.usage as Usage;
      return {
        context_management: null,
        ...event,
        delta: { container: null, stop_details: null, ...(fields.delta as object) },
        usage: {
          ...pick(usage),
          server_tool_use: usage.server_tool_use ? { ...usage.server_tool_use } : null,
          iterations: null,
          output_tokens_details: null,
          fallback_credit: null,
        },
      };
    }
    default:
      return event;
  }
}

function pick(usage: Usage): Usage {
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
  };
}
