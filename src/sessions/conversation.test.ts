import { describe, expect, it } from "vitest";
import {
  assistant,
  compactBoundary,
  progress,
  prompt,
  result,
  toolResults,
  toolUse,
  usage,
} from "../../test/sessions-fixtures.js";
import type { SDKMessage, SDKUserMessage, ToolResultBlock } from "../protocol/index.js";
import { type ConversationMessage, conversationFromMessages, INTERRUPTED_TOOL_RESULT } from "./conversation.js";

const newUuid = () => "synthetic-uuid";

function history(messages: SDKMessage[]): ConversationMessage[] {
  return conversationFromMessages(messages, { newUuid });
}

function content(message: ConversationMessage | undefined) {
  return message?.message.content;
}

/** Checks the provider rule: every tool_use is answered, results first, by the next message. */
function expectValid(messages: ConversationMessage[]): void {
  messages.forEach((message, index) => {
    if (message.type !== "assistant") return;
    const calls = message.message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
    if (calls.length === 0) return;
    const next = messages[index + 1];
    expect(next?.type).toBe("user");
    const blocks = (next as SDKUserMessage).message.content as Array<{ type: string; tool_use_id?: string }>;
    expect(blocks.slice(0, calls.length).map((block) => block.tool_use_id)).toEqual(calls);
  });
}

const interrupted = (id: string): ToolResultBlock => ({
  type: "tool_result",
  tool_use_id: id,
  content: INTERRUPTED_TOOL_RESULT,
  is_error: true,
});

