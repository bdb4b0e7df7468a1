import { describe, expect, it } from "vitest";
import { buildAnswer, splitArguments, splitText } from "./answer.js";
import { anthropicFormat } from "./anthropic-format.js";
import { geminiFormat } from "./gemini-format.js";
import { openaiChatFormat } from "./openai-chat-format.js";
import { openaiResponsesFormat } from "./openai-responses-format.js";
import type { MockTurn } from "./script.js";

const turn: MockTurn = {
  content: [
    { type: "thinking", thinking: "Plan it.", signature: "sig" },
    { type: "text", text: "Let me look." },
    { type: "tool_use", name: "Read", input: { file_path: "/src/index.ts" } },
  ],
  usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 2 },
};

const answer = buildAnswer({
  turn,
  turnIndex: 1,
  seq: 7,
  request: { model: "m", stream: true, stream_options: { include_usage: true } },
  now: Date.UTC(2025, 0, 1),
});

/** Wire shapes are pinned: a change here changes what real provider clients parse. */
describe.each([anthropicFormat, openaiChatFormat, openaiResponsesFormat, geminiFormat])(
  "$format wire shape",
  (format) => {
    it("streams these SSE frames", () => {
      expect(format.frames(answer).join("")).toMatchSnapshot();
    });

    it("answers whole with this body", () => {
      expect(format.json(answer)).toMatchSnapshot();
    });
  },
);

const searchTurn: MockTurn = {
  content: [
    {
      type: "web_search",
      query: "tide times",
      results: [{ url: "https://t.example", title: "Tides", page_age: "1 day" }],
    },
    { type: "web_search", query: "more", error: "max_uses_exceeded" },
    {
      type: "text",
      text: "High water at 06:12.",
      citations: [{ url: "https://t.example", title: "Tides", cited_text: "06:12" }],
    },
  ],
  usage: { input_tokens: 10, output_tokens: 5 },
};
const searchAnswer = buildAnswer({
  turn: searchTurn,
  turnIndex: 0,
  seq: 2,
  request: { model: "m", stream: true, include: ["web_search_call.action.sources"] },
  now: Date.UTC(2025, 0, 1),
});

/** The provider's own search, on the three wires that have one (Gemini's as grounding metadata). */
describe.each([anthropicFormat, openaiResponsesFormat, geminiFormat])("$format server-side web search", (format) => {
  it("streams these SSE frames", () => {
    expect(format.frames(searchAnswer).join("")).toMatchSnapshot();
  });

  it("answers whole with this body", () => {
    expect(format.json(searchAnswer)).toMatchSnapshot();
  });
});

describe("chat usage chunk", () => {
  it("is sent only when stream_options.include_usage asks for it", () => {
    const without = buildAnswer({ turn, turnIndex: 0, seq: 1, request: { stream: true }, now: 0 });
    const frames = openaiChatFormat.frames(without);
    expect(frames.some((frame) => frame.includes('"usage"'))).toBe(false);
    expect(frames.at(-1)).toBe("data: [DONE]\n\n");
    expect(openaiChatFormat.frames(answer).at(-2)).toContain('"prompt_tokens":16');
  });
});

describe("answer defaults", () => {
  it("estimates usage from characters and picks the stop reason from the content", () => {
    const request = { model: "m", messages: [{ role: "user", content: "x".repeat(100) }] };
    const built = buildAnswer({
      turn: { content: [{ type: "tool_use", name: "Bash", rawInput: "{" }] },
      turnIndex: 0,
      seq: 1,
      request,
      now: 0,
    });
    expect(built.stopReason).toBe("tool_use");
    expect(built.usage).toEqual({
      input_tokens: Math.ceil(JSON.stringify(request).length / 4),
      output_tokens: 2,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      reasoning_tokens: 0,
    });
    expect(built.blocks).toEqual([{ type: "tool_use", id: undefined, callIndex: 0, name: "Bash", arguments: "{" }]);
    expect(buildAnswer({ turn: {}, turnIndex: 0, seq: 1, request: {}, now: 0 }).stopReason).toBe("end_turn");
  });

  it("splits text into word deltas and arguments into fixed pieces that join back losslessly", () => {
    expect(splitText("  Hello, big\nworld ")).toEqual(["  Hello, ", "big\n", "world "]);
    expect(splitText("")).toEqual([]);
    expect(splitText("   ")).toEqual(["   "]);
    expect(splitArguments('{"a":"0123456789abcdef"}', 8)).toEqual(['{"a":"01', "23456789", 'abcdef"}']);
  });
});
