import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { QueryOptions, SDKMessage } from "../src/index.js";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { type MockContent, type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

/** A run of Gemini 2.5 Flash ($0.30 in, $2.50 out per million tokens; no price for its searches). */
function runGemini(server: MockLLMServer, prompt: string, options: QueryOptions) {
  return runQuery(server, FORMATS[0], prompt, { ...options, model: "google/gemini-2.5-flash" });
}

const PAGES = [
  { url: "https://tides.example.org/today", title: "tides.example.org" },
  { url: "https://en.wiki.example.com/Tide", title: "wiki.example.com" },
];

/** A grounded answer: Google ran the search, the answer cites one page (Gemini's groundingSupports). */
const GROUNDED: MockContent[] = [
  { type: "web_search", query: "tide times", results: PAGES },
  {
    type: "text",
    text: "High water is at 06:12.",
    citations: [{ url: PAGES[0]!.url, title: PAGES[0]!.title, cited_text: "06:12" }],
  },
];

function assistantBlocks(messages: SDKMessage[]) {
  return messages.flatMap((m) => (m.type === "assistant" ? m.message.content : []));
}

/** Gemini's `tools`: `[{ googleSearch: {} }]`, `[{ functionDeclarations: [...] }]`. */
function requestTools(server: MockLLMServer, index = 0): Array<Record<string, unknown>> {
  return (server.requests[index]?.body.tools as Array<Record<string, unknown>> | undefined) ?? [];
}

function declaredFunctions(tools: Array<Record<string, unknown>>): string[] {
  return tools.flatMap((tool) =>
    Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations.map((f: { name: string }) => f.name) : [],
  );
}

describe("WebSearch through Gemini's grounding with Google Search", () => {
  it("sends googleSearch when WebSearch is the only tool, shows the queries and pages, counts the search, replays it as text", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-gemini-search-"));
    const store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
    const script = { turns: [mockTurn.of(GROUNDED), mockTurn.text("You asked about tides.")] };
    const options = { tools: ["WebSearch"], allowedTools: ["WebSearch"], sessionStore: store, cwd: dir };
    try {
      await withMock(script, async (server) => {
        const messages = await runGemini(server, "when is high water?", {
          ...options,
          includePartialMessages: true,
        });
        expect(server.requests[0]!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
        expect(requestTools(server)).toEqual([{ googleSearch: {} }]);

        // The grounding, as Anthropic's blocks after the answer's text.
        const blocks = assistantBlocks(messages);
        expect(blocks.map((block) => block.type)).toEqual(["text", "server_tool_use", "web_search_tool_result"]);
        expect(blocks[0]).toMatchObject({
          text: "High water is at 06:12.",
          citations: [{ type: "web_search_result_location", url: PAGES[0]!.url, cited_text: "06:12" }],
        });
        expect(blocks[1]).toMatchObject({
          id: "mock-response-1_search",
          name: "web_search",
          input: { query: "tide times", queries: ["tide times"] },
        });
        expect(blocks[2]).toMatchObject({
          tool_use_id: "mock-response-1_search",
          content: [
            { type: "web_search_result", url: PAGES[0]!.url, title: "tides.example.org", page_age: null },
            { type: "web_search_result", url: PAGES[1]!.url, title: "wiki.example.com", page_age: null },
          ],
        });
        // The stream shows it too: the search's blocks start whole, as Anthropic streams a result.
        const started = messages.flatMap((m) =>
          m.type === "stream_event" && m.event.type === "content_block_start" ? [m.event.content_block.type] : [],
        );
        expect(started).toEqual(["text", "server_tool_use", "web_search_tool_result"]);
        expect(toolResults(messages)).toHaveLength(0);

        // One search counted; Gemini's search has no price in the table, so only the tokens cost.
        const done = resultOf(messages);
        expect(done.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
        expect(Object.values(done.modelUsage)[0]?.webSearchRequests).toBe(1);
        const tokens = (done.usage.input_tokens * 0.3 + done.usage.output_tokens * 2.5) / 1_000_000;
        expect(done.total_cost_usd).toBeCloseTo(tokens, 12);

        // Resumed: Gemini takes no search blocks back, so the search goes to it as text.
        await runGemini(server, "what did I ask?", { ...options, resume: messages[0]!.session_id });
        const contents = server.requests[1]!.body.contents as Array<{ role: string; parts: Array<{ text?: string }> }>;
        expect(contents[1]).toEqual({
          role: "model",
          parts: [
            { text: "High water is at 06:12." },
            {
              text:
                'Web search results for query: "tide times"\n\n' +
                `1. [tides.example.org](${PAGES[0]!.url})\n2. [wiki.example.com](${PAGES[1]!.url})`,
            },
          ],
        });
      });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("beside other tools keeps WebSearch a function, whose call searches through a request with googleSearch only", async () => {
    const script = {
      turns: [mockTurn.toolUse("WebSearch", { query: "tide times" }), mockTurn.text("High water is at 06:12.")],
      routes: [{ system: "performing a web search", turns: [mockTurn.of(GROUNDED)] }],
    };
    await withMock(script, async (server) => {
      const messages = await runGemini(server, "when is high water?", {
        tools: ["WebSearch", "Glob"],
        allowedTools: ["WebSearch"],
      });
      const main = server.requests.filter((request) => request.route === undefined);
      const side = server.requests.filter((request) => request.route === 0);
      // Gemini 2.x cannot combine Google Search with functions: the run's requests declare WebSearch.
      expect(JSON.stringify(main[0]!.body.tools)).not.toContain("googleSearch");
      expect(declaredFunctions(requestTools(server))).toEqual(expect.arrayContaining(["WebSearch", "Glob"]));
      expect(side).toHaveLength(1);
      expect(side[0]!.body.tools).toEqual([{ googleSearch: {} }]);

      const result = toolResults(messages)[0];
      expect(result?.is_error).toBeUndefined();
      expect(result?.content).toContain('Web search results for query: "tide times"');
      expect(result?.content).toContain(`1. [tides.example.org](${PAGES[0]!.url})`);
      expect(result?.content).toContain(PAGES[1]!.url);
      // The next request answers the call with the pages, as a functionResponse.
      const answered = JSON.stringify(main[1]!.body.contents);
      expect(answered).toContain('"functionResponse"');
      expect(answered).toContain(PAGES[0]!.url);
      // The side request's search counts in the run's usage.
      expect(Object.values(resultOf(messages).modelUsage)[0]?.webSearchRequests).toBe(1);
    });
  });

  it("a deny rule on WebSearch sends no search tool (and denies the tool itself)", async () => {
    const script = { turns: [mockTurn.toolUse("WebSearch", { query: "tides" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runGemini(server, "tides", {
        tools: ["WebSearch"],
        permissionMode: "bypassPermissions",
        settings: { permissions: { deny: ["WebSearch"] } },
      });
      expect(JSON.stringify(requestTools(server))).not.toContain("googleSearch");
      expect(
        server.requests.every((request) => !JSON.stringify(request.body.tools ?? []).includes("googleSearch")),
      ).toBe(true);
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(JSON.stringify(toolResults(messages)[0]?.content)).toContain("denied");
    });
  });

  it("settings that restrict domains, which Google Search cannot, need a backend", async () => {
    const script = { turns: [mockTurn.toolUse("WebSearch", { query: "tides" }), mockTurn.text("sorry")] };
    await withMock(script, async (server) => {
      const messages = await runGemini(server, "tides", {
        tools: ["WebSearch"],
        allowedTools: ["WebSearch"],
        webSearch: { backend: "provider", allowedDomains: ["example.org"] },
      });
      expect(declaredFunctions(requestTools(server))).toEqual(["WebSearch"]);
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(JSON.stringify(toolResults(messages)[0]?.content)).toContain("Gemini's Google Search cannot");
    });
  });
});
