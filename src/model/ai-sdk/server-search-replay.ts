import type {
  LanguageModelV3Message,
  LanguageModelV3ToolResultOutput,
  SharedV3ProviderOptions,
} from "@ai-sdk/provider";
import {
  type AssistantContentBlock,
  describeWebSearchResult,
  type ServerToolUseBlock,
  type WebSearchToolResultBlock,
  webSearchQuery,
} from "../../protocol/index.js";
import type { ModelApi } from "../model.js";

type AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];

/** The name the AI SDK's provider packages give a web search call (Gyre names its provider tool so). */
export const WEB_SEARCH_TOOL_NAME = "web_search";

/** What converting one assistant message needs to replay its web searches: the request's API, and the queries seen. */
export interface ServerSearchReplay {
  api: ModelApi | undefined;
  /** The API each web search of the message came from, by call id ({@link searchOrigins}). */
  origins: ReadonlyMap<string, ModelApi>;
  /** Queries of the message's web search calls, by call id (a result needs its call's query). */
  queries: Map<string, string>;
}

/**
 * A provider's web search (call or result) as the AI SDK takes it back: to the provider that ran
 * it, a provider-executed tool call and result, which its package sends as they came (Anthropic's
 * `server_tool_use` and `web_search_tool_result` blocks, OpenAI's `web_search_call` item); to any
 * other model, which never saw that search, text saying what was searched and found.
 */
export function serverSearchParts(
  block: ServerToolUseBlock | WebSearchToolResultBlock,
  replay: ServerSearchReplay,
): AssistantPart[] {
  const origin = replay.origins.get(block.type === "server_tool_use" ? block.id : block.tool_use_id) ?? "anthropic";
  // Gemini takes no search blocks back (its grounding is metadata of an answer, not a part of it).
  const native = origin === replay.api && origin !== "google";
  if (block.type === "server_tool_use") {
    const query = webSearchQuery(block);
    replay.queries.set(block.id, query);
    if (!native) return [];
    return [
      {
        type: "tool-call",
        toolCallId: block.id,
        toolName: WEB_SEARCH_TOOL_NAME,
        // OpenAI's call has no input of its own (the query is in its result).
        input: origin === "openai-responses" ? {} : (block.input ?? {}),
        providerExecuted: true,
      },
    ];
  }
  const query = replay.queries.get(block.tool_use_id) ?? "";
  if (!native) return [{ type: "text", text: describeWebSearchResult(block, query) }];
  return [
    {
      type: "tool-result",
      toolCallId: block.tool_use_id,
      toolName: WEB_SEARCH_TOOL_NAME,
      output: origin === "openai-responses" ? openaiOutput(block, query) : anthropicOutput(block),
      providerOptions: block.provider_metadata as SharedV3ProviderOptions | undefined,
    },
  ];
}

/**
 * The API each web search of a message came from, by call id: OpenAI's results carry their item
 * id (which its package sends back as an `item_reference`), Gemini's grounding its `google` mark,
 * Anthropic's nothing.
 */
export function searchOrigins(content: readonly AssistantContentBlock[]): Map<string, ModelApi> {
  const origins = new Map<string, ModelApi>();
  for (const block of content) {
    if (block.type !== "web_search_tool_result") continue;
    origins.set(block.tool_use_id, originOf(block));
  }
  return origins;
}

function originOf(block: WebSearchToolResultBlock): ModelApi {
  if (block.provider_metadata?.openai?.itemId !== undefined) return "openai-responses";
  if (block.provider_metadata?.google?.grounding !== undefined) return "google";
  return "anthropic";
}

function anthropicOutput(block: WebSearchToolResultBlock): LanguageModelV3ToolResultOutput {
  if (!Array.isArray(block.content)) {
    return { type: "error-json", value: { type: block.content.type, errorCode: block.content.error_code } };
  }
  return {
    type: "json",
    value: block.content.map((page) => ({
      type: page.type,
      url: page.url,
      title: page.title,
      pageAge: page.page_age,
      encryptedContent: page.encrypted_content,
    })),
  };
}

/** Read only when the Responses API does not store responses (`store: false`); else the item id is sent. */
function openaiOutput(block: WebSearchToolResultBlock, query: string): LanguageModelV3ToolResultOutput {
  const sources = Array.isArray(block.content) ? block.content.map((page) => ({ type: "url", url: page.url })) : [];
  return { type: "json", value: { action: { type: "search", query }, sources } };
}
