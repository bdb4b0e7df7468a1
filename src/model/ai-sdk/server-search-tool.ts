import type { LanguageModelV3ProviderTool } from "@ai-sdk/provider";
import type { ModelApi, ServerSearchOptions } from "../model.js";
import { WEB_SEARCH_TOOL_NAME } from "./server-search-replay.js";

/**
 * The provider's own web search tool, as the AI SDK's provider packages take it
 * (`anthropic.tools.webSearch_20250305`, `openai.tools.webSearch`); undefined for an API
 * without one (the search tool is then a function tool that Gyre runs).
 */
export function serverSearchTool(
  api: ModelApi | undefined,
  options: ServerSearchOptions,
): LanguageModelV3ProviderTool | undefined {
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
