import { type CostTracker, type Model, type ModelTool, responseOf, type ServerSearchOptions } from "../model/index.js";
import { type SearchBackend, SearchFailed, type SearchHit } from "../tools/builtin/index.js";

/** The instructions of a search request (Claude Code's WebSearch asks its model the same way). */
export const PROVIDER_SEARCH_SYSTEM = "You are an assistant for performing a web search tool use.";

/**
 * WebSearch's backend when a call of it was asked about and approved (the provider's search could
 * not stand in for it unasked): a request of its own to the run's model with only the provider's
 * search, as Claude Code's WebSearch makes one; the pages its search found are the hits. The call's
 * domains, else the settings', go to the provider's tool. The request's tokens and searches count
 * in the run's `costs`, as WebFetch's small model's do.
 */
export function providerSearchBackend(model: Model, options: ServerSearchOptions, costs: CostTracker): SearchBackend {
  return async (request) => {
    const allowed = request.allowedDomains.length > 0 ? request.allowedDomains : options.allowedDomains;
    const blocked = request.blockedDomains.length > 0 ? request.blockedDomains : options.blockedDomains;
    if (model.api === "google" && (allowed?.length || blocked?.length)) {
      throw new SearchFailed(
        "Gemini's Google Search cannot keep to or leave out domains: search without allowed_domains / blocked_domains.",
      );
    }
    const tool: ModelTool = {
      name: "WebSearch",
      description: "Searches the web.",
      inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      serverSearch: {
        ...(allowed && allowed.length > 0 && { allowedDomains: allowed }),
        ...(blocked && blocked.length > 0 && !(allowed && allowed.length > 0) && { blockedDomains: blocked }),
        ...(options.maxUses !== undefined && { maxUses: options.maxUses }),
      },
    };
    const { message } = await responseOf(
      model.stream({
        system: PROVIDER_SEARCH_SYSTEM,
        history: [{ role: "user", content: `Perform a web search for the query: ${request.query}` }],
        tools: [tool],
        signal: request.signal,
      }),
    );
    costs.add(model.id, message.usage, model.info);
    const hits = new Map<string, SearchHit>();
    const failures: string[] = [];
    let searched = false;
    for (const block of message.content) {
      if (block.type !== "web_search_tool_result") continue;
      searched = true;
      if (!Array.isArray(block.content)) failures.push(block.content.error_code);
      else
        for (const page of block.content)
          if (!hits.has(page.url)) hits.set(page.url, { title: page.title, url: page.url });
    }
    if (!searched) throw new SearchFailed(`${model.id} answered without running its provider's web search.`);
    if (hits.size === 0 && failures.length > 0) {
      throw new SearchFailed(`The provider's web search failed: ${failures.join(", ")}.`);
    }
    return [...hits.values()];
  };
}