describe("conversationFromMessages", () => {
  it("returns a complete history unchanged, as the same objects", () => {
    const messages = [
      prompt("s", "go"),
      assistant("s", [toolUse("t1", "Bash", { command: "ls" })]),
      toolResults("s", [{ tool_use_id: "t1", content: "a\nb" }]),
      assistant("s", [{ type: "text", text: "Two files." }]),
    ];
    const out = history([...messages, result("s", 0.01, usage(1, 1))]);
    expect(out).toHaveLength(4);
    out.forEach((message, i) => {
      expect(message).toBe(messages[i]);
    });
  });

  it("drops everything that is not a top-level user or assistant message", () => {
    const out = history([
      prompt("s", "go"),
      progress("s", "t1", "Task"),
      assistant("s", [toolUse("t1", "Task", { prompt: "p", description: "d" })]),
      prompt("s", "sub prompt", { parent_tool_use_id: "t1" }),
      assistant("s", [{ type: "text", text: "sub answer" }], { parent_tool_use_id: "t1" }),
      toolResults("s", [{ tool_use_id: "t1", content: "sub answer" }]),
    ]);
    expect(out.map((m) => m.type)).toEqual(["user", "assistant", "user"]);
    expectValid(out);
  });

  it("answers calls of a process that died mid-tool with a synthetic error message", () => {
    const call = assistant("s", [
      { type: "text", text: "Running both." },
      toolUse("t1", "Bash", { command: "make" }),
      toolUse("t2", "Read", { file_path: "/a" }),
    ]);
    const out = history([prompt("s", "build"), call, progress("s", "t1", "Bash")]);
    expect(out).toHaveLength(3);
    expect(out[1]).toBe(call);
    expect(out[2]).toEqual({
      type: "user",
      uuid: "synthetic-uuid",
      session_id: "s",
      message: { role: "user", content: [interrupted("t1"), interrupted("t2")] },
      parent_tool_use_id: null,
      isSynthetic: true,
    });
    expectValid(out);
  });

  it("fills in only the missing results, keeping real ones in call order", () => {
    const out = history([
      assistant("s", [toolUse("t1", "Read", {}), toolUse("t2", "Read", {}), toolUse("t3", "Read", {})]),
      toolResults("s", [
        { tool_use_id: "t3", content: "three" },
        { tool_use_id: "t1", content: "one" },
      ]),
    ]);
    expect(content(out[1])).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: "one" },
      interrupted("t2"),
      { type: "tool_result", tool_use_id: "t3", content: "three" },
    ]);
    expectValid(out);
  });

  it("answers calls before the prompt a user typed after the crash", () => {
    const out = history([assistant("s", [toolUse("t1", "Bash", { command: "make" })]), prompt("s", "what happened?")]);
    expect(out).toHaveLength(2);
    expect(content(out[1])).toEqual([interrupted("t1"), { type: "text", text: "what happened?" }]);
    expect(out[1]?.uuid).not.toBe("synthetic-uuid");
    expectValid(out);
  });

  it("moves results that arrived in a later user message up to the first one", () => {
    const late = toolResults("s", [{ tool_use_id: "t2", content: "late" }]);
    const out = history([
      assistant("s", [toolUse("t1", "Read", {}), toolUse("t2", "Read", {})]),
      toolResults("s", [{ tool_use_id: "t1", content: "early" }]),
      late,
      prompt("s", "next"),
    ]);
    expect(out.map((m) => m.type)).toEqual(["assistant", "user", "user"]);
    expect(content(out[1])).toEqual([
      { type: "tool_result", tool_use_id: "t1", content: "early" },
      { type: "tool_result", tool_use_id: "t2", content: "late" },
    ]);
    expect(content(out[2])).toBe("next");
    expectValid(out);
  });

  it("drops results for calls the previous assistant message did not make", () => {
    const out = history([
      prompt("s", "go"),
      toolResults("s", [{ tool_use_id: "ghost", content: "?" }]),
      assistant("s", [{ type: "text", text: "hi" }]),
      toolResults("s", [{ tool_use_id: "ghost2", content: "?" }]),
      prompt("s", "more"),
    ]);
    expect(out.map((m) => m.type)).toEqual(["user", "assistant", "user"]);
    expect(content(out[2])).toBe("more");
  });

  it("keeps the first of duplicated results for one call", () => {
    const out = history([
      assistant("s", [toolUse("t1", "Read", {})]),
      toolResults("s", [
        { tool_use_id: "t1", content: "first" },
        { tool_use_id: "t1", content: "second" },
      ]),
    ]);
    expect(content(out[1])).toEqual([{ type: "tool_result", tool_use_id: "t1", content: "first" }]);
  });

  it("drops an assistant message cut before any output, keeps one cut mid-answer", () => {
    const partial = assistant("s", [{ type: "text", text: "The answer is" }], {
      error: "stream cut",
      stop_reason: null,
    });
    const out = history([
      prompt("s", "q1"),
      assistant("s", [], { error: "connection reset", stop_reason: null }),
      prompt("s", "q2"),
      partial,
    ]);
    expect(out.map((m) => m.type)).toEqual(["user", "user", "assistant"]);
    expect(out[2]).toBe(partial);
  });

  it("answers the calls of a cut assistant message too", () => {
    const out = history([
      prompt("s", "go"),
      assistant("s", [toolUse("t1", "Write", { file_path: "/a" })], { error: "aborted", stop_reason: null }),
    ]);
    expect(content(out[2])).toEqual([interrupted("t1")]);
    expectValid(out);
  });

  it("starts after the last compaction boundary", () => {
    const summary = prompt("s", "Summary of the conversation so far", { isSynthetic: true });
    const out = history([
      prompt("s", "old"),
      assistant("s", [{ type: "text", text: "old answer" }]),
      compactBoundary("s"),
      summary,
      assistant("s", [toolUse("t1", "Bash", {})]),
    ]);
    expect(out[0]).toBe(summary);
    expect(out.map((m) => m.type)).toEqual(["user", "assistant", "user"]);
    expectValid(out);
  });

  it("returns nothing for an empty or message-less session", () => {
    expect(history([])).toEqual([]);
    expect(history([result("s", 0, usage(0, 0))])).toEqual([]);
  });

  it("makes a fresh uuid per synthetic message by default", () => {
    const messages = [assistant("s", [toolUse("t1", "Bash", {})]), assistant("s", [toolUse("t2", "Bash", {})])];
    const out = conversationFromMessages(messages);
    expect(out.map((m) => m.type)).toEqual(["assistant", "user", "assistant", "user"]);
    expect(out[1]?.uuid).not.toBe(out[3]?.uuid);
    expect(out[1]?.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expectValid(out);
  });
});
