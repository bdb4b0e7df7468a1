import { describe, expect, it } from "vitest";
import { ToolNamer } from "./tool-names.js";

describe("MCP tool names", () => {
  it("are mcp__<server>__<tool>, with characters the providers refuse replaced", () => {
    const namer = new ToolNamer();
    expect(namer.name("calc", "add")).toBe("mcp__calc__add");
    expect(namer.name("my server", "get.sum/v2")).toBe("mcp__my_server__get_sum_v2");
  });

  it("are cut to 64 characters", () => {
    const name = new ToolNamer().name("s", "x".repeat(100));
    expect(name).toHaveLength(64);
    expect(name.startsWith("mcp__s__xxx")).toBe(true);
  });

  it("never repeat: names that sanitise alike, or are taken already, get a suffix", () => {
    const namer = new ToolNamer(["mcp__calc__add"]);
    expect(namer.name("calc", "add")).toBe("mcp__calc__add_2");
    expect(namer.name("calc", "a.b")).toBe("mcp__calc__a_b");
    expect(namer.name("calc", "a b")).toBe("mcp__calc__a_b_2");
    const long = new ToolNamer();
    const first = long.name("s", "y".repeat(100));
    const second = long.name("s", `${"y".repeat(100)}z`);
    expect(second).not.toBe(first);
    expect(second).toHaveLength(64);
    expect(second.endsWith("_2")).toBe(true);
  });
});
