import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../protocol/index.js";
import { toPrompt } from "./to-prompt.js";

const page = {
  type: "web_search_result" as const,
  url: "https://tides.example.org",
  title: "Tide tables",
  page_age: null,
  encrypted_content: "enc",
};

function history(origin: boolean | "google"): HistoryEntry[] {
  const openai = origin === true;
  return [
    { role: "user", content: "tides?" },
    {
      role: "assistant",
      message: {
        id: "m",
        type: "message",
        role: "assistant",
        model: "x",
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        content: [
          { type: "server_tool_use", id: "s1", name: "web_search", input: { query: "tide times" } },
          {
            type: "web_search_tool_result",
            tool_use_id: "s1",
            content: [page],
            ...(openai && { provider_metadata: { openai: { itemId: "s1" } } }),
            ...(origin === "google" && { provider_metadata: { google: { grounding: true } } }),
          },
          { type: "text", text: "06:12." },
        ],
      },
    },
  ];
}

describe("a provider's web search in the prompt", () => {
  it("goes to the provider that ran it as a provider-executed call and result", () => {
    const prompt = toPrompt(undefined, history(false), "anthropic");
    expect(prompt[1]).toMatchObject({
      role: "assistant",
      content: [
        {
          type: "tool-call",
          toolCallId: "s1",
          toolName: "web_search",
          input: { query: "tide times" },
          providerExecuted: true,
        },
        {
          type: "tool-result",
          toolCallId: "s1",
          toolName: "web_search",
          output: {
            type: "json",
            value: [{ url: page.url, title: "Tide tables", pageAge: null, encryptedContent: "enc" }],
          },
        },
        { type: "text", text: "06:12." },
      ],
    });
    const openai = toPrompt(undefined, history(true), "openai-responses");
    expect(openai[1]).toMatchObject({
      content: [
        { type: "tool-call", toolCallId: "s1", input: {}, providerExecuted: true },
        {
          type: "tool-result",
          output: {
            type: "json",
            value: { action: { type: "search", query: "tide times" }, sources: [{ url: page.url }] },
          },
          providerOptions: { openai: { itemId: "s1" } },
        },
        { type: "text" },
      ],
    });
  });

  it("goes to any other model as text saying what was searched and found", () => {
    for (const [entries, api] of [
      [history(false), "openai-chat"],
      [history(true), "anthropic"],
      // Gemini's grounding: to Gemini itself too (it takes no search blocks back), and never to
      // Anthropic as its own blocks (they hold no encrypted content Anthropic could check).
      [history("google"), "google"],
      [history("google"), "anthropic"],
    ] as const) {
      const prompt = toPrompt(undefined, entries, api);
      expect(prompt[1]).toEqual({
        role: "assistant",
        content: [
          {
            type: "text",
            text: 'Web search results for query: "tide times"\n\n1. [Tide tables](https://tides.example.org)',
          },
          { type: "text", text: "06:12.", providerOptions: undefined },
        ],
      });
    }
  });
});
