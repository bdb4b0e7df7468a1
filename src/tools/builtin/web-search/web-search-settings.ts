import { z } from "zod";

/**
 * Where WebSearch searches (a Gyre addition: the `webSearch` option, or the `webSearch` key of
 * a settings file): an HTTP search API — `brave` (Brave Search API, key in `BRAVE_API_KEY`),
 * `tavily` (key in `TAVILY_API_KEY`) or `searxng` (a SearXNG instance at `url` with its JSON
 * format turned on) — or `provider`: only the run's provider's own search (Anthropic's web
 * search tool, OpenAI Responses' `web_search`), which is also used when no backend is set.
 */
export const WebSearchSettings = z
  .strictObject({
    backend: z.enum(["provider", "brave", "tavily", "searxng"]),
    /** The provider's search only: results from these domains only (and their subdomains). */
    allowedDomains: z.array(z.string().min(1)).optional(),
    /** The provider's search only: never results from these domains. */
    blockedDomains: z.array(z.string().min(1)).optional(),
    /** The provider's search only: searches one answer may make (Anthropic's `max_uses`). */
    maxUses: z.number().int().positive().optional(),
    /** The API's address: required for `searxng`; for the others, their public API unless given. */
    url: z.string().url().optional(),
    /** The environment variable that holds the API key (default `BRAVE_API_KEY`, `TAVILY_API_KEY`; SearXNG needs none). */
    apiKeyEnv: z.string().min(1).optional(),
    /** Results one search returns (default 10). */
    maxResults: z.number().int().positive().max(50).optional(),
    /** Milliseconds a search may take (default 30,000). */
    timeoutMs: z.number().int().positive().optional(),
  })
  .refine((settings) => !(settings.allowedDomains?.length && settings.blockedDomains?.length), {
    message: "give allowedDomains or blockedDomains, not both",
  });
/** WebSearch's settings, as the schema of the same name checks them. */
export type WebSearchSettings = z.infer<typeof WebSearchSettings>;
