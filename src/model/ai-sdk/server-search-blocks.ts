import type { JSONValue, LanguageModelV3Usage } from "@ai-sdk/provider";
import type {
  AssistantContentBlock,
  ServerToolUseBlock,
  ServerToolUsage,
  TextBlock,
  WebSearchResult,
  WebSearchToolResultBlock,
} from "../../protocol/index.js";
import type { ModelApi } from "../model.js";

/**
 * A provider's web search result (the AI SDK's provider-executed `tool-result` of `web_search`)
 * as Anthropic's `web_search_tool_result` block, with the query when only the result names it
 * (OpenAI's `web_search_call` carries its query in its action).
 */
export function webSearchResultBlock(
  part: { toolCallId: string; result: JSONValue; isError?: boolean },
  api: ModelApi | undefined,
): { block: WebSearchToolResultBlock; query?: string } {
  const result = part.result;
  if (api === "openai-responses") return openaiResult(part.toolCallId, result, part.isError === true);
  const block: WebSearchToolResultBlock = {
    type: "web_search_tool_result",
    tool_use_id: part.toolCallId,
    content: Array.isArray(result)
      ? result.flatMap((page) => (isRecord(page) ? [anthropicPage(page)] : []))
      : {
          type: "web_search_tool_result_error",
          error_code: isRecord(result) && typeof result.errorCode === "string" ? result.errorCode : "unavailable",
        },
  };
  return { block };
}

function anthropicPage(page: Record<string, JSONValue | undefined>): WebSearchResult {
  const url = typeof page.url === "string" ? page.url : "";
  return {
    type: "web_search_result",
    url,
    title: typeof page.title === "string" ? page.title : url,
    page_age: typeof page.pageAge === "string" ? page.pageAge : null,
    encrypted_content: typeof page.encryptedContent === "string" ? page.encryptedContent : "",
  };
}

/** OpenAI's result: `{ action: { type: "search", query }, sources: [{ type: "url", url }] }`, or `{ status }` when it failed. */
function openaiResult(
  id: string,
  result: JSONValue,
  isError: boolean,
): { block: WebSearchToolResultBlock; query?: string } {
  // The item id, which OpenAI's package sends back as an `item_reference` on the next request.
  const provider_metadata = { openai: { itemId: id } };
  const record = isRecord(result) ? result : {};
  if (isError) {
    const status = typeof record.status === "string" ? record.status : "failed";
    const content = { type: "web_search_tool_result_error" as const, error_code: status };
    return { block: { type: "web_search_tool_result", tool_use_id: id, content, provider_metadata } };
  }
  const action = isRecord(record.action) ? record.action : {};
  const sources = Array.isArray(record.sources) ? record.sources : [];
  const content = sources.flatMap((source): WebSearchResult[] =>
    isRecord(source) && typeof source.url === "string"
      ? [{ type: "web_search_result", url: source.url, title: source.url, page_age: null, encrypted_content: "" }]
      : [],
  );
  const block: WebSearchToolResultBlock = {
    type: "web_search_tool_result",
    tool_use_id: id,
    content,
    provider_metadata,
  };
  const query = typeof action.query === "string" ? action.query : undefined;
  return query === undefined ? { block } : { block, query };
}

/** What a grounded Gemini answer searched and found, as the blocks of one search. */
export interface GroundingSearch {
  call: ServerToolUseBlock;
  result: WebSearchToolResultBlock;
  /** The queries Google ran (the empty ones Gemini sometimes lists are left out: they are not billed). */
  queries: string[];
  /** `groundingSupports` as Anthropic's citations: the words of the answer each page supports. */
  citations: WebCitation[];
}

/** A `web_search_result_location` citation (what a text block's `citations` hold). */
export interface WebCitation {
  type: "web_search_result_location";
  url: string;
  title: string;
  cited_text: string;
  encrypted_index: string;
}

/**
 * A Gemini answer's grounding with Google Search (`providerMetadata.google.groundingMetadata` of
 * `@ai-sdk/google`'s finish part: `webSearchQueries`, `groundingChunks[].web { uri, title }`) as one
 * search in Anthropic's blocks: a `server_tool_use` whose `input.query` is the queries joined by
 * "; " (and `input.queries` each), and a `web_search_tool_result` with the pages. Gemini does not
 * say which query found which page, so one block pair holds them all. The result carries
 * `provider_metadata.google.grounding`, which marks its origin: Gemini takes no such blocks back,
 * so they are replayed as text. Undefined when the answer was not grounded in a web search.
 */
