import type { AuthorizeMcpServerOptions, AuthorizeMcpServerResult } from "./authorize.js";
import type { McpHttpServerConfig, McpServerConfig, McpSSEServerConfig } from "./config.js";
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

/** {@link authorizeMcpServer} of `./authorize.js`, loading the MCP SDK only when called. */
export async function authorizeMcpServer(
  name: string,
  config: McpHttpServerConfig | McpSSEServerConfig,
  options: AuthorizeMcpServerOptions,
): Promise<AuthorizeMcpServerResult> {
  return (await import("./authorize.js")).authorizeMcpServer(name, config, options);
}
