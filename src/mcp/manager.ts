import { errorMessage } from "../errors/index.js";
import type { AnyTool } from "../tools/index.js";
import type { McpServerConfig, McpServerStatus } from "./config.js";
import { type ConnectOptions, connectServer, type McpConnection } from "./connect.js";
import { mcpTool } from "./mcp-tool.js";
import { ToolNamer } from "./tool-names.js";

export interface McpServersOptions extends ConnectOptions {
  /** Names already taken (the run's other tools): an MCP tool never shadows one. */
  takenNames?: Iterable<string>;
}

/**
 * The MCP servers of one run: connected together at its start, closed together at its end.
 * A server that cannot be connected leaves the others alone: it is `failed` in
 * {@link McpServers.statuses}, with the reason, and offers no tools.
 */
export class McpServers {
  readonly statuses: McpServerStatus[];
  readonly tools: AnyTool[];
  readonly #connections: McpConnection[];

  private constructor(statuses: McpServerStatus[], tools: AnyTool[], connections: McpConnection[]) {
    this.statuses = statuses;
    this.tools = tools;
    this.#connections = connections;
  }

  /**
   * Connects every server in parallel; never rejects (a failure is a `failed` status). An
   * `Error` in place of a config (a config file's server that could not be resolved) is a
   * server that failed with it.
   */
  static async connect(
    servers: Record<string, McpServerConfig | Error>,
    options: McpServersOptions,
  ): Promise<McpServers> {
    const entries = Object.entries(servers);
    const outcomes = await Promise.allSettled(
      entries.map(([name, config]) =>
        config instanceof Error ? Promise.reject(config) : connectServer(name, config, options),
      ),
    );
    const namer = new ToolNamer(options.takenNames);
    const statuses: McpServerStatus[] = [];
    const tools: AnyTool[] = [];
    const connections: McpConnection[] = [];
    outcomes.forEach((outcome, index) => {
      const [server, config] = entries[index] as [string, McpServerConfig];
      if (outcome.status === "rejected") {
        statuses.push({ name: server, status: "failed", error: errorMessage(outcome.reason) });
        return;
      }
      const connection = outcome.value;
      connections.push(connection);
      const info = connection.client.getServerVersion();
      statuses.push({
        name: server,
        status: "connected",
        ...(info && { serverInfo: { name: info.name, version: info.version } }),
      });
      const source = { server, client: connection.client, timeoutMs: config.timeout };
      for (const tool of connection.tools) tools.push(mcpTool(namer.name(server, tool.name), tool, source));
    });
    return new McpServers(statuses, tools, connections);
  }

  /** Closes every connection (ending stdio servers' processes); safe to call twice. */
  async close(): Promise<void> {
    const connections = this.#connections.splice(0);
    await Promise.all(connections.map((connection) => connection.close()));
  }
}
