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

  it("leaves subagents' messages out of the main transcript", () => {
    const transcript = new Transcript("/p");
    const child = {
      ...(assistant([{ type: "text", text: "inner" }]) as object),
      parent_tool_use_id: "t9",
    } as SDKMessage;
    expect(transcript.apply(child)).toBe(false);
    expect(transcript.items).toEqual([]);
  });
});
