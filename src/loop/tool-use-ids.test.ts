import { describe, expect, it } from "vitest";
import type { APIAssistantMessage, AssistantContentBlock, HistoryEntry, UserContentBlock } from "../protocol/index.js";
import { uniqueHistoryToolUseIds, uniqueToolUseIds } from "./tool-use-ids.js";

const call = (id: string): AssistantContentBlock => ({ type: "tool_use", id, name: "note", input: {} });
const result = (id: string, content: string): UserContentBlock => ({ type: "tool_result", tool_use_id: id, content });

function answer(...content: AssistantContentBlock[]): APIAssistantMessage {
  return {
    id: "msg",
    type: "message",
    role: "assistant",
    model: "m",
    content,
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

const ids = (message: APIAssistantMessage) => message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : []));

describe("uniqueToolUseIds", () => {
  it("returns a message without repeats as it is", () => {
    const message = answer(call("a"), call("b"));
    expect(uniqueToolUseIds(message, []).message).toBe(message);
  });

  it("renames a repeat past ids the message already uses, and lists it as repeated", () => {
    const { message, repeated } = uniqueToolUseIds(answer(call("a"), call("a"), call("a_2")), []);
    expect(ids(message)).toEqual(["a", "a_3", "a_2"]);
    expect([...repeated]).toEqual([["a_3", "a"]]);
  });

  it("renames an id an earlier turn used without listing it as repeated", () => {
    const history: HistoryEntry[] = [{ role: "assistant", message: answer(call("a")) }];
    const { message, repeated } = uniqueToolUseIds(answer(call("a")), history);
    expect(ids(message)).toEqual(["a_2"]);
    expect(repeated.size).toBe(0);
  });
});

describe("uniqueHistoryToolUseIds", () => {
  it("gives each renamed call the result in its place, within a turn and across turns", () => {
    const history: HistoryEntry[] = [
      { role: "user", content: "go" },
      { role: "assistant", message: answer(call("a"), call("a")) },
      { role: "user", content: [result("a", "one"), result("a", "two")] },
      { role: "assistant", message: answer(call("a")) },
      { role: "user", content: [result("a", "three")] },
    ];
    const fixed = uniqueHistoryToolUseIds(history);
    const calls = fixed.flatMap((entry) => (entry.role === "assistant" ? ids(entry.message) : []));
    const results = fixed.flatMap((entry) =>
      entry.role === "user" && Array.isArray(entry.content)
        ? entry.content.flatMap((b) => (b.type === "tool_result" ? [`${b.tool_use_id}=${String(b.content)}`] : []))
        : [],
    );
    expect(calls).toEqual(["a", "a_2", "a_3"]);
    expect(results).toEqual(["a=one", "a_2=two", "a_3=three"]);
    expect(fixed[0]).toBe(history[0]);
  });
});
