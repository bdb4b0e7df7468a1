import { describe, expect, it } from "vitest";
import { FetchFailed, sameSite } from "./fetch-page.js";
import { PageCache, CACHE_TTL_MS } from "./page-cache.js";
import { pageText } from "./page-text.js";

const page = (contentType: string, body: Buffer | string) => ({
  url: "https://example.com/x",
  code: 200,
  codeText: "OK",
  contentType,
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
});

describe("sameSite: the redirects WebFetch follows by itself", () => {
  it.each([
    ["https://example.com/a", "https://example.com/b", true],
    ["https://example.com/a", "https://www.example.com/a", true],
    ["https://www.example.com/a", "https://example.com/a", true],
    ["https://example.com/a", "https://docs.example.com/a", false],
    ["https://example.com/a", "http://example.com/a", false],
    ["https://example.com/a", "https://example.com:8443/a", false],
    ["https://example.com/a", "https://user:pw@example.com/a", false],
  ])("%s → %s: %s", (from, to, followed) => {
    expect(sameSite(new URL(from), new URL(to))).toBe(followed);
  });
});

describe("pageText", () => {
  it("keeps JSON and plain text as they came, decoded in their charset", async () => {
    expect(await pageText(page("application/json", '{"a":1}'))).toBe('{"a":1}');
    expect(await pageText(page("text/plain; charset=iso-8859-1", Buffer.from([0x63, 0x61, 0x66, 0xe9])))).toBe("café");
  });

  it("turns HTML into Markdown, also when the server names no type", async () => {
    expect(await pageText(page("", "<!doctype html><html><body><h2>Hi</h2></body></html>"))).toBe("## Hi");
  });

  it("refuses binary content", async () => {
    await expect(pageText(page("application/pdf", Buffer.from([0x25, 0x50, 0x44, 0x46, 0])))).rejects.toBeInstanceOf(
      FetchFailed,
    );
  });
});

describe("PageCache", () => {
  it("keeps a page 15 minutes", () => {
    let now = 0;
    const cache = new PageCache(() => now);
    const cached = { url: "https://example.com/", text: "hi", code: 200, codeText: "OK", bytes: 2 };
    cache.set(cached.url, cached);
    now = CACHE_TTL_MS - 1;
    expect(cache.get(cached.url)).toBe(cached);
    now = CACHE_TTL_MS;
    expect(cache.get(cached.url)).toBeUndefined();
  });
});
