import { GyreError } from "../errors/index.js";
import type { McpServers, McpServerStatus } from "../mcp/index.js";

/**
 * The bridge from `Query.mcpServerStatus` / `reconnectMcpServer` / `toggleMcpServer` to the
 * run's live MCP servers. Asked before the run is set up, they wait until it is (the servers
 * have connected or failed by then); a run that ended before that has no servers.
 */
export class McpControls {
  readonly #servers: Promise<McpServers | undefined>;
  #settle: (servers: McpServers | undefined) => void = () => {};

  constructor() {
    this.#servers = new Promise((resolve) => (this.#settle = resolve));
  }

  /** The run is set up; `servers` is undefined when it has none. Later calls are ignored. */
  attach(servers: McpServers | undefined): void {
    this.#settle(servers);
  }

  async status(): Promise<McpServerStatus[]> {
    return (await this.#servers)?.statuses() ?? [];
  }

  async reconnect(name: string): Promise<void> {
    await (await this.#required(name)).reconnect(name);
  }

  async toggle(name: string, enabled: boolean): Promise<void> {
    await (await this.#required(name)).toggle(name, enabled);
  }

  async #required(name: string): Promise<McpServers> {
    const servers = await this.#servers;
    if (!servers) throw new GyreError("config_error", `Unknown MCP server "${name}": this run has no MCP servers.`);
    return servers;
  }
}
