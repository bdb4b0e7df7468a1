import type { LanguageModelV3ProviderTool } from "@ai-sdk/provider";
import type { ModelApi, ServerSearchOptions } from "../model.js";
import { WEB_SEARCH_TOOL_NAME } from "./server-search-replay.js";

/** The name `@ai-sdk/google` gives its Google Search tool. */
export const GOOGLE_SEARCH_TOOL_NAME = "google_search";

/**
 * The provider's own web search tool, as the AI SDK's provider packages take it
 * (`anthropic.tools.webSearch_20250305`, `openai.tools.webSearch`, `google.tools.googleSearch`);
 * undefined for an API without one (the search tool is then a function tool that Gyre runs).
 * `alone`: the request offers no other tool. Gemini's grounding goes only into such a request:
 * Gemini 2.x cannot combine Google Search with function declarations (`@ai-sdk/google` then drops
 * the functions), so beside other tools the search tool stays a function tool, whose calls search
 * through a request of their own (see `providerSearchBackend`). Gemini takes no domain filter or
 * search limit: its tool goes without options.
 */
export function serverSearchTool(
  api: ModelApi | undefined,
  options: ServerSearchOptions,
  alone = false,
): LanguageModelV3ProviderTool | undefined {
  if (api === "google") {
    return alone
      ? { type: "provider", id: "google.google_search", name: GOOGLE_SEARCH_TOOL_NAME, args: {} }
      : undefined;
  }
  const allowedDomains = nonEmpty(options.allowedDomains);
  const blockedDomains = nonEmpty(options.blockedDomains);
  if (api === "anthropic") {
    return {
      type: "provider",
      id: "anthropic.web_search_20250305",
      name: WEB_SEARCH_TOOL_NAME,
      args: {
        ...(options.maxUses !== undefined && { maxUses: options.maxUses }),
        ...(allowedDomains && { allowedDomains }),
        ...(blockedDomains && { blockedDomains }),
      },
    };
  }
  if (api === "openai-responses") {
    return {
      type: "provider",
      id: "openai.web_search",
      name: WEB_SEARCH_TOOL_NAME,
      args: allowedDomains || blockedDomains ? { filters: { allowedDomains, blockedDomains } } : {},
    };
  }
  return undefined;
}

function nonEmpty(domains: readonly string[] | undefined): string[] | undefined {
  return domains && domains.length > 0 ? [...domains] : undefined;
}
