import type { LanguageModelV3FunctionTool } from "@ai-sdk/provider";

/** The provider-options key under which a function tool carries its MCP origin (`{ server, tool }`). */
export const MCP_TOOL_OPTIONS = "gyreMcp";

/** The `server_name` of the run's own tools in a `<tool>` block. */
export const LOCAL_SERVER = "local";

/** An MCP tool's server and its name there. */
export interface McpToolOrigin {
  server: string;
  tool: string;
}

/** The MCP origin a function tool carries, if it is an MCP tool. */
export function mcpOrigin(tool: LanguageModelV3FunctionTool): McpToolOrigin | undefined {
  const origin = tool.providerOptions?.[MCP_TOOL_OPTIONS] as Partial<McpToolOrigin> | undefined;
  return typeof origin?.server === "string" && typeof origin.tool === "string"
    ? { server: origin.server, tool: origin.tool }
    : undefined;
}

/** Turns a block's `server_name` and `tool_name` into the name of the tool to call. */
export type ToolNameResolver = (server: string | undefined, name: string) => string;

/**
 * The resolver for one request's tools: without `server_name` (or with `"local"`) the name is
 * taken as written; with an MCP server's name, the server's own tool name (or the full
 * `mcp__…` name) maps to that tool. A pair that names no tool becomes
 * `mcp__<server>__<tool>`, which the loop answers as an unknown tool: it never falls back on
 * a local tool of the same name.
 */
export function toolNameResolver(tools: readonly LanguageModelV3FunctionTool[]): ToolNameResolver {
  const byOrigin = new Map<string, string>();
  for (const tool of tools) {
    const origin = mcpOrigin(tool);
    if (!origin) continue;
    byOrigin.set(key(origin.server, origin.tool), tool.name);
    byOrigin.set(key(origin.server, tool.name), tool.name);
  }
  return (server, name) => {
    if (server === undefined || server === LOCAL_SERVER) return name;
    return byOrigin.get(key(server, name)) ?? `mcp__${server}__${name}`;
  };
}

function key(server: string, tool: string): string {
  return JSON.stringify([server, tool]);
}
