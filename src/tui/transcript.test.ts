import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { Transcript } from "./transcript.js";

const base = { session_id: "s", uuid: "u", parent_tool_use_id: null };
const stream = (event: unknown) => ({ ...base, type: "stream_event", event }) as unknown as SDKMessage;
const assistant = (content: unknown[]) =>
  ({
    ...base,
    type: "assistant",
    message: {
      id: "m1",
      type: "message",
      role: "assistant",
      model: "x",
      content,
      stop_reason: null,
      stop_sequence: null,
      usage: {},
    },
  }) as unknown as SDKMessage;
const toolResult = (id: string, content: string, isError = false) =>
  ({
    ...base,
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, is_error: isError }] },
  }) as unknown as SDKMessage;

describe("Transcript", () => {
  it("does not show again the history a compaction repeats, and shows the answer after it", () => {
    const transcript = new Transcript("/p");
    transcript.apply(assistant([{ type: "text", text: "Before." }]));
    const boundary = { ...base, type: "system", subtype: "compact_boundary", compact_metadata: {} };
    transcript.apply(boundary as unknown as SDKMessage);
    expect(transcript.apply(assistant([{ type: "text", text: "Before." }]))).toBe(false);
    expect(transcript.apply(toolResult("t1", "repeated"))).toBe(false);
    transcript.apply(stream({ type: "message_start", message: {} }));
    transcript.apply(assistant([{ type: "text", text: "After." }]));
    expect(transcript.items).toMatchObject([
      { kind: "assistant", text: "Before." },
      { kind: "notice", text: "Conversation compacted." },
      { kind: "assistant", text: "After." },
    ]);
  });

  it("shows the provider's own search as a WebSearch call with its query and the pages found", () => {
    const transcript = new Transcript("/p");
    transcript.apply(
      assistant([
        { type: "server_tool_use", id: "srv1", name: "web_search", input: { query: "tide times" } },
        {
          type: "web_search_tool_result",
          tool_use_id: "srv1",
          content: [
            {
              type: "web_search_result",
              url: "https://a.example/t",
              title: "Tides",
              page_age: null,
              encrypted_content: "x",
            },
          ],
        },
        { type: "server_tool_use", id: "srv2", name: "web_search", input: { query: "more" } },
        {
          type: "web_search_tool_result",
          tool_use_id: "srv2",
          content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" },
        },
        { type: "text", text: "High water at 06:12." },
      ]),
    );
    expect(transcript.items).toMatchObject([
      {
        kind: "tool",
        name: "WebSearch",
        about: "tide times",
        state: "done",
        outcome: "(1 result)",
        output: 'Web search results for query: "tide times"\n\n1. [Tides](https://a.example/t)',
      },
      {
        kind: "tool",
        name: "WebSearch",
        about: "more",
        state: "failed",
        outcome: "the search failed: max_uses_exceeded",
      },
      { kind: "assistant", text: "High water at 06:12." },
    ]);
  });

  it("grows streamed text in place and keeps the final text of the complete message", () => {
    const transcript = new Transcript("/p");
    transcript.apply(stream({ type: "message_start", message: {} }));
    transcript.apply(stream({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }));
    transcript.apply(stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } }));
    expect(transcript.items).toMatchObject([{ kind: "assistant", text: "Hel" }]);
    expect(transcript.settledCount()).toBe(0);
    transcript.apply(assistant([{ type: "text", text: "Hello." }]));
    expect(transcript.items).toMatchObject([{ kind: "assistant", text: "Hello." }]);
    expect(transcript.settledCount()).toBe(1);
  });

  it("moves a tool call through pending, running and done with a summary", () => {
    const transcript = new Transcript("/p");
    transcript.apply(stream({ type: "message_start", message: {} }));
    transcript.apply(
      stream({
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t1", name: "Read", input: {} },
      }),
    );
    expect(transcript.tool("t1")).toMatchObject({ state: "pending" });
    transcript.apply(assistant([{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "/p/src/app.ts" } }]));
    expect(transcript.tool("t1")).toMatchObject({ state: "running", about: "src/app.ts" });
    transcript.apply(toolResult("t1", "     1\ta\n     2\tb\n     3\tc\n"));
    expect(transcript.tool("t1")).toMatchObject({ state: "done", outcome: "(3 lines)" });
  });

  it("counts a call's seconds from its start message, not from when the model asked for it", () => {
    let now = 1_000;
    const transcript = new Transcript("/p", () => now);
    transcript.apply(
      assistant([
        { type: "tool_use", id: "a", name: "Bash", input: { command: "sleep 5" } },
        { type: "tool_use", id: "b", name: "Bash", input: { command: "ls" } },
      ]),
    );
    const started = (id: string, elapsed: number) =>
      ({
        ...base,
        type: "tool_progress",
        tool_use_id: id,
        tool_name: "Bash",
        elapsed_time_seconds: elapsed,
      }) as SDKMessage;
    now = 1_100;
    transcript.apply(started("a", 0));
    now = 6_100;
    transcript.apply(started("a", 5));
    transcript.apply(started("b", 0));
    expect(transcript.tool("a")).toMatchObject({ state: "running", startedAt: 1_100 });
    expect(transcript.tool("b")).toMatchObject({ state: "running", startedAt: 6_100 });
  });

  it("says whether a Write made its file or replaced one", () => {
    const transcript = new Transcript("/p");
    transcript.apply(
      assistant([
        { type: "tool_use", id: "w1", name: "Write", input: { file_path: "/p/new.txt", content: "a" } },
        { type: "tool_use", id: "w2", name: "Write", input: { file_path: "/p/old.txt", content: "b" } },
      ]),
    );
    transcript.apply(toolResult("w1", "File created successfully at: /p/new.txt"));
    transcript.apply(toolResult("w2", "The file /p/old.txt has been updated successfully."));
    expect(transcript.tool("w1")?.outcome).toBe("(new file)");
    expect(transcript.tool("w2")?.outcome).toBe("(replaced the file)");
  });

  it("marks a failed Bash call with its exit code, and unfinished calls failed when the turn is interrupted", () => {
    const transcript = new Transcript("/p");
    transcript.apply(
      assistant([
        { type: "tool_use", id: "a", name: "Bash", input: { command: "npm test" } },
        { type: "tool_use", id: "b", name: "Bash", input: { command: "sleep 9" } },
      ]),
    );
    transcript.apply(toolResult("a", "boom\nExit code 1", true));
    expect(transcript.tool("a")).toMatchObject({ state: "failed", about: "npm test", outcome: "→ exit 1" });
    transcript.apply({
      ...base,
      type: "result",
      terminal_reason: "interrupted",
      is_error: true,
    } as unknown as SDKMessage);
    expect(transcript.tool("b")).toMatchObject({ state: "failed", outcome: "interrupted" });
    expect(transcript.items.at(-1)).toMatchObject({ kind: "notice", text: expect.stringContaining("Interrupted") });
  });

  it("nests a subagent's work under the call that started it, a nested subagent's deeper", () => {
    const transcript = new Transcript("/p");
    const child = (message: SDKMessage, parent: string) => ({ ...message, parent_tool_use_id: parent }) as SDKMessage;
    // Tagged with a call nobody knows: shown nowhere.
    expect(transcript.apply(child(assistant([{ type: "text", text: "lost" }]), "t9"))).toBe(false);
    transcript.apply(assistant([{ type: "tool_use", id: "a1", name: "Agent", input: { description: "look around" } }]));
    transcript.apply(
      child(assistant([{ type: "tool_use", id: "r1", name: "Read", input: { file_path: "/p/x" } }]), "a1"),
    );
    transcript.apply(child(toolResult("r1", "     1\tx\n"), "a1"));
    transcript.apply(
      child(assistant([{ type: "tool_use", id: "a2", name: "Agent", input: { description: "deeper" } }]), "a1"),
    );
    transcript.apply(child(assistant([{ type: "text", text: "deep answer" }]), "a2"));
    expect(transcript.items).toHaveLength(1);
    const agent = transcript.tool("a1");
    expect(agent?.subagent?.items).toMatchObject([
      { kind: "tool", name: "Read", state: "done", outcome: "(1 line)" },
      { kind: "tool", name: "Agent", about: "deeper" },
    ]);
    expect(agent?.subagent?.tool("a2")?.subagent?.items).toMatchObject([{ kind: "assistant", text: "deep answer" }]);
    expect(transcript.settledCount()).toBe(0);
    // Interrupted: the calls still running, the subagents' too, are cut short; one notice, the conversation's.
    transcript.apply({
      ...base,
      type: "result",
      terminal_reason: "interrupted",
      is_error: true,
    } as unknown as SDKMessage);
    expect(agent).toMatchObject({ state: "failed", outcome: "interrupted" });
    expect(agent?.subagent?.tool("a2")).toMatchObject({ state: "failed", outcome: "interrupted" });
    expect(transcript.items.filter((item) => item.kind === "notice")).toHaveLength(1);
  });

  it("streams thinking into its own item and keeps the final text", () => {
    const transcript = new Transcript("/p");
    transcript.apply(stream({ type: "message_start", message: {} }));
    transcript.apply(
      stream({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } }),
    );
    transcript.apply(
      stream({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Hmm, " } }),
    );
    expect(transcript.items).toMatchObject([{ kind: "thinking", text: "Hmm, " }]);
    transcript.apply(
      assistant([
        { type: "thinking", thinking: "Hmm, the test." },
        { type: "text", text: "Done." },
      ]),
    );
    expect(transcript.items).toMatchObject([
      { kind: "thinking", text: "Hmm, the test." },
      { kind: "assistant", text: "Done." },
    ]);
  });

  it("keeps the task list of the last TodoWrite that succeeded, and says how far it is", () => {
    const transcript = new Transcript("/p");
    const write = (id: string, statuses: string[]) =>
      assistant([
        {
          type: "tool_use",
          id,
          name: "TodoWrite",
          input: { todos: statuses.map((status, i) => ({ content: `Task ${i}`, status, activeForm: `Doing ${i}` })) },
        },
      ]);
    transcript.apply(write("w1", ["in_progress", "pending"]));
    expect(transcript.todos).toEqual([]);
    transcript.apply(toolResult("w1", "Todos have been modified successfully."));
    expect(transcript.todos.map((todo) => todo.status)).toEqual(["in_progress", "pending"]);
    expect(transcript.tool("w1")?.outcome).toBe("(2 tasks, 0 done, 1 in progress)");
    transcript.apply(write("w2", ["completed", "completed", "pending"]));
    transcript.apply(toolResult("w2", "Error: invalid", true));
    expect(transcript.todos).toHaveLength(2);
    transcript.apply(write("w3", ["completed", "in_progress"]));
    transcript.apply(toolResult("w3", "ok"));
    expect(transcript.todos.map((todo) => todo.status)).toEqual(["completed", "in_progress"]);
    expect(transcript.tool("w3")).toMatchObject({ output: "ok", input: { todos: expect.any(Array) } });
  });
});
