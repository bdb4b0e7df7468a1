import type { fetch as UndiciFetch } from "undici";
import type { WebSearchSettings } from "./web-search-settings.js";

/** One result of a search. */
export interface SearchHit {
  /** The page's title. */
  title: string;
  /** The page's address. */
  url: string;
  /** What the search API quoted of the page. */
  snippet?: string;
}

/** What WebSearch asks a backend. */
export interface SearchRequest {
  /** The model's query. */
  query: string;
  /** Only hits of these domains (and their subdomains); empty: any. */
  allowedDomains: readonly string[];
  /** No hits of these domains (and their subdomains). */
  blockedDomains: readonly string[];
  /** Aborted when the call is. */
  signal: AbortSignal;
}

/** Runs a search; a failure throws an error whose message the model can act on. */
export type SearchBackend = (request: SearchRequest) => Promise<SearchHit[]>;

/** A search that failed, with words the model can act on. */
export class SearchFailed extends Error {}

const PUBLIC_URLS = {
  brave: "https://api.search.brave.com/res/v1/web/search",
  tavily: "https://api.tavily.com/search",
} as const;
const KEY_ENV = { brave: "BRAVE_API_KEY", tavily: "TAVILY_API_KEY" } as const;

/** An HTTP search API's settings (any backend but `provider`). */
export type HttpSearchSettings = WebSearchSettings & { backend: Exclude<WebSearchSettings["backend"], "provider"> };

/** The backend `settings` names, its key read through `env` at each search. */
export function searchBackend(settings: HttpSearchSettings, env: (name: string) => string | undefined): SearchBackend {
  const max = settings.maxResults ?? 10;
  const timeoutMs = settings.timeoutMs ?? 30_000;
  return async (request) => {
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]);
    const hits = await query(settings, env, { ...request, signal }, max).catch((error: unknown) => {
      if (error instanceof SearchFailed || request.signal.aborted) throw error;
      const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
      throw new SearchFailed(
        `The ${settings.backend} search failed: ${String((error as Error).message ?? error)}${cause}`,
      );
    });
    return filterDomains(hits, request).slice(0, max);
  };
}

async function query(
  settings: HttpSearchSettings,
  env: (name: string) => string | undefined,
  request: SearchRequest,
  max: number,
): Promise<SearchHit[]> {
  const { backend } = settings;
  if (backend === "searxng") {
    if (!settings.url) throw new SearchFailed("webSearch.url must name the SearXNG instance.");
    const url = new URL("search", settings.url.endsWith("/") ? settings.url : `${settings.url}/`);
    url.searchParams.set("q", withSites(request));
    url.searchParams.set("format", "json");
    const body = (await getJson(url, {}, request.signal)) as { results?: Array<Record<string, unknown>> };
    return (body.results ?? []).map((result) => hit(result.title, result.url, result.content));
  }
  const keyEnv = settings.apiKeyEnv ?? KEY_ENV[backend];
  const key = env(keyEnv);
  if (!key) throw new SearchFailed(`WebSearch's ${backend} backend needs an API key in ${keyEnv}, which is not set.`);
  if (backend === "brave") {
    const url = new URL(settings.url ?? PUBLIC_URLS.brave);
    url.searchParams.set("q", withSites(request));
    url.searchParams.set("count", String(Math.min(max, 20)));
    const headers = { "x-subscription-token": key, accept: "application/json" };
    const body = (await getJson(url, headers, request.signal)) as {
      web?: { results?: Array<Record<string, unknown>> };
    };
    return (body.web?.results ?? []).map((result) => hit(result.title, result.url, result.description));
  }
  const response = await undiciFetch(settings.url ?? PUBLIC_URLS.tavily, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      query: request.query,
      max_results: max,
      ...(request.allowedDomains.length > 0 && { include_domains: request.allowedDomains }),
      ...(request.blockedDomains.length > 0 && { exclude_domains: request.blockedDomains }),
    }),
    signal: request.signal,
  });
  const body = (await jsonOf(response)) as { results?: Array<Record<string, unknown>> };
  return (body.results ?? []).map((result) => hit(result.title, result.url, result.content));
}

async function getJson(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  return jsonOf(await undiciFetch(url, { headers, signal }));
}

async function jsonOf(response: Awaited<ReturnType<typeof UndiciFetch>>): Promise<unknown> {
  if (!response.ok) {
    const text = (await response.text()).slice(0, 300);
    throw new SearchFailed(`The search API answered ${response.status} ${response.statusText}: ${text}`);
  }
  return response.json();
}

/** Brave and SearXNG take `site:` operators; the results are filtered here anyway. */
function withSites(request: SearchRequest): string {
  const sites = request.allowedDomains.map((domain) => `site:${domain}`).join(" OR ");
  const blocked = request.blockedDomains.map((domain) => `-site:${domain}`).join(" ");
  return [request.query, sites && `(${sites})`, blocked].filter(Boolean).join(" ");
}

function hit(title: unknown, url: unknown, snippet: unknown): SearchHit {
  return {
    title: typeof title === "string" ? title : String(url),
    url: String(url),
    ...(typeof snippet === "string" && snippet !== "" && { snippet }),
  };
}

/** A domain covers itself and its subdomains, as Claude Code's allowed and blocked domains do. */
function filterDomains(hits: SearchHit[], request: SearchRequest): SearchHit[] {
  const host = (url: string) => {
    try {
      return new URL(url).hostname.toLowerCase();
    } catch {
      return "";
    }
  };
  const within = (name: string, domain: string) => {
    const d = domain.toLowerCase().replace(/^\*\./, "");
    return name === d || name.endsWith(`.${d}`);
  };
  return hits.filter((result) => {
    const name = host(result.url);
    if (name === "") return false;
    if (request.blockedDomains.some((domain) => within(name, domain))) return false;
    return request.allowedDomains.length === 0 || request.allowedDomains.some((domain) => within(name, domain));
  });
}

/** undici's fetch, loaded by the first search, not with the tools. */
async function undiciFetch(...args: Parameters<typeof UndiciFetch>): ReturnType<typeof UndiciFetch> {
  const { fetch } = await import("undici");
  return fetch(...args);
}
