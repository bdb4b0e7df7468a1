import { describe, expect, it } from "vitest";
import { INVALID_TOOL_NAME, readToolBlock } from "./tool-block.js";

describe("readToolBlock", () => {
  it("reads a well-formed block into the named call with JSON arguments", () => {
    expect(readToolBlock('\n{"tool_name": "calc", "arguments": {"a": 1}}\n', true)).toEqual({
      toolName: "calc",
      input: '{"a":1}',
    });
  });

  it("treats missing or null arguments as {} and looks through a Markdown fence", () => {
    expect(readToolBlock('{"tool_name": "ls"}', true)).toEqual({ toolName: "ls", input: "{}" });
    expect(readToolBlock('{"tool_name": "ls", "arguments": null}', true)).toEqual({
      toolName: "ls",
      input: "{}",
    });
    expect(readToolBlock('\n```json\n{"tool_name": "ls", "arguments": {"d": "."}}\n```\n', true)).toEqual({
      toolName: "ls",
      input: '{"d":"."}',
    });
  });

  it("accepts arguments written as a JSON string holding an object", () => {
    expect(readToolBlock('{"tool_name": "calc", "arguments": "{\\"a\\": 2}"}', true)).toEqual({
      toolName: "calc",
      input: '{"a":2}',
    });
  });

  it("answers invalid JSON with the named tool and the raw text, which is not JSON", () => {
    const call = readToolBlock('{"tool_name": "calc", "arguments": {"a": 6,}}', true);
    expect(call.toolName).toBe("calc");
    expect(call.input).toBe('{"tool_name": "calc", "arguments": {"a": 6,}}');
    expect(() => JSON.parse(call.input)).toThrow();
    expect(call.problem).toMatch(/^The <tool> block is not valid JSON \(.+\)\.$/);
  });

  it("names invalid JSON without a readable tool name invalid_tool_call", () => {
    expect(readToolBlock("calc(a=1)", true)).toMatchObject({
      toolName: INVALID_TOOL_NAME,
      input: "calc(a=1)",
    });
  });

  it("calls invalid_tool_call when tool_name is missing, empty or not a string", () => {
    for (const body of ['{"arguments": {"a": 1}}', '{"tool_name": "", "arguments": {}}', '{"tool_name": 3}', "[1]"]) {
      expect(readToolBlock(body, true), body).toMatchObject({
        toolName: INVALID_TOOL_NAME,
        problem: expect.stringContaining('no "tool_name"'),
      });
    }
  });

  it("passes arguments that are not an object on as written, so they fail validation", () => {
    for (const [args, input] of [
      ["[1, 2]", "[1,2]"],
      ['"six"', '"six"'],
      ["42", "42"],
    ] as const) {
      const call = readToolBlock(`{"tool_name": "calc", "arguments": ${args}}`, true);
      expect(call).toEqual({
        toolName: "calc",
        input,
        problem: 'The "arguments" of the <tool> block must be a JSON object.',
      });
    }
  });

  it("reports a block cut off before </tool>, but accepts one that holds complete JSON", () => {
    expect(readToolBlock('{"tool_name": "calc", "argu', false)).toEqual({
      toolName: "calc",
      input: '{"tool_name": "calc", "argu',
      problem: "The <tool> block was cut off before its closing </tool> tag.",
    });
    expect(readToolBlock('{"tool_name": "calc", "arguments": {}}\n', false)).toEqual({
      toolName: "calc",
      input: "{}",
    });
  });
});
