import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { rewritePrompt, TEXT_PROTOCOL_METADATA } from "./rewrite-prompt.js";

const conversation: LanguageModelV3Prompt = [
  { role: "system", content: "You are helpful." },
  { role: "user", content: [{ type: "text", text: "6*7 and 1/0?" }] },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Two calls." },
      { type: "text", text: "Computing." },
      { type: "tool-call", toolCallId: "c1", toolName: "calculator", input: { a: 6, b: 7, op: "*" } },
      { type: "tool-call", toolCallId: "c2", toolName: "calculator", input: { a: 1, b: 0, op: "/" } },
    ],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "calculator",
        output: { type: "text", value: "42" },
      },
      {
        type: "tool-result",
        toolCallId: "c2",
        toolName: "calculator",
        output: { type: "error-text", value: "Error: division by zero" },
      },
    ],
  },
  { role: "user", content: [{ type: "text", text: "Also explain." }] },
];

describe("rewritePrompt", () => {
  it("appends the section to the system message and writes calls and results as text", () => {
    expect(rewritePrompt(conversation, "# Tools")).toEqual([
      { role: "system", content: "You are helpful.\n\n# Tools" },
      { role: "user", content: [{ type: "text", text: "6*7 and 1/0?" }] },
      {
        role: "assistant",
        content: [
          {
            type: "text",
            text:
              "<thinking>\nTwo calls.\n</thinking>\n\nComputing.\n\n" +
              '<tool>\n{"tool_name":"calculator","arguments":{"a":6,"b":7,"op":"*"}}\n</tool>\n\n' +
              '<tool>\n{"tool_name":"calculator","arguments":{"a":1,"b":0,"op":"/"}}\n</tool>',
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "text",
            text:
              '<tool_result tool_name="calculator" tool_call_id="c1">\n42\n</tool_result>\n\n' +
              '<tool_result tool_name="calculator" tool_call_id="c2" is_error="true">\nError: division by zero\n</tool_result>' +
              "\n\nAlso explain.",
          },
        ],
      },
    ]);
  });

  it("creates a system message when there is none, and adds none without tools", () => {
    const prompt: LanguageModelV3Prompt = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    expect(rewritePrompt(prompt, "# Tools")[0]).toEqual({ role: "system", content: "# Tools" });
    expect(rewritePrompt(prompt, undefined)).toEqual(prompt);
  });

  it("shows a malformed call as written and explains the problem in its result", () => {
    const prompt: LanguageModelV3Prompt = [
      {
        role: "assistant",
        content: [
          {
            type: "tool-call",
            toolCallId: "c1",
            toolName: "calculator",
            input: {},
            providerOptions: {
              [TEXT_PROTOCOL_METADATA]: {
                raw: '{"tool_name": "calculator", "a": }',
                closed: true,
                problem: "Bad JSON.",
              },
            },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "calculator",
            output: { type: "error-text", value: "Error: not valid JSON" },
          },
        ],
      },
    ];
    const [assistant, user] = rewritePrompt(prompt, undefined);
    expect(assistant?.content).toEqual([{ type: "text", text: '<tool>{"tool_name": "calculator", "a": }</tool>' }]);
    expect(user?.content).toEqual([
      {
        type: "text",
        text:
          '<tool_result tool_name="calculator" tool_call_id="c1" is_error="true">\nError: not valid JSON\n' +
          'Bad JSON. Write each call as <tool>{"tool_name": "...", "arguments": {...}}</tool>.\n</tool_result>',
      },
    ]);
  });

  it("renders JSON, denied and image results, keeping images as file parts", () => {
    const prompt: LanguageModelV3Prompt = [
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "a",
            toolName: "j",
            output: { type: "json", value: { ok: true } },
          },
          {
            type: "tool-result",
            toolCallId: "b",
            toolName: "d",
            output: { type: "execution-denied", reason: "no" },
          },
          {
            type: "tool-result",
            toolCallId: "c",
            toolName: "img",
            output: {
              type: "content",
              value: [
                { type: "text", text: "see" },
                { type: "image-data", data: "AAAA", mediaType: "image/png" },
              ],
            },
          },
        ],
      },
    ];
    expect(rewritePrompt(prompt, undefined)[0]?.content).toEqual([
      {
        type: "text",
        text:
          '<tool_result tool_name="j" tool_call_id="a">\n{"ok":true}\n</tool_result>\n\n' +
          '<tool_result tool_name="d" tool_call_id="b" is_error="true">\nThe call was denied: no\n</tool_result>\n\n' +
          '<tool_result tool_name="img" tool_call_id="c">\nsee',
      },
      { type: "file", data: "AAAA", mediaType: "image/png" },
      { type: "text", text: "\n</tool_result>" },
    ]);
  });
});
