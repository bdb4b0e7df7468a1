import { describe, expect, it } from "vitest";
import {
  assistant,
  progress,
  prompt,
  result,
  streamEvent,
  toolResults,
  toolUse,
  usage,
} from "../../test/sessions-fixtures.js";
import type { SDKMessage } from "../protocol/index.js";
import { applyMessage } from "./derive.js";
import { DeriveState, derivedSessionFields, initialDeriveState } from "./derive-state.js";
import type { Part, ToolPart } from "./parts.js";
import { assembleMessages } from "./session-record.js";
import type { MessageInfo, StoredMessage } from "./types.js";

/** Folds messages through the reducer at times 10, 20, 30, ... with counter ids. */
function fold(messages: SDKMessage[], start = initialDeriveState()) {
  let n = 0;
  const newId = (prefix: string) => `${prefix}_${String(++n).padStart(4, "0")}`;
  let state = start;
  const rows = new Map<string, MessageInfo>();
  const parts = new Map<string, Part>();
  const changes: Part[][] = [];
  messages.forEach((message, index) => {
    const applied = applyMessage(state, message, { sessionId: "s", now: (index + 1) * 10, newId });
    state = applied.state;
    for (const row of applied.messages) rows.set(row.id, row);
    for (const part of applied.parts) parts.set(part.id, part);
    changes.push(applied.parts);
  });
  return { state, messages: assembleMessages([...rows.values()], [...parts.values()]), changes };
}

function partsOf(message: StoredMessage | undefined, type: Part["type"]): Part[] {
  return message?.parts.filter((part) => part.type === type) ?? [];
}

