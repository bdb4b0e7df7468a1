/** What a fetched URL is cached as: its text and how it answered. */
export interface CachedPage {
  url: string;
  text: string;
  code: number;
  codeText: string;
  bytes: number;
}

/** Claude Code's WebFetch keeps pages 15 minutes. */
export const CACHE_TTL_MS = 15 * 60 * 1000;
/** Characters of page text kept in all (oldest pages dropped first), so the cache cannot grow without end. */
const MAX_CACHED_CHARS = 50_000_000;

/**
 * Pages fetched in the last 15 minutes, by URL, shared by the process's WebFetch tools (as
 * Claude Code's is): a second fetch of a URL, with another prompt, makes no request.
 */
export class PageCache {
  readonly #pages = new Map<string, { page: CachedPage; at: number }>();
  #chars = 0;

  constructor(readonly now: () => number = Date.now) {}

  get(url: string): CachedPage | undefined {
    const entry = this.#pages.get(url);
    if (!entry) return undefined;
    if (this.now() - entry.at < CACHE_TTL_MS) return entry.page;
    this.#drop(url);
    return undefined;
  }

  set(url: string, page: CachedPage): void {
    this.#drop(url);
    this.#pages.set(url, { page, at: this.now() });
    this.#chars += page.text.length;
    for (const key of this.#pages.keys()) {
      if (this.#chars <= MAX_CACHED_CHARS) break;
      this.#drop(key);
    }
  }

  #drop(url: string): void {
    const entry = this.#pages.get(url);
    if (!entry) return;
    this.#chars -= entry.page.text.length;
    this.#pages.delete(url);
  }
}

/** The cache WebFetch tools share unless given their own. */
export const sharedPageCache = new PageCache();
