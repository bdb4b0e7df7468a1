import type { LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { toolProtocolSection } from "./system-section.js";

const calculator: LanguageModelV3FunctionTool = {
  type: "function",
  name: "calculator",
  description: "Evaluate a + b.",
  inputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
};

describe("toolProtocolSection", () => {
  it("describes the block format, the rules and every tool with its JSON Schema", () => {
    const section = toolProtocolSection([calculator, { ...calculator, name: "other", description: undefined }]);
    expect(section).toContain(
      '<tool>\n{"tool_name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}\n</tool>',
    );
    expect(section).toContain("Write one or more <tool> blocks, then stop.");
    expect(section).toContain("<thinking>...</thinking>");
    expect(section).toContain(
      '### calculator\nEvaluate a + b.\nInput schema: {"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}',
    );
    expect(section).toContain('### other\nInput schema: {"type":"object"');
    expect(section).not.toContain("must call");
  });

  it("says a call is required when the tool choice asks for one", () => {
    expect(toolProtocolSection([calculator], { type: "required" })).toContain("you must call at least one tool");
    expect(toolProtocolSection([calculator], { type: "tool", toolName: "calculator" })).toContain(
      "you must call the tool calculator",
    );
  });
});
