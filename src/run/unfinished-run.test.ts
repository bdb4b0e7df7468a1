import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { unfinishedRun } from "./persistence.js";

// Where a run stopped when its process died, read from its session's last top-level messages.

const base = { session_id: "s", parent_tool_use_id: null, uuid: "u" } as const;
const prompt = { ...base, type: "user", message: { role: "user", content: "hi" } } as SDKMessage;
function answer(content: unknown[], parent: string | null = null): SDKMessage {
  return {
    ...base,
    parent_tool_use_id: parent,
    type: "assistant",
    message: {
      id: "m",
      type: "message",
      role: "assistant",
      model: "x",
      content,
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  } as SDKMessage;
}
const call = (id: string) => ({ type: "tool_use", id, name: "Read", input: {} });
const results = (...ids: string[]) =>
  ({
    ...base,
    type: "user",
    message: { role: "user", content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: "ok" })) },
  }) as SDKMessage;

describe("unfinishedRun", () => {
  it("asks the model next after a prompt or a turn's last results", () => {
    expect(unfinishedRun("s", [prompt])).toEqual({ at: "model" });
    expect(unfinishedRun("s", [prompt, answer([call("a")]), results("a")])).toEqual({ at: "model" });
  });

  it("names the calls of the last answer that have no result, leaving a subagent's messages aside", () => {
    const messages = [prompt, answer([call("a"), call("b")]), answer([call("x")], "b"), results("a")];
    expect(unfinishedRun("s", messages)).toEqual({ at: "tools", calls: [call("b")] });
  });

  it("ends the turn on a last answer without calls", () => {
    const last = answer([{ type: "text", text: "done" }]);
    expect(unfinishedRun("s", [prompt, last])).toMatchObject({ at: "end_turn" });
  });

  it("refuses a session whose run ended or that holds no prompt", () => {
    const result = { ...base, type: "result", subtype: "success" } as unknown as SDKMessage;
    expect(() => unfinishedRun("s", [prompt, answer([]), result])).toThrow(/its last run ended/);
    expect(() => unfinishedRun("s", [])).toThrow(/holds no prompt/);
  });
});