describe("applyMessage", () => {
  it("does not change the state it is given", () => {
    const start = fold([prompt("s", "go"), assistant("s", [toolUse("t1", "Bash", { command: "ls" })])]).state;
    const frozen = structuredClone(start);
    fold([progress("s", "t1", "Bash"), toolResults("s", [{ tool_use_id: "t1", content: "ok" }])], start);
    expect(start).toEqual(frozen);
  });

  it("keeps its state as plain JSON that the schema accepts", () => {
    const { state } = fold([prompt("s", "go"), assistant("s", [toolUse("t1", "Write", { file_path: "/a" })])]);
    expect(DeriveState.parse(JSON.parse(JSON.stringify(state)))).toEqual(state);
  });

  it("moves a tool from pending to running once, on the first progress", () => {
    const { messages, changes } = fold([
      assistant("s", [toolUse("t1", "Bash", { command: "make" })]),
      progress("s", "t1", "Bash", 0),
      progress("s", "t1", "Bash", 5),
      progress("s", "unknown", "Bash", 0),
    ]);
    expect(partsOf(messages[0], "tool")).toMatchObject([{ state: { status: "running", startedAt: 20 } }]);
    expect(changes.slice(2)).toEqual([[], []]);
  });

  it("titles a running tool by its start, keeps the latest reported data as metadata, and both when it ends", () => {
    const { messages, changes } = fold([
      assistant("s", [toolUse("t1", "Bash", { command: "make" }), toolUse("t2", "Bash", { command: "ls" })]),
      { ...progress("s", "t1", "Bash"), title: "make" },
      { ...progress("s", "t1", "Bash", 1), data: { line: "cc a.c" } },
      { ...progress("s", "t1", "Bash", 2), data: { line: "cc b.c" } },
      toolResults("s", [
        { tool_use_id: "t1", content: "boom", is_error: true },
        { tool_use_id: "t2", content: "a.c" },
      ]),
    ]);
    expect(changes[1]).toMatchObject([{ state: { status: "running", startedAt: 20, title: "make" } }]);
    expect(changes[2]).toMatchObject([{ state: { status: "running", startedAt: 20, metadata: { line: "cc a.c" } } }]);
    const [made, listed] = partsOf(messages[0], "tool") as ToolPart[];
    expect(made?.state).toEqual({
      status: "error",
      input: { command: "make" },
      error: "boom",
      startedAt: 20,
      endedAt: 50,
      title: "make",
      metadata: { line: "cc b.c" },
    });
    // A call with no start message (one that never ran) has neither.
    expect(listed?.state).toEqual({
      status: "completed",
      input: { command: "ls" },
      output: "a.c",
      startedAt: 50,
      endedAt: 50,
    });
  });

  it("dates a running tool's start back by the elapsed time its first progress reports", () => {
    const { messages } = fold([
      assistant("s", [toolUse("t1", "Bash", { command: "make" })]),
      progress("s", "t1", "Bash", 0.008),
    ]);
    expect(partsOf(messages[0], "tool")).toMatchObject([{ state: { status: "running", startedAt: 12 } }]);
  });

  it("closes a tool that never reported progress with its start at its end", () => {
    const { messages } = fold([
      assistant("s", [toolUse("t1", "Glob", { pattern: "*" })]),
      toolResults("s", [{ tool_use_id: "t1", content: "a.ts" }]),
    ]);
    expect(partsOf(messages[0], "tool")).toMatchObject([
      { state: { status: "completed", output: "a.ts", startedAt: 20, endedAt: 20, input: { pattern: "*" } } },
    ]);
  });

  it("ignores results for unknown or already closed calls", () => {
    const { state, changes } = fold([
      assistant("s", [toolUse("t1", "Read", { file_path: "/a" })]),
      toolResults("s", [{ tool_use_id: "t1", content: "first" }]),
      toolResults("s", [
        { tool_use_id: "t1", content: "second" },
        { tool_use_id: "zzz", content: "stray" },
      ]),
    ]);
    expect(changes[2]).toEqual([]);
    expect(state.openTools).toEqual({});
  });

  it("renders image results as notes in the output", () => {
    const { messages } = fold([
      assistant("s", [toolUse("t1", "Read", { file_path: "/a.png" })]),
      toolResults("s", [
        {
          tool_use_id: "t1",
          content: [
            { type: "text", text: "Image:" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
          ],
        },
      ]),
    ]);
    expect(partsOf(messages[0], "tool")).toMatchObject([{ state: { output: "Image:\n[image: image/png]" } }]);
  });

  it("lists each successfully edited file once in the step's patch, across result messages", () => {
    const { messages, state } = fold([
      assistant("s", [
        toolUse("w", "Write", { file_path: "/a.ts", content: "x" }),
        toolUse("e", "Edit", { file_path: "/a.ts", old_string: "x", new_string: "y" }),
        toolUse("m", "MultiEdit", { file_path: "/b.ts", edits: [] }),
        toolUse("n", "NotebookEdit", { notebook_path: "/c.ipynb", new_source: "" }),
        toolUse("bad", "Edit", { file_path: "/d.ts", old_string: "q", new_string: "r" }),
        toolUse("r", "Read", { file_path: "/e.ts" }),
      ]),
      toolResults("s", [
        { tool_use_id: "w", content: "ok" },
        { tool_use_id: "e", content: "ok" },
        { tool_use_id: "bad", content: "old_string not found", is_error: true },
        { tool_use_id: "r", content: "contents" },
      ]),
      toolResults("s", [
        { tool_use_id: "m", content: "ok" },
        { tool_use_id: "n", content: "ok" },
      ]),
    ]);
    const patches = partsOf(messages[0], "patch");
    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatchObject({ files: ["/a.ts", "/b.ts", "/c.ipynb"] });
    expect(messages[0]?.parts.at(-1)?.type).toBe("patch");
    expect(state.patches).toEqual({});
  });

  it("derives reasoning, redacted reasoning, subtasks and errors", () => {
    const { messages } = fold([
      assistant(
        "s",
        [
          { type: "redacted_thinking", data: "opaque" },
          toolUse("task1", "Task", {
            description: "Find tests",
            prompt: "Look for tests",
            subagent_type: "explore",
          }),
        ],
        { error: "stream cut", stop_reason: null },
      ),
    ]);
    const [message] = messages;
    expect(message).toMatchObject({
      error: "stream cut",
      finishReason: null,
      model: "anthropic/claude-sonnet-4-5",
    });
    expect(partsOf(message, "reasoning")).toMatchObject([{ text: "", redacted: true }]);
    expect(partsOf(message, "subtask")).toMatchObject([
      { callId: "task1", description: "Find tests", prompt: "Look for tests", agent: "explore" },
    ]);
  });

  it("gives a user message file parts for its images and @ mentions, and ignored text parts when it is ignored (issue 32, row 10)", () => {
    const { messages } = fold([
      {
        ...prompt("s", ""),
        message: {
          role: "user",
          content: [
            { type: "text", text: "look at @src/a.ts and @docs" },
            { type: "text", text: "Contents of src/a.ts (attached with @src/a.ts):" },
            { type: "text", text: "     1\texport const a = 1;" },
            { type: "text", text: "Listing of the folder docs/ (attached with @docs):\nguide.md" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
          ],
        },
      },
      prompt("s", "a note for the people reading this session", { ignored: true }),
    ]);
    const [mentioned, note] = messages;
    expect(partsOf(mentioned, "file")).toMatchObject([
      { source: "mention", mime: "text/plain", filename: "src/a.ts" },
      { source: "mention", mime: "inode/directory", filename: "docs" },
      { source: "attachment", mime: "image/png" },
    ]);
    expect(partsOf(mentioned, "text").every((part) => !("ignored" in part))).toBe(true);
    expect(partsOf(note, "text")).toMatchObject([
      { text: "a note for the people reading this session", ignored: true },
    ]);
  });

  it("a message with only an image is a user message with its file part", () => {
    const image = {
      type: "image" as const,
      source: { type: "base64" as const, media_type: "image/jpeg", data: "/9j/" },
    };
    const { messages } = fold([{ ...prompt("s", ""), message: { role: "user", content: [image] } }]);
    expect(messages).toHaveLength(1);
    expect(partsOf(messages[0], "file")).toMatchObject([{ source: "attachment", mime: "image/jpeg" }]);
  });

  it("gives an assistant message of an agent its agent part", () => {
    const { messages } = fold([assistant("s", [{ type: "text", text: "billing here" }], { agent: "billing" })]);
    expect(partsOf(messages[0], "agent")).toMatchObject([{ name: "billing" }]);
    expect(messages[0]?.agent).toBe("billing");
  });

  it("marks subagent messages and keeps them out of the title", () => {
    const { messages, state } = fold([
      prompt("s", "sub prompt", { parent_tool_use_id: "task1" }),
      prompt("s", "Continue.", { isSynthetic: true }),
      prompt("s", "   \n  Real title  \nmore"),
      prompt("s", "Another prompt"),
    ]);
    expect(messages[0]?.parentToolUseId).toBe("task1");
    expect(messages[1]?.parts).toMatchObject([{ type: "text", synthetic: true }]);
    expect(state.derivedTitle).toBe("Real title");
  });

  it("cuts long titles to 80 characters", () => {
    const { state } = fold([prompt("s", "x".repeat(200))]);
    expect(state.derivedTitle).toHaveLength(80);
    expect(state.derivedTitle?.endsWith("…")).toBe(true);
  });

  it("makes no message for a user message of only tool results", () => {
    const { messages } = fold([
      prompt("s", "go"),
      assistant("s", [toolUse("t1", "Bash", { command: "ls" })]),
      toolResults("s", [{ tool_use_id: "t1", content: "ok" }]),
      assistant("s", [{ type: "text", text: "done" }]),
    ]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
    expect(messages[2]?.parentId).toBe(messages[1]?.id);
  });

  it("counts stored messages, not stream events; init sets the model", () => {
    const { state } = fold([
      streamEvent("s"),
      {
        type: "system",
        subtype: "init",
        uuid: "u",
        session_id: "s",
        apiKeySource: "ANTHROPIC_API_KEY",
        claude_code_version: "2.1.0",
        skills: [],
        plugins: [],
        cwd: "/",
        tools: [],
        mcp_servers: [],
        model: "openai/gpt-5",
        permissionMode: "default",
        slash_commands: [],
        output_style: "default",
        gyre_version: "0.1.0",
      },
    ]);
    expect(state.messageCount).toBe(1);
    expect(state.model).toBe("openai/gpt-5");
  });

  it("sums costs over runs: the result replaces the run's running total", () => {
    const { state } = fold([
      assistant("s", [{ type: "text", text: "a" }], { cost_usd: 0.1, usage: usage(10, 1) }),
      result("s", 0.15, usage(12, 2)),
      assistant("s", [{ type: "text", text: "b" }], { cost_usd: 0.2, usage: usage(20, 2) }),
    ]);
    const fields = derivedSessionFields(state);
    expect(fields.costUsd).toBeCloseTo(0.35);
    expect(fields.tokens).toMatchObject({ input_tokens: 32, output_tokens: 4 });
    expect(fields.runs).toBe(1);
  });

  it("leaves calls open across a result (client tools answer after the run pauses)", () => {
    const { state } = fold([assistant("s", [toolUse("c1", "client_fn", {})]), result("s", 0, usage(0, 0))]);
    expect(Object.keys(state.openTools)).toEqual(["c1"]);
  });
});

describe("subtask parts", () => {
  const agentCall = (id: string) =>
    toolUse(id, "Agent", { description: "look", prompt: "look around", subagent_type: "scout" });
  /** A new run's first message (the reducer reads only its type, subtype and model). */
  const init = (): SDKMessage =>
    ({
      type: "system",
      subtype: "init",
      model: "m",
      uuid: crypto.randomUUID(),
      session_id: "s",
    }) as unknown as SDKMessage;
  const subtask = (messages: StoredMessage[]) => messages.flatMap((m) => partsOf(m, "subtask"))[0];

  it("runs from the call, links the subagent's session on its first progress, and closes with its data", () => {
    const started = { ...progress("s", "a1", "Agent"), data: { session_id: "child-1" } };
    const { messages, state } = fold([
      assistant("s", [agentCall("a1")]),
      started,
      toolResults("s", [{ tool_use_id: "a1", content: "Error: stopped", is_error: true }], {
        tool_use_result: { a1: { status: "interrupted", session_id: "child-1", total_cost_usd: 0.25 } },
      }),
    ]);
    expect(subtask(messages)).toMatchObject({
      callId: "a1",
      agent: "scout",
      description: "look",
      childSessionId: "child-1",
      status: "interrupted",
      costUsd: 0.25,
    });
    expect(state.openSubtasks).toEqual({});
    // A result without data (an error before the subagent ran): status by is_error, no session, no cost.
    const failed = fold([
      assistant("s", [agentCall("a2")]),
      toolResults("s", [{ tool_use_id: "a2", content: "no such agent", is_error: true }]),
    ]);
    expect(subtask(failed.messages)).toMatchObject({ status: "error", childSessionId: null, costUsd: null });
  });

  it("a new run closes the calls a dead process left open as interrupted, but not the ones a pause waits on", () => {
    const paused: SDKMessage = {
      ...result("s", 0, usage(1, 1)),
      terminal_reason: "requires_action",
      pending_tool_calls: [{ kind: "approval", id: "a1", name: "Agent", input: {}, reason: "ask" }],
    };
    const first = fold([assistant("s", [agentCall("a1")]), paused, init()]);
    expect(subtask(first.messages)).toMatchObject({ status: "running" });
    expect(first.state.openTools).toHaveProperty("a1");
    // The resumed run died too: the next run closes the call.
    const second = fold([assistant("s", [agentCall("a1"), toolUse("b1", "Bash", { command: "make" })]), init()]);
    expect(subtask(second.messages)).toMatchObject({ status: "interrupted" });
    expect(second.messages[0]?.parts.filter((p) => p.type === "tool")).toEqual([
      expect.objectContaining({ callId: "a1", state: expect.objectContaining({ status: "error" }) }),
      expect.objectContaining({ callId: "b1", state: expect.objectContaining({ status: "error" }) }),
    ]);
    expect(second.state.openTools).toEqual({});
    const again = fold([init()], first.state);
    expect(again.changes[0]).toEqual([
      expect.objectContaining({ callId: "a1", type: "tool" }),
      expect.objectContaining({ callId: "a1", type: "subtask", status: "interrupted" }),
    ]);
  });
});
