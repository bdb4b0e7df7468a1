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
});
