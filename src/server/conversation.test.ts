import { describe, expect, it } from "vitest";
import { toConversation } from "./conversation.js";
import type { StoredInputItem } from "./response-object.js";

const user = (id: string, content: string): StoredInputItem => ({ type: "message", id, role: "user", content });
const call = (callId: string, name = "f", args = "{}"): StoredInputItem => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: args,
});
const output = (callId: string, text: string): StoredInputItem => ({
  type: "function_call_output",
  id: `fco_${callId}`,
  call_id: callId,
  output: text,
  status: null,
});

describe("toConversation", () => {
  it("takes the last user turn as the prompt and the rest as the seed, system messages apart", () => {
    const conversation = toConversation([
      { type: "message", id: "s", role: "developer", content: "Be brief." },
      user("u1", "Hi"),
      { type: "message", id: "a1", role: "assistant", content: [{ type: "output_text", text: "Hello" }] },
      user("u2", "Bye"),
      user("u3", "Really"),
    ]);
    expect(conversation.system).toEqual(["Be brief."]);
    expect(conversation.seed).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi" }] },
      { role: "assistant", content: [{ type: "text", text: "Hello" }] },
    ]);
    expect(conversation.pending).toEqual([]);
    expect(conversation.prompt).toEqual([
      { type: "text", text: "Bye" },
      { type: "text", text: "Really" },
    ]);
  });

  it("seeds a paused run when the input answers the last answer's calls, results first", () => {
    const conversation = toConversation([
      user("u1", "Do two things"),
      { type: "message", id: "a1", role: "assistant", content: "On it." },
      call("c1", "f", '{"n":1}'),
      call("c2", "g"),
      user("u2", "and hurry"),
      output("c2", "two"),
      output("c1", "one"),
    ]);
    expect(conversation.seed.at(-1)).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "On it." },
        { type: "tool_use", id: "c1", name: "f", input: { n: 1 } },
        { type: "tool_use", id: "c2", name: "g", input: {} },
      ],
    });
    expect(conversation.pending.map((pending) => pending.id)).toEqual(["c1", "c2"]);
    expect(conversation.prompt.map((block) => block.type)).toEqual(["tool_result", "tool_result", "text"]);
  });

  it("refuses inputs a provider would reject, naming input", () => {
    const cases: StoredInputItem[][] = [
      [user("u", "hi"), call("c1")],
      [user("u", "hi"), call("c1"), user("u2", "no output")],
      [user("u", "hi"), call("c1"), output("c9", "wrong call")],
      [
        user("u", "hi"),
        call("c1"),
        output("c1", "ok"),
        call("c2"),
        user("u3", "c2 unanswered"),
        { type: "message", id: "a", role: "assistant", content: "x" },
        user("u4", "go"),
      ],
    ];
    for (const items of cases)
      expect(() => toConversation(items)).toThrow(expect.objectContaining({ code: "request_error", param: "input" }));
    expect(() => toConversation([user("u", "hi"), call("c1", "f", "{nope"), output("c1", "x")])).toThrow(
      expect.objectContaining({ param: "input[1].arguments" }),
    );
  });

  it("reads images and text files from data URLs only", () => {
    const image = toConversation([
      {
        type: "message",
        id: "u",
        role: "user",
        content: [{ type: "input_image", image_url: "data:image/png;base64,AAAA" }],
      },
    ]);
    expect(image.prompt).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
    ]);
    const file = toConversation([
      {
        type: "message",
        id: "u",
        role: "user",
        content: [
          {
            type: "input_file",
            filename: "a.txt",
            file_data: `data:text/plain;base64,${Buffer.from("hello").toString("base64")}`,
          },
        ],
      },
    ]);
    expect(file.prompt).toEqual([{ type: "text", text: '<file name="a.txt">\nhello\n</file>' }]);
    for (const content of [
      [{ type: "input_image" as const, image_url: "http://169.254.169.254/latest" }],
      [{ type: "input_image" as const, image_url: "data:text/html;base64,AAAA" }],
      [{ type: "input_file" as const, file_url: "file:///etc/passwd" }],
      [{ type: "input_file" as const, file_data: "data:application/pdf;base64,AAAA" }],
    ]) {
      expect(() => toConversation([{ type: "message", id: "u", role: "user", content }])).toThrow(
        expect.objectContaining({ code: "request_error" }),
      );
    }
  });

  it("makes an answered approval request a pending approval, drops an unanswered one, and keeps run calls", () => {
    const request = (id: string, name: string): StoredInputItem => ({
      type: "mcp_approval_request",
      id,
      server_label: "web",
      name,
      arguments: "{}",
    });
    const conversation = toConversation([
      user("u1", "Go"),
      request("r_old", "echo"),
      {
        type: "mcp_call",
        id: "mcp_1",
        server_label: "web",
        name: "get-sum",
        arguments: '{"a":1}',
        output: "1",
        error: null,
        status: "completed",
        approval_request_id: null,
      },
      request("r_new", "echo"),
      { type: "mcp_approval_response", id: "a1", approval_request_id: "r_new", approve: false, reason: "no" },
    ]);
    const blocks = conversation.seed.flatMap((turn): Array<{ type: string; id?: string }> => turn.content);
    expect(blocks.map((block) => block.type)).toEqual(["text", "tool_use", "tool_result", "tool_use"]);
    expect(blocks.some((block) => block.type === "tool_use" && block.id === "r_old")).toBe(false);
    expect(conversation.pending).toEqual([{ kind: "approval", id: "r_new", name: "mcp__web__echo", input: {} }]);
    expect(conversation.approvals).toEqual({ r_new: { behavior: "deny", message: "The user declined this call: no" } });
    expect(() =>
      toConversation([
        user("u1", "Go"),
        { type: "mcp_approval_response", id: "a2", approval_request_id: "nope", approve: true },
      ]),
    ).toThrow(/No mcp_approval_request/);
  });

  it("turns a custom tool call and its output into a call and its result", () => {
    const conversation = toConversation([
      user("u1", "Patch"),
      { type: "custom_tool_call", id: "c1", call_id: "k1", name: "apply_patch", input: "*** Begin Patch" },
      { type: "custom_tool_call_output", id: "o1", call_id: "k1", output: "ok" },
    ]);
    expect(conversation.seed.at(-1)?.content).toEqual([
      { type: "tool_use", id: "k1", name: "apply_patch", input: { input: "*** Begin Patch" } },
    ]);
    expect(conversation.prompt).toEqual([{ type: "tool_result", tool_use_id: "k1", content: "ok" }]);
  });
});
