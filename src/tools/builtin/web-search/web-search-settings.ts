import { z } from "zod";

/**
 * Where WebSearch searches (a Gyre addition: the `webSearch` option, or the `webSearch` key of
 * a settings file): an HTTP search API. `brave` (Brave Search API, key in `BRAVE_API_KEY`),
 * `tavily` (key in `TAVILY_API_KEY`) or `searxng` (a SearXNG instance at `url` with its JSON
 * format turned on).
 */
export const WebSearchSettings = z.strictObject({
  backend: z.enum(["brave", "tavily", "searxng"]),
  /** The API's address: required for `searxng`; for the others, their public API unless given. */
  url: z.string().url().optional(),
  /** The environment variable that holds the API key (default `BRAVE_API_KEY`, `TAVILY_API_KEY`; SearXNG needs none). */
  apiKeyEnv: z.string().min(1).optional(),
  /** Results one search returns (default 10). */
  maxResults: z.number().int().positive().max(50).optional(),
  /** Milliseconds a search may take (default 30,000). */
  timeoutMs: z.number().int().positive().optional(),
});
/** WebSearch's settings, as the schema of the same name checks them. */
export type WebSearchSettings = z.infer<typeof WebSearchSettings>;
