import type { Tool as McpToolInfo } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ToolRegistry } from "../tools/index.js";
import { mcpCallLimits } from "./call-limits.js";
import type { LiveServer } from "./live-server.js";
import { ToolSync } from "./tool-sync.js";

/** What ToolSync reads of a server, settable by the test. */
function fakeServer(name: string, tools: string[]) {
  const server = {
    name,
    config: { command: "unused" },
    knownTools: tools.map(info),
    unavailable: false,
    callTool: async () => ({ content: [{ type: "text", text: "ok" }] }),
  };
  return server as typeof server & LiveServer;
}

function info(name: string): McpToolInfo {
  return { name, description: `Tool ${name}.`, inputSchema: { type: "object", properties: {} } };
}

describe("ToolSync", () => {
  it("registers a server's tools and re-registers nothing when nothing changed", () => {
    const registry = new ToolRegistry();
    const server = fakeServer("s", ["a", "b"]);
    const sync = new ToolSync(undefined, mcpCallLimits({}));
    sync.attach(registry, () => false, [server]);
    expect(registry.names()).toEqual(["mcp__s__a", "mcp__s__b"]);
    const revision = registry.revision;
    server.knownTools = ["a", "b"].map(info); // the same list again, as a list_changed may bring
    sync.update(server);
    expect(registry.revision).toBe(revision);
  });

  it("an unavailable server's tools are kept but not offered; a removed tool is unregistered", () => {
    const registry = new ToolRegistry();
    const server = fakeServer("s", ["a", "b"]);
    const sync = new ToolSync(undefined, mcpCallLimits({}));
    sync.attach(registry, () => false, [server]);
    server.unavailable = true;
    sync.update(server);
    expect(registry.names()).toEqual([]);
    expect(registry.get("mcp__s__a")?.enabled).toBe(false);
    server.unavailable = false;
    server.knownTools = [info("b")];
    sync.update(server);
    expect(registry.names()).toEqual(["mcp__s__b"]);
    expect(registry.get("mcp__s__a")).toBeUndefined();
  });

  it("hidden tools never get in; names stay the same when a tool comes back; taken names get a suffix", () => {
    const registry = new ToolRegistry();
    const server = fakeServer("s", ["a", "secret"]);
    const sync = new ToolSync(["mcp__s__a"], mcpCallLimits({}));
    sync.attach(registry, (name) => name === "mcp__s__secret", [server]);
    expect(registry.names()).toEqual(["mcp__s__a_2"]);
    server.knownTools = [];
    sync.update(server);
    server.knownTools = [info("a"), info("secret")];
    sync.update(server);
    expect(registry.names()).toEqual(["mcp__s__a_2"]);
  });
});
