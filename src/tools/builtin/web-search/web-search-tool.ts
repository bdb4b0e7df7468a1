import { z } from "zod";
import { defineTool } from "../../define-tool.js";
import type { ServerSearchOptions } from "../../../model/index.js";
import type { Tool, ToolResult } from "../../tool.js";
import { type SearchBackend, SearchFailed, type SearchHit } from "./search-backends.js";

/** WebSearch input, as in Claude Code. */
export const WebSearchInput = z.strictObject({
  query: z.string().min(2).describe("The search query to use"),
  allowed_domains: z.array(z.string()).optional().describe("Only include search results from these domains"),
  blocked_domains: z.array(z.string()).optional().describe("Never include search results from these domains"),
});
export type WebSearchInput = z.infer<typeof WebSearchInput>;

/** What a call reports to its caller (`tool_use_result`): Claude Code's `WebSearchOutput`. */
export interface WebSearchOutput {
  /** The query searched. */
  query: string;
  /** The hits, under the call's id, as Claude Code reports them. */
  results: Array<{ tool_use_id: string; content: SearchHit[] } | string>;
  /** Time the search took. */
  durationSeconds: number;
  /** Searches made (one). */
  searchCount: number;
}

/** How a WebSearch tool is built: where it searches. */
export interface WebSearchToolOptions {
  /** Where to search; absent, a call fails saying how to configure one (`unavailable`). */
  backend?: SearchBackend;
  /** Why there is no backend, for the model and the user. */
  unavailable?: string;
  /** The provider's own search may stand in for the tool, with these options (see `Tool.serverSearch`). */
  serverSearch?: ServerSearchOptions;
  /** The clock for `durationSeconds`. */
  now?: () => number;
}

const DESCRIPTION = `Searches the web and returns the results (titles, links and snippets) to inform your answers with information past your training data.

Usage notes:
- Use it for current events and recent data.
- allowed_domains keeps only results from those domains (and their subdomains); blocked_domains leaves theirs out.
- After answering from the results, you MUST list the sources you used at the end of your answer, as markdown links: "Sources:" then "- [Title](URL)".
- Mind today's date when you search for recent information.`;

/** WebSearch (Claude Code compatible), over a search API. */
export function webSearchTool(options: WebSearchToolOptions = {}): Tool<WebSearchInput> {
  const now = options.now ?? Date.now;
  const tool = defineTool({
    name: "WebSearch",
    description: DESCRIPTION,
    inputSchema: WebSearchInput,
    sideEffect: "network",
    idempotent: true,
    execute: async (input, context): Promise<ToolResult> => {
      const allowed = input.allowed_domains ?? [];
      const blocked = input.blocked_domains ?? [];
      if (allowed.length > 0 && blocked.length > 0) {
        return { content: "Give allowed_domains or blocked_domains, not both.", isError: true };
      }
      if (!options.backend) {
        return { content: options.unavailable ?? "WebSearch has no search backend configured.", isError: true };
      }
      const started = now();
      let hits: SearchHit[];
      try {
        hits = await options.backend({
          query: input.query,
          allowedDomains: allowed,
          blockedDomains: blocked,
          signal: context.signal,
        });
      } catch (error) {
        if (error instanceof SearchFailed) return { content: error.message, isError: true };
        throw error;
      }
      const data: WebSearchOutput = {
        query: input.query,
        results: [{ tool_use_id: context.toolUseId, content: hits }],
        durationSeconds: (now() - started) / 1000,
        searchCount: 1,
      };
      return { content: describeHits(input.query, hits), data };
    },
  });
  return options.serverSearch ? { ...tool, serverSearch: options.serverSearch } : tool;
}

function describeHits(query: string, hits: SearchHit[]): string {
  if (hits.length === 0) return `Web search results for query: "${query}"\n\nNo results.`;
  const list = hits
    .map((hit, index) => `${index + 1}. [${hit.title}](${hit.url})${hit.snippet ? `\n   ${hit.snippet}` : ""}`)
    .join("\n");
  return (
    `Web search results for query: "${query}"\n\n${list}\n\n` +
    "REMINDER: include the sources you use in your answer to the user as markdown links."
  );
}
