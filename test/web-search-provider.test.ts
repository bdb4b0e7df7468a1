import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { type MockContent, type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const [anthropic, responses, chat] = FORMATS;

const PAGES = [
  { url: "https://tides.example.org/today", title: "Tide tables", page_age: "April 1, 2026" },
  { url: "https://en.wiki.example.com/Tide", title: "Tides on the wiki" },
];

/**
 * The model searches (the provider runs it), answers citing a page, and calls Glob, so that the
 * loop makes a second request that must replay the search as it came.
 */
const SEARCH_TURN: MockContent[] = [
  { type: "web_search", query: "tide times", results: PAGES },
  {
    type: "text",
    text: "High water is at 06:12.",
    citations: [{ url: PAGES[0]!.url, title: PAGES[0]!.title, cited_text: "06:12" }],
  },
  { type: "tool_use", name: "Glob", input: { pattern: "*.nothing-here" } },
];
const SCRIPT = { turns: [mockTurn.of(SEARCH_TURN), mockTurn.text("Done.")] };

/** Allowed outright (a rule), the only way the provider's unasked search is offered. */
const ALLOWED = { tools: ["WebSearch", "Glob"], allowedTools: ["WebSearch"] };

function assistantBlocks(messages: SDKMessage[]) {
  return messages.flatMap((m) => (m.type === "assistant" ? m.message.content : []));
}

function requestTools(server: MockLLMServer, index = 0): Array<Record<string, unknown>> {
  return (server.requests[index]?.body.tools as Array<Record<string, unknown>> | undefined) ?? [];
}

describe("WebSearch through Anthropic's server-side web search", () => {
  it("sends the server tool, shows the query and results, replays the blocks intact and bills the search", async () => {
    await withMock(SCRIPT, async (server) => {
      const messages = await runQuery(server, anthropic, "when is high water?", ALLOWED);
      const tools = requestTools(server);
      expect(tools).toContainEqual({ type: "web_search_20250305", name: "web_search" });
      expect(tools.map((tool) => tool.name)).not.toContain("WebSearch");

      // The call and its results, in the assistant message as Anthropic's blocks.
      const blocks = assistantBlocks(messages);
      const call = blocks.find((block) => block.type === "server_tool_use");
      expect(call).toMatchObject({ id: "srvtoolu_mock_0_0", name: "web_search", input: { query: "tide times" } });
      const result = blocks.find((block) => block.type === "web_search_tool_result");
      expect(result).toMatchObject({
        tool_use_id: "srvtoolu_mock_0_0",
        content: [
          { type: "web_search_result", url: PAGES[0]!.url, title: "Tide tables", page_age: "April 1, 2026" },
          { type: "web_search_result", url: PAGES[1]!.url, title: "Tides on the wiki", page_age: null },
        ],
      });
      const text = blocks.find((block) => block.type === "text" && block.text.includes("06:12"));
      expect(text).toMatchObject({
        citations: [{ type: "web_search_result_location", url: PAGES[0]!.url, cited_text: "06:12" }],
      });
      // Nothing of the search ran in Gyre: the only tool result is Glob's.
      expect(toolResults(messages)).toHaveLength(1);

      // The next request sends the search back as it came (encrypted content, citations and all).
      const replayed = (server.requests[1]?.body.messages as Array<{ role: string; content: unknown }>)[1];
      expect(replayed?.role).toBe("assistant");
      expect(replayed?.content).toEqual([
        { type: "server_tool_use", id: "srvtoolu_mock_0_0", name: "web_search", input: { query: "tide times" } },
        {
          type: "web_search_tool_result",
          tool_use_id: "srvtoolu_mock_0_0",
          content: [
            {
              type: "web_search_result",
              url: PAGES[0]!.url,
              title: "Tide tables",
              page_age: "April 1, 2026",
              encrypted_content: "mock_encrypted_0_0_0",
            },
            {
              type: "web_search_result",
              url: PAGES[1]!.url,
              title: "Tides on the wiki",
              page_age: null,
              encrypted_content: "mock_encrypted_0_0_1",
            },
          ],
        },
        {
          type: "text",
          text: "High water is at 06:12.",
          citations: [
            {
              type: "web_search_result_location",
              cited_text: "06:12",
              url: PAGES[0]!.url,
              title: "Tide tables",
              encrypted_index: "mock_index_0",
            },
          ],
        },
        { type: "tool_use", id: "toolu_mock_0_0", name: "Glob", input: { pattern: "*.nothing-here" } },
      ]);

      // One search, at Anthropic's $10 per 1,000 on top of the tokens (Sonnet 4.5: $3 / $15 per million).
      const done = resultOf(messages);
      expect(done.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
      expect(Object.values(done.modelUsage)[0]?.webSearchRequests).toBe(1);
      const tokens = (done.usage.input_tokens * 3 + done.usage.output_tokens * 15) / 1_000_000;
      expect(done.total_cost_usd).toBeCloseTo(tokens + 0.01, 10);
    });
  });

  it("passes the settings' domains and search limit to the server tool", async () => {
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      await runQuery(server, anthropic, "tides", {
        ...ALLOWED,
        webSearch: { backend: "provider", allowedDomains: ["example.org"], maxUses: 3 },
      });
      expect(requestTools(server)).toContainEqual({
        type: "web_search_20250305",
        name: "web_search",
        max_uses: 3,
        allowed_domains: ["example.org"],
      });
    });
  });

  it("reports a failed search as the provider's error, and does not bill it", async () => {
    const script = {
      turns: [
        mockTurn.of([
          { type: "web_search", query: "tides", error: "max_uses_exceeded" },
          { type: "text", text: "No luck." },
        ]),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "tides", ALLOWED);
      const result = assistantBlocks(messages).find((block) => block.type === "web_search_tool_result");
      expect(result).toMatchObject({
        content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
      });
      expect(Object.values(resultOf(messages).modelUsage)[0]?.webSearchRequests).toBe(0);
    });
  });
});

