import type { McpServerConfig } from "./config.js";
import type { McpServers, McpServersOptions } from "./manager.js";

/**
 * Connects a run's MCP servers ({@link McpServers.connect}), loading the MCP SDK only now: a
 * run without servers, and `import("gyre")`, never pay for it.
 */
export async function connectMcpServers(
  servers: Record<string, McpServerConfig | Error>,
  options: McpServersOptions,
): Promise<McpServers> {
  const { McpServers } = await import("./manager.js");
  return McpServers.connect(servers, options);
}
