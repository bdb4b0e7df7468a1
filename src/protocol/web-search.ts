import type { ServerToolUseBlock, WebSearchToolResultBlock } from "./content.js";

/** The query of a provider's web search call (`input.query`), "" when it has none. */
export function webSearchQuery(block: ServerToolUseBlock): string {
  const input = block.input as { query?: unknown } | null | undefined;
  return typeof input?.query === "string" ? input.query : "";
}

/**
 * A provider's web search result as text, in the words of the WebSearch tool: the query, then
 * each page as a markdown link (for transcripts, the terminal, and a model of another provider).
 */
export function describeWebSearchResult(result: WebSearchToolResultBlock, query: string): string {
  const heading = `Web search results for query: "${query}"`;
  if (!Array.isArray(result.content)) return `${heading}\n\nThe search failed: ${result.content.error_code}.`;
  if (result.content.length === 0) return `${heading}\n\nNo results.`;
  const list = result.content.map((page, index) => `${index + 1}. [${page.title}](${page.url})`).join("\n");
  return `${heading}\n\n${list}`;
}
