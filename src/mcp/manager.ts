import { GyreError } from "../errors/index.js";
import type { ToolRegistry } from "../tools/index.js";
import { type McpCallLimits, mcpCallLimits } from "./call-limits.js";
import type { McpServerConfig, McpServerStatus } from "./config.js";
import type { ConnectOptions } from "./connect.js";
import { LiveServer } from "./live-server.js";
import { type ResourceServer, resourceTools } from "./resource-tools.js";
import { ToolSync } from "./tool-sync.js";

export interface McpServersOptions extends ConnectOptions {
  /** Names already taken (the run's other tools): an MCP tool never shadows one. */
  takenNames?: Iterable<string>;
  /** Output and time limits of calls (default: those of an empty environment). */
  limits?: McpCallLimits;
}

/**
 * The MCP servers of one run: connected together (in parallel) at its start, kept live while
 * it runs, closed together at its end. A server that cannot be connected leaves the others
 * alone: it is `failed` in {@link McpServers.statuses}, with the reason, and offers no tools.
 * Once {@link McpServers.attach}ed, the run's tool registry follows every server: its tools
 * arrive when it connects, change with `notifications/tools/list_changed`, and are withdrawn
 * when it is disabled or given up.
 */
export class McpServers {
  readonly #servers: Map<string, LiveServer>;
  readonly #ready: Promise<void>;
  readonly #sync: ToolSync;
  readonly #limits: McpCallLimits;

  private constructor(servers: Record<string, McpServerConfig | Error>, options: McpServersOptions) {
    this.#limits = options.limits ?? mcpCallLimits({});
    this.#sync = new ToolSync(options.takenNames, this.#limits);
    const live = Object.entries(servers).map(
      ([name, config]) => new LiveServer(name, config, { ...options, onChange: (server) => this.#sync.update(server) }),
    );
    this.#servers = new Map(live.map((server) => [server.name, server]));
    this.#ready = Promise.all(live.map((server) => server.connect())).then(() => {});
  }

  /**
   * Connects every server in parallel and waits until each is connected or failed; never
   * rejects. An `Error` in place of a config (a config file's server that could not be
   * resolved) is a server that failed with it.
   */
  static async connect(
    servers: Record<string, McpServerConfig | Error>,
    options: McpServersOptions,
  ): Promise<McpServers> {
    const mcp = new McpServers(servers, options);
    await mcp.#ready;
    return mcp;
  }

  /** Every server's status, in the order given. */
  statuses(): McpServerStatus[] {
    return [...this.#servers.values()].map((server) => server.status());
  }

  /**
   * Puts the servers' tools into `registry` now and keeps it up to date; `hidden` tools
   * (`disallowedTools` rules) never get in, whenever they arrive.
   */
  attach(registry: ToolRegistry, hidden: (toolName: string) => boolean): void {
    const servers = [...this.#servers.values()];
    this.#sync.attach(registry, hidden, servers);
    // ListMcpResources / ReadMcpResource when a server connected at the start offers resources;
    // they read the servers connected at the time of each call.
    const connected = (): ResourceServer[] =>
      servers.flatMap((server) => (server.client ? [{ server: server.name, client: server.client }] : []));
    if (connected().some(({ client }) => client.getServerCapabilities()?.resources)) {
      for (const tool of resourceTools(connected, this.#limits)) if (!hidden(tool.name)) registry.register(tool);
    }
  }

  /** Closes the server's connection and connects again; rejects when that failed. */
  async reconnect(name: string): Promise<void> {
    await this.#server(name).reconnect();
  }

  /** Turns a server off (its tools are withdrawn and its connection closed) or on again. */
  async toggle(name: string, enabled: boolean): Promise<void> {
    await this.#server(name).setEnabled(enabled);
  }

  /** Closes every connection (ending stdio servers' processes); safe to call twice. */
  async close(): Promise<void> {
    await Promise.all([...this.#servers.values()].map((server) => server.close()));
  }

  #server(name: string): LiveServer {
    const server = this.#servers.get(name);
    if (server) return server;
    const known = [...this.#servers.keys()].join(", ") || "(none)";
    throw new GyreError("config_error", `Unknown MCP server "${name}". This run's servers: ${known}.`);
  }
}
