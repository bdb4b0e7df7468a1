import { isGyreError } from "../../errors/index.js";
import { RequestError } from "../errors.js";
import type { McpHostGuard } from "./host-guard.js";
import type { McpTool, RequestTool } from "../request-schema.js";

/**
 * Refuses, as a 400 on `tools[i].server_url`, an `mcp` tool whose server the server must not
 * connect to for a client (see {@link McpHostGuard}); the addresses checked are the ones the
 * response's connections are held to.
 */
export async function checkMcpUrls(tools: readonly RequestTool[], hosts: McpHostGuard): Promise<void> {
  for (const [index, tool] of tools.entries()) {
    if (!isMcp(tool)) continue;
    const param = `tools[${index}].server_url`;
    try {
      await hosts.addressOf(new URL(tool.server_url));
    } catch (error) {
      if (!isGyreError(error)) throw error;
      const message =
        error.code === "mcp_url_refused"
          ? `server_url ${new URL(tool.server_url).host} is an address this server may not reach for a client ` +
            "(this machine's own, or its internal network); the operator may allow it with mcpAllowedHosts."
          : error.message;
      throw new RequestError(400, message, "invalid_value", param, error);
    }
  }
}

function isMcp(tool: RequestTool): tool is McpTool {
  return tool.type === "mcp";
}
