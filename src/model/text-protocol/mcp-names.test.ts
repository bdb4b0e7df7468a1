import type { LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { MCP_TOOL_OPTIONS, toolNameResolver } from "./mcp-names.js";
import { toolProtocolSection } from "./system-section.js";
import { readToolBlock } from "./tool-block.js";

const schema = { type: "object" as const, properties: {} };
const local: LanguageModelV3FunctionTool = { type: "function", name: "add", description: "Ours.", inputSchema: schema };
const remote: LanguageModelV3FunctionTool = {
  type: "function",
  name: "mcp__calc__add",
  description: "Theirs.",
  inputSchema: schema,
  providerOptions: { [MCP_TOOL_OPTIONS]: { server: "calc", tool: "add" } },
};

describe("MCP tools in the text protocol", () => {
  it("server_name picks the server's tool; local, none or a full name keep the name; unknown pairs stay unknown", () => {
    const resolve = toolNameResolver([local, remote]);
    const read = (call: object) => readToolBlock(JSON.stringify(call), true, resolve).toolName;
    expect(read({ tool_name: "add", server_name: "calc" })).toBe("mcp__calc__add");
    expect(read({ tool_name: "mcp__calc__add", server_name: "calc" })).toBe("mcp__calc__add");
    expect(read({ tool_name: "add", server_name: "local" })).toBe("add");
    expect(read({ tool_name: "add" })).toBe("add");
    expect(read({ tool_name: "mcp__calc__add" })).toBe("mcp__calc__add");
    expect(read({ tool_name: "add", server_name: "other" })).toBe("mcp__other__add");
  });

  it("the system section lists our tools, then each server's, and explains server_name", () => {
    const section = toolProtocolSection([remote, local]);
    expect(section).toContain('"server_name"');
    const ours = section.indexOf("### add\nOurs.");
    const theirs = section.indexOf('## Tools of MCP server "calc"\n\n### add (full name: mcp__calc__add)\nTheirs.');
    expect(ours).toBeGreaterThan(0);
    expect(theirs).toBeGreaterThan(ours);
    expect(toolProtocolSection([local])).not.toContain("server_name");
  });
});
