import { describe, expect, it } from "vitest";
import { anthropicFormat } from "./anthropic-format.js";
import { openaiChatFormat } from "./openai-chat-format.js";
import { openaiResponsesFormat } from "./openai-responses-format.js";

describe("assistant runs", () => {
  it("anthropic counts assistant messages, merging consecutive ones", () => {
    const messages = [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "assistant", content: "c" },
      { role: "user", content: "d" },
      { role: "assistant", content: "e" },
    ];
    expect(anthropicFormat.assistantRuns({ messages })).toBe(2);
    expect(anthropicFormat.assistantRuns({ messages: [] })).toBe(0);
    expect(anthropicFormat.assistantRuns({})).toBe(0);
  });

  it("chat ignores system and tool messages", () => {
    const messages = [
      { role: "system", content: "s" },
      { role: "user", content: "a" },
      { role: "assistant", tool_calls: [] },
      { role: "tool", content: "r" },
      { role: "assistant", content: "b" },
    ];
    expect(openaiChatFormat.assistantRuns({ messages })).toBe(2);
  });

  it("responses counts model output items and references, not user messages or tool outputs", () => {
    const input = [
      { role: "developer", content: "d" },
      { role: "user", content: [{ type: "input_text", text: "a" }] },
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", call_id: "c1", name: "Read", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "x" },
      { type: "item_reference", id: "msg_2" },
      { type: "message", role: "assistant", content: [] },
      { type: "function_call_output", call_id: "c2", output: "y" },
      { type: "custom_tool_call", call_id: "c3", name: "patch", input: "" },
    ];
    expect(openaiResponsesFormat.assistantRuns({ input })).toBe(3);
    expect(openaiResponsesFormat.assistantRuns({ input: "just a string" })).toBe(0);
  });
});
