import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, runQuery, toolResults, withMock } from "./helpers.js";

const anthropic = FORMATS[0];

const HITS = [
  { title: "Tide tables", url: "https://tides.example.org/today", text: "High water at 06:12." },
  {
    title: "Tides on the wiki",
    url: "https://en.wiki.example.com/Tide",
    text: "A tide is the rise and fall of the sea.",
  },
  { title: "Spam", url: "https://spam.example.net/tides", text: "Buy tides." },
];

/** A fake search API on 127.0.0.1 speaking Brave's, Tavily's and SearXNG's JSON, recording each request. */
class FakeSearch {
  readonly requests: Array<{
    path: string;
    query: URLSearchParams;
    headers: IncomingMessage["headers"];
    body: string;
  }> = [];
  #server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        this.requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers, body });
        const json = (value: unknown) =>
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
        if (url.pathname === "/brave") {
          if (req.headers["x-subscription-token"] !== "brave-key") return void res.writeHead(401).end("bad token");
          return json({ web: { results: HITS.map((h) => ({ title: h.title, url: h.url, description: h.text })) } });
        }
        if (url.pathname === "/tavily")
          return json({ results: HITS.map((h) => ({ title: h.title, url: h.url, content: h.text })) });
        if (url.pathname === "/searxng/search") {
          return json({ results: HITS.map((h) => ({ title: h.title, url: h.url, content: h.text })) });
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<unknown> {
    return new Promise((resolve) => this.#server?.close(resolve));
  }
}

let search: FakeSearch;
beforeAll(async () => {
  search = new FakeSearch();
  await search.start();
});
afterAll(() => search.close());

function resultText(messages: SDKMessage[], index = 0): string {
  const content = toolResults(messages)[index]?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

const searchCall = (input: Record<string, unknown>) => ({ type: "tool_use" as const, name: "WebSearch", input });

describe("WebSearch through the loop, over a search API", () => {
  it("searches Brave's API with its key and gives the model titles, links and snippets", async () => {
    const script = {
      turns: [mockTurn.of([searchCall({ query: "tide times" })]), mockTurn.text("High water is at 06:12.")],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "when is high water?", {
        tools: ["WebSearch"],
        permissionMode: "bypassPermissions",
        env: { ...server.env(), BRAVE_API_KEY: "brave-key" },
        webSearch: { backend: "brave", url: `${search.url}/brave`, maxResults: 5 },
      });
      const text = resultText(messages);
      expect(toolResults(messages)[0]?.is_error).toBeUndefined();
      expect(text).toContain('Web search results for query: "tide times"');
      expect(text).toContain("1. [Tide tables](https://tides.example.org/today)\n   High water at 06:12.");
      expect(text).toContain("[Spam](https://spam.example.net/tides)");
      const request = search.requests.at(-1);
      expect(request?.query.get("q")).toBe("tide times");
      expect(request?.query.get("count")).toBe("5");
      const use = messages.find((m) => m.type === "user" && m.tool_use_result !== undefined);
      const output =
        use?.type === "user" ? Object.values(use.tool_use_result as Record<string, unknown>)[0] : undefined;
      expect(output).toMatchObject({
        query: "tide times",
        searchCount: 1,
        results: [{ content: [{ title: "Tide tables", url: "https://tides.example.org/today" }, {}, {}] }],
      });
    });
  });

  it("keeps only allowed domains (subdomains included) and leaves blocked ones out, on SearXNG and Tavily", async () => {
    const script = {
      turns: [
        mockTurn.of([
          searchCall({ query: "tides", allowed_domains: ["example.com"] }),
          searchCall({ query: "tides", blocked_domains: ["spam.example.net"] }),
        ]),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "tides", {
        tools: ["WebSearch"],
        permissionMode: "bypassPermissions",
        webSearch: { backend: "searxng", url: `${search.url}/searxng` },
      });
      expect(resultText(messages, 0)).toContain("en.wiki.example.com");
      expect(resultText(messages, 0)).not.toContain("tides.example.org");
      expect(resultText(messages, 1)).toContain("tides.example.org");
      expect(resultText(messages, 1)).not.toContain("spam.example.net");
      const queries = search.requests.filter((r) => r.path === "/searxng/search").map((r) => r.query.get("q"));
      expect(queries).toContain("tides (site:example.com)");
      expect(queries).toContain("tides -site:spam.example.net");
    });
    const tavily = {
      turns: [
        mockTurn.of([searchCall({ query: "tides", blocked_domains: ["spam.example.net"] })]),
        mockTurn.text("ok"),
      ],
    };
    await withMock(tavily, async (server) => {
      const messages = await runQuery(server, anthropic, "tides", {
        tools: ["WebSearch"],
        permissionMode: "bypassPermissions",
        env: { ...server.env(), TAVILY_API_KEY: "tvly-key" },
        webSearch: { backend: "tavily", url: `${search.url}/tavily` },
      });
      expect(resultText(messages)).not.toContain("spam.example.net");
      const request = search.requests.at(-1);
      expect(request?.headers.authorization).toBe("Bearer tvly-key");
      expect(JSON.parse(request?.body ?? "{}")).toMatchObject({
        query: "tides",
        exclude_domains: ["spam.example.net"],
      });
    });
  });

  it("fails with a clear error when no backend is configured (and the provider has no search), or its key is missing", async () => {
    const script = { turns: [mockTurn.of([searchCall({ query: "tides" })]), mockTurn.text("sorry")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, FORMATS[2], "tides", {
        tools: ["WebSearch"],
        permissionMode: "bypassPermissions",
      });
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(resultText(messages)).toContain("no search backend is configured");
      expect(resultText(messages)).toContain('backend: "brave" | "tavily" | "searxng"');
    });
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "tides", {
        tools: ["WebSearch"],
        permissionMode: "bypassPermissions",
        env: { ...server.env(), BRAVE_API_KEY: "" },
        webSearch: { backend: "brave", url: `${search.url}/brave` },
      });
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(resultText(messages)).toContain("needs an API key in BRAVE_API_KEY");
    });
  });
});
