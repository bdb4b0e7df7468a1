import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { HistoryEntry } from "../protocol/index.js";
import { type AnyTool, defineTool, ToolRegistry, type ToolResult } from "../tools/index.js";
import { bindToolSearch, notLoadedError, presentTools, rebindToolSearch } from "./deferral.js";
import type { ToolSearchSetting } from "./setting.js";

const builtin = defineTool({
  name: "Read",
  description: "Reads a file.",
  inputSchema: z.object({}),
  execute: () => "",
});

function mcp(name: string, description = "x".repeat(400)): AnyTool {
  return {
    ...defineTool({ name: `mcp__s__${name}`, description, inputSchema: z.object({}), execute: () => "" }),
    mcp: { server: "s", tool: name },
  };
}

function registry(count: number): ToolRegistry {
  const tools = [builtin, ...Array.from({ length: count }, (_, index) => mcp(`tool_${index}`))];
  const built = new ToolRegistry(tools);
  bindToolSearch(built);
  return built;
}

const AUTO: ToolSearchSetting = { mode: "auto", percent: 10 };
const names = (tools: Array<{ name: string }>) => tools.map((tool) => tool.name);

async function search(built: ToolRegistry, query: string): Promise<ToolResult> {
  const tool = built.get("ToolSearch");
  const output = await tool?.execute?.({ query }, {} as never);
  return output as ToolResult;
}

function searched(id: string, content: string): HistoryEntry[] {
  return [
    { role: "assistant", message: { content: [{ type: "tool_use", id, name: "ToolSearch", input: {} }] } as never },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] },
  ];
}

describe("presentTools", () => {
  it("auto: defers the MCP tools once their definitions pass the share of the window (characters / 4)", () => {
    // 10 tools of ~430 characters: ~1,100 tokens, 10% of a 10,000-token window is 1,000.
    const built = registry(10);
    expect(names(presentTools(built, AUTO, 20_000, []))).toEqual(["Read", ...names(built.list()).slice(1, 11)]);
    const deferred = presentTools(built, AUTO, 10_000, []);
    expect(names(deferred)).toEqual(["Read", "ToolSearch"]);
    expect(deferred[1]?.description).toContain(
      `<available-deferred-tools>\n${names(built.list()).slice(1, 11).join("\n")}\n</available-deferred-tools>`,
    );
    expect(names(presentTools(built, { mode: "always" }, 1_000_000, []))).toEqual(["Read", "ToolSearch"]);
  });

  it("sends the tools the history's ToolSearch results loaded, the same array while they stay the same", async () => {
    const built = registry(10);
    const result = await search(built, "select:mcp__s__tool_3,mcp__s__tool_1");
    const history = searched("t1", String(result.content));
    const tools = presentTools(built, { mode: "always" }, 10_000, history);
    expect(names(tools)).toEqual(["Read", "mcp__s__tool_1", "mcp__s__tool_3", "ToolSearch"]);
    expect(presentTools(built, { mode: "always" }, 10_000, [...history])).toBe(tools);
  });

  it("refuses a call of a deferred tool that is not loaded, and only that", async () => {
    const built = registry(3);
    const always: ToolSearchSetting = { mode: "always" };
    expect(notLoadedError(built, always, 10_000, [], "mcp__s__tool_0")).toContain('query "select:mcp__s__tool_0"');
    expect(notLoadedError(built, always, 10_000, [], "Read")).toBeUndefined();
    expect(notLoadedError(built, AUTO, 1_000_000, [], "mcp__s__tool_0")).toBeUndefined();
    const history = searched("t1", String((await search(built, "select:mcp__s__tool_0")).content));
    expect(notLoadedError(built, always, 10_000, history, "mcp__s__tool_0")).toBeUndefined();
  });

  it("nothing is deferred without a ToolSearch in the registry (disallowed, or never bound)", () => {
    const hidden = new ToolRegistry([builtin, mcp("a")], { disallowed: ["ToolSearch"] });
    bindToolSearch(hidden);
    expect(names(presentTools(hidden, { mode: "always" }, 10_000, []))).toEqual(["Read", "mcp__s__a"]);
    const unbound = new ToolRegistry([builtin, mcp("a")]);
    expect(names(presentTools(unbound, { mode: "always" }, 10_000, []))).toEqual(["Read", "mcp__s__a"]);
  });

  it("a registry built from another's tools searches its own once rebound", async () => {
    const parent = registry(3);
    const child = rebindToolSearch(new ToolRegistry(parent.list().filter((tool) => tool.name !== "mcp__s__tool_1")));
    expect(String((await search(child, "tool")).content)).not.toContain("mcp__s__tool_1");
    expect(String((await search(parent, "tool")).content)).toContain("mcp__s__tool_1");
  });
});