export function groundingSearch(
  metadata: Record<string, Record<string, unknown> | undefined> | undefined,
  id: string,
): GroundingSearch | undefined {
  const grounding = metadata?.google?.groundingMetadata;
  if (!isRecord(grounding)) return undefined;
  const listed = Array.isArray(grounding.webSearchQueries) ? grounding.webSearchQueries : [];
  const queries = listed.filter((query): query is string => typeof query === "string" && query.trim() !== "");
  const chunks = Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : [];
  const pages = new Map<string, WebSearchResult>();
  for (const chunk of chunks) {
    const web = isRecord(chunk) && isRecord(chunk.web) ? chunk.web : undefined;
    if (typeof web?.uri !== "string" || pages.has(web.uri)) continue;
    const title = typeof web.title === "string" && web.title !== "" ? web.title : web.uri;
    pages.set(web.uri, { type: "web_search_result", url: web.uri, title, page_age: null, encrypted_content: "" });
  }
  if (queries.length === 0 && pages.size === 0) return undefined;
  const byIndex = chunks.map((chunk) => {
    const web = isRecord(chunk) && isRecord(chunk.web) ? chunk.web : undefined;
    return typeof web?.uri === "string" ? pages.get(web.uri) : undefined;
  });
  const supports = Array.isArray(grounding.groundingSupports) ? grounding.groundingSupports : [];
  const citations = supports.flatMap((support): WebCitation[] => {
    if (!isRecord(support) || !isRecord(support.segment) || typeof support.segment.text !== "string") return [];
    const cited = support.segment.text;
    const indices = Array.isArray(support.groundingChunkIndices) ? support.groundingChunkIndices : [];
    return indices.flatMap((index) => {
      const page = typeof index === "number" ? byIndex[index] : undefined;
      if (!page) return [];
      return [
        {
          type: "web_search_result_location",
          url: page.url,
          title: page.title,
          cited_text: cited,
          encrypted_index: "",
        },
      ];
    });
  });
  const call: ServerToolUseBlock = {
    type: "server_tool_use",
    id,
    name: "web_search",
    input: { query: queries.join("; "), queries },
  };
  const result: WebSearchToolResultBlock = {
    type: "web_search_tool_result",
    tool_use_id: id,
    content: [...pages.values()],
    provider_metadata: { google: { grounding: true } },
  };
  return { call, result, queries, citations };
}

/**
 * A text block's citations of web pages, in Anthropic's shape (`web_search_result_location`), from
 * what its provider package put on the text's end: Anthropic's own citations, or OpenAI's
 * `url_citation` annotations (whose titles also name the search's pages).
 */
export function textCitations(
  block: TextBlock,
  metadata: Record<string, Record<string, unknown> | undefined>,
): unknown[] | undefined {
  const anthropic = metadata.anthropic?.citations;
  if (Array.isArray(anthropic) && anthropic.length > 0) return anthropic;
  const annotations = metadata.openai?.annotations;
  if (!Array.isArray(annotations)) return undefined;
  const citations = annotations.flatMap((annotation) => {
    if (!isRecord(annotation) || annotation.type !== "url_citation" || typeof annotation.url !== "string") return [];
    const start = typeof annotation.start_index === "number" ? annotation.start_index : 0;
    const end = typeof annotation.end_index === "number" ? annotation.end_index : start;
    return [
      {
        type: "web_search_result_location",
        url: annotation.url,
        title: typeof annotation.title === "string" ? annotation.title : annotation.url,
        cited_text: block.text.slice(start, end),
        encrypted_index: "",
      },
    ];
  });
  return citations.length > 0 ? citations : undefined;
}

/**
 * Titles for OpenAI's search results, which name only their urls: the titles the answer's
 * citations give the same pages.
 */
export function titleResults(content: AssistantContentBlock[]): void {
  const titles = new Map<string, string>();
  for (const block of content) {
    if (block.type !== "text" || !Array.isArray(block.citations)) continue;
    for (const citation of block.citations) {
      if (isRecord(citation) && typeof citation.url === "string" && typeof citation.title === "string") {
        titles.set(citation.url, citation.title);
      }
    }
  }
  for (const block of content) {
    if (block.type !== "web_search_tool_result" || !Array.isArray(block.content)) continue;
    for (const page of block.content) if (page.title === page.url) page.title = titles.get(page.url) ?? page.title;
  }
}

/**
 * The answer's own server tool requests: as the provider reported them (Anthropic's
 * `usage.server_tool_use`), else the web searches it made (OpenAI reports none); undefined
 * when there were none.
 */
export function serverToolUsage(
  usage: LanguageModelV3Usage,
  content: readonly AssistantContentBlock[],
): ServerToolUsage | undefined {
  const reported = isRecord(usage.raw) ? usage.raw.server_tool_use : undefined;
  if (isRecord(reported)) {
    const searches = typeof reported.web_search_requests === "number" ? reported.web_search_requests : 0;
    const fetches = typeof reported.web_fetch_requests === "number" ? reported.web_fetch_requests : 0;
    if (searches + fetches > 0) return { web_search_requests: searches, web_fetch_requests: fetches };
  }
  const made = content.filter((block) => block.type === "web_search_tool_result" && Array.isArray(block.content));
  return made.length > 0 ? { web_search_requests: made.length, web_fetch_requests: 0 } : undefined;
}

function isRecord(value: unknown): value is Record<string, JSONValue | undefined> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