describe("a provider's search in a stored session", () => {
  it.each([anthropic, responses])("is stored in SQLite and replayed on resume to $name as it came", async (format) => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-search-resume-"));
    const store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
    const script = {
      turns: [
        mockTurn.of([
          { type: "web_search", query: "tide times", results: PAGES },
          { type: "text", text: "06:12." },
        ]),
        mockTurn.text("You asked about tides."),
      ],
    };
    try {
      await withMock(script, async (server) => {
        const first = await runQuery(server, format, "when is high water?", {
          ...ALLOWED,
          sessionStore: store,
          cwd: dir,
        });
        const sessionId = first[0]!.session_id;
        const stored = (await store.getSessionMessages(sessionId)).flatMap((m) =>
          m.type === "assistant" ? m.message.content : [],
        );
        expect(stored.map((block) => block.type)).toEqual(["server_tool_use", "web_search_tool_result", "text"]);
        await runQuery(server, format, "what did I ask?", {
          ...ALLOWED,
          sessionStore: store,
          cwd: dir,
          resume: sessionId,
        });
        const body = server.requests[1]!.body;
        if (format === anthropic) {
          const assistant = (body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>)[1];
          expect(assistant?.content.map((block) => block.type)).toEqual([
            "server_tool_use",
            "web_search_tool_result",
            "text",
          ]);
          expect(assistant?.content[1]).toMatchObject({
            content: [{ encrypted_content: "mock_encrypted_0_0_0" }, { encrypted_content: "mock_encrypted_0_0_1" }],
          });
        } else {
          expect(body.input).toContainEqual({ type: "item_reference", id: "ws_mock_0_0" });
        }
      });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("WebSearch through OpenAI's web_search tool (Responses API)", () => {
  it("sends the tool, shows the query and cited titles, and refers to the search item on the next request", async () => {
    await withMock(SCRIPT, async (server) => {
      const messages = await runQuery(server, responses, "when is high water?", ALLOWED);
      const first = server.requests[0]!.body;
      expect(first.tools).toContainEqual({ type: "web_search" });
      expect((first.tools as Array<Record<string, unknown>>).map((tool) => tool.name)).not.toContain("WebSearch");
      expect(first.include).toContain("web_search_call.action.sources");

      const blocks = assistantBlocks(messages);
      expect(blocks.find((block) => block.type === "server_tool_use")).toMatchObject({
        id: "ws_mock_0_0",
        name: "web_search",
        input: { query: "tide times" },
      });
      expect(blocks.find((block) => block.type === "web_search_tool_result")).toMatchObject({
        tool_use_id: "ws_mock_0_0",
        // OpenAI names only the urls; the answer's citation gives the first its title.
        content: [
          { url: PAGES[0]!.url, title: "Tide tables" },
          { url: PAGES[1]!.url, title: PAGES[1]!.url },
        ],
      });
      expect(blocks.find((block) => block.type === "text" && block.text.includes("06:12"))).toMatchObject({
        citations: [{ url: PAGES[0]!.url, title: "Tide tables", cited_text: "06:12" }],
      });

      // OpenAI stores its responses: the search goes back as a reference to its item.
      const input = server.requests[1]!.body.input as Array<Record<string, unknown>>;
      expect(input).toContainEqual({ type: "item_reference", id: "ws_mock_0_0" });
      expect(Object.values(resultOf(messages).modelUsage)[0]?.webSearchRequests).toBe(1);
    });
  });
});

describe("when the provider's search is not offered", () => {
  it("a deny rule on WebSearch keeps the server tool away (and denies the tool itself)", async () => {
    const script = { turns: [mockTurn.toolUse("WebSearch", { query: "tides" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "tides", {
        tools: ["WebSearch"],
        permissionMode: "bypassPermissions",
        settings: { permissions: { deny: ["WebSearch"] } },
      });
      const types = requestTools(server).map((tool) => tool.type ?? "custom");
      expect(types).not.toContain("web_search_20250305");
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(JSON.stringify(toolResults(messages)[0]?.content)).toContain("denied");
    });
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      await runQuery(server, responses, "tides", { tools: ["WebSearch"], disallowedTools: ["WebSearch"] });
      expect(requestTools(server).map((tool) => tool.type)).not.toContain("web_search");
    });
  });

  it("in plan mode, a model cannot search unasked: no server tool, and its WebSearch call is asked about", async () => {
    // A hostile planner tries to reach the web without a question: plan mode lets WebSearch
    // through to the rules, which ask; with nobody to ask, the call is refused.
    const script = { turns: [mockTurn.toolUse("WebSearch", { query: "exfiltrate" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "plan it", { tools: ["WebSearch"], permissionMode: "plan" });
      const types = requestTools(server).map((tool) => tool.type ?? "custom");
      expect(types).not.toContain("web_search_20250305");
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(JSON.stringify(toolResults(messages)[0]?.content)).toContain("Permission to use WebSearch is required");
    });
  });

  it("nor while a WebSearch call would be asked about, or a hook would see it", async () => {
    await withMock({ turns: [mockTurn.text("ok"), mockTurn.text("ok")] }, async (server) => {
      // Default mode asks about WebSearch: a provider's search could not be asked about.
      await runQuery(server, anthropic, "tides", { tools: ["WebSearch"] });
      expect(requestTools(server, 0).map((tool) => tool.name)).toEqual(["WebSearch"]);
      await runQuery(server, anthropic, "tides", {
        ...ALLOWED,
        hooks: { PreToolUse: [{ matcher: "WebSearch", hooks: [async () => ({})] }] },
      });
      expect(requestTools(server, 1).map((tool) => tool.type ?? "custom")).not.toContain("web_search_20250305");
    });
  });

  it.each([anthropic, responses])(
    "a call asked about and approved searches through a request of its own to $name's search",
    async (format) => {
      const script = {
        turns: [mockTurn.toolUse("WebSearch", { query: "tide times" }), mockTurn.text("High water is at 06:12.")],
        routes: [
          {
            system: "performing a web search",
            turns: [
              mockTurn.of([
                { type: "web_search", query: "tide times", results: PAGES },
                { type: "text", text: "Found." },
              ]),
            ],
          },
        ],
      };
      await withMock(script, async (server) => {
        const asked: string[] = [];
        const messages = await runQuery(server, format, "when is high water?", {
          tools: ["WebSearch"],
          canUseTool: async (toolName) => {
            asked.push(toolName);
            return { behavior: "allow" };
          },
        });
        expect(asked).toEqual(["WebSearch"]);
        // The run's own requests offer Gyre's WebSearch; the search request only the provider's.
        const main = server.requests.filter((request) => request.route === undefined);
        const side = server.requests.filter((request) => request.route === 0);
        expect(JSON.stringify(main[0]!.body.tools)).toContain('"WebSearch"');
        expect(side).toHaveLength(1);
        const sideTools = side[0]!.body.tools as Array<Record<string, unknown>>;
        expect(sideTools.map((tool) => tool.type)).toEqual([
          format === anthropic ? "web_search_20250305" : "web_search",
        ]);
        const result = toolResults(messages)[0];
        expect(result?.is_error).toBeUndefined();
        expect(result?.content).toContain('Web search results for query: "tide times"');
        // OpenAI's search names only urls (titles come from citations, and this answer cites none).
        const title = format === anthropic ? "Tide tables" : PAGES[0]!.url;
        expect(result?.content).toContain(`1. [${title}](${PAGES[0]!.url})`);
        expect(result?.content).toContain(PAGES[1]!.url);
      });
    },
  );

  it("a provider without its own search and no backend gets the clear error", async () => {
    const script = { turns: [mockTurn.toolUse("WebSearch", { query: "tides" }), mockTurn.text("sorry")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, chat, "tides", ALLOWED);
      const tools = server.requests[0]!.body.tools as Array<{ type: string; function?: { name: string } }>;
      expect(tools.map((tool) => tool.function?.name)).toContain("WebSearch");
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(JSON.stringify(toolResults(messages)[0]?.content)).toContain("no search backend is configured");
    });
  });
});
