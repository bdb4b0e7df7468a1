import { describe, expect, it } from "vitest";
import { groundingSearch } from "./server-search-blocks.js";

describe("Gemini's grounding as a search's blocks", () => {
  it("takes the queries Google ran (not the empty ones), each page once, and the supports as citations", () => {
    const found = groundingSearch(
      {
        google: {
          groundingMetadata: {
            webSearchQueries: ["", "tide times", "tides london"],
            groundingChunks: [
              { web: { uri: "https://a.example/1", title: "a.example" } },
              { web: { uri: "https://b.example/2" } },
              { web: { uri: "https://a.example/1", title: "a.example" } },
              { retrievedContext: { uri: "gs://store/doc" } },
            ],
            groundingSupports: [
              { segment: { startIndex: 3, endIndex: 8, text: "06:12" }, groundingChunkIndices: [0, 1, 7] },
              { segment: { endIndex: 2 }, groundingChunkIndices: [0] },
            ],
          },
        },
      },
      "resp_search",
    );
    expect(found?.queries).toEqual(["tide times", "tides london"]);
    expect(found?.call).toEqual({
      type: "server_tool_use",
      id: "resp_search",
      name: "web_search",
      input: { query: "tide times; tides london", queries: ["tide times", "tides london"] },
    });
    expect(found?.result).toEqual({
      type: "web_search_tool_result",
      tool_use_id: "resp_search",
      content: [
        {
          type: "web_search_result",
          url: "https://a.example/1",
          title: "a.example",
          page_age: null,
          encrypted_content: "",
        },
        // Untitled: its url stands for its title.
        {
          type: "web_search_result",
          url: "https://b.example/2",
          title: "https://b.example/2",
          page_age: null,
          encrypted_content: "",
        },
      ],
      provider_metadata: { google: { grounding: true } },
    });
    // A support names pages by chunk index; an index past the chunks, or a segment without text, is skipped.
    expect(found?.citations.map((citation) => [citation.url, citation.cited_text])).toEqual([
      ["https://a.example/1", "06:12"],
      ["https://b.example/2", "06:12"],
    ]);
  });

  it("is nothing for an answer that was not grounded in a web search", () => {
    expect(groundingSearch(undefined, "x")).toBeUndefined();
    expect(groundingSearch({ google: { groundingMetadata: null } }, "x")).toBeUndefined();
    expect(groundingSearch({ google: { groundingMetadata: { webSearchQueries: [""] } } }, "x")).toBeUndefined();
  });
});
