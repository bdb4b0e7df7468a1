import { connectMcpServers, type McpServerConfig, mcpCallLimits } from "../../mcp/index.js";
import { type AnyTool, ToolRegistry } from "../../tools/index.js";
import type { CallKind } from "../call-kinds.js";
import type { McpHostGuard } from "./host-guard.js";
import { pinnedFetch } from "./pinned-fetch.js";
import type { McpTool } from "../request-schema.js";
import type { OutputItem } from "../response-object.js";

type Listing = Extract<OutputItem, { type: "mcp_list_tools" }>;

/** The request's MCP servers, connected for one response: their tools, kinds and listings. */
export interface ResponseMcp {
  tools: AnyTool[];
  kinds: Map<string, CallKind>;
  listings: Array<{ serverLabel: string; tools: Listing["tools"]; error?: string }>;
  close(): Promise<void>;
}

/**
 * Connects the request's `mcp` tools (streamable HTTP) through `src/mcp` and lists their
 * tools. Only `allowed_tools` reach the model; a tool that `require_approval` covers is marked
 * as changing the world, so the permission check asks for it and the server defers the call
 * until the client approves. A server that cannot be reached is listed with its error. Every
 * connection goes through `hosts`: to the address it checked, never elsewhere (pinned-fetch.ts).
 */
export async function connectRequestMcp(
  servers: readonly McpTool[],
  cwd: string,
  signal: AbortSignal,
  hosts: McpHostGuard,
): Promise<ResponseMcp> {
  if (servers.length === 0) return { tools: [], kinds: new Map(), listings: [], close: async () => {} };
  const pinned = pinnedFetch(hosts);
  const configs: Record<string, McpServerConfig> = {};
  for (const server of servers)
    configs[server.server_label] = {
      type: "http",
      url: server.server_url,
      fetch: pinned.fetch,
      // The client's own headers only: the operator's tokens (gyre mcp auth) are not the client's to use.
      authProvider: false,
      ...(server.headers && { headers: server.headers }),
    };
  const mcp = await connectMcpServers(configs, { cwd, signal, limits: mcpCallLimits({}) });
  const registry = new ToolRegistry();
  mcp.attach(registry, () => false);
  const tools: AnyTool[] = [];
  const kinds = new Map<string, CallKind>();
  const listings: ResponseMcp["listings"] = [];
  const statuses = new Map(mcp.statuses().map((status) => [status.name, status]));
  for (const server of servers) {
    const label = server.server_label;
    const status = statuses.get(label);
    const offered = registry
      .list()
      .filter(
        (tool) => tool.mcp?.server === label && tool.name.startsWith("mcp__") && isAllowed(server, tool.mcp.tool),
      );
    if (status && status.status !== "connected") {
      listings.push({ serverLabel: label, tools: [], error: status.error ?? `The MCP server is ${status.status}.` });
      continue;
    }
    listings.push({
      serverLabel: label,
      tools: offered.map((tool) => ({
        name: tool.mcp!.tool,
        description: tool.description || null,
        input_schema: tool.jsonSchema ?? {},
        annotations: null,
      })),
    });
    for (const tool of offered) {
      const approval = needsApproval(server, tool.mcp!.tool);
      kinds.set(tool.name, { kind: "mcp", serverLabel: label, tool: tool.mcp!.tool, approval });
      tools.push(approval ? { ...tool, sideEffect: "mutating" } : tool);
    }
  }
  return { tools, kinds, listings, close: () => mcp.close().finally(() => pinned.close()) };
}

function isAllowed(server: McpTool, tool: string): boolean {
  const allowed = server.allowed_tools;
  if (!allowed) return true;
  const names = Array.isArray(allowed) ? allowed : allowed.tool_names;
  return !names || names.includes(tool);
}

/** OpenAI's default: every call needs approval unless `require_approval` says otherwise. */
function needsApproval(server: McpTool, tool: string): boolean {
  const rule = server.require_approval ?? "always";
  if (rule === "always") return true;
  if (rule === "never") return false;
  if (rule.never?.tool_names?.includes(tool)) return false;
  if (rule.always?.tool_names?.includes(tool)) return true;
  return true;
}
