import type { AnyTool, ToolRegistry } from "../tools/index.js";
import type { McpCallLimits } from "./call-limits.js";
import type { LiveServer } from "./live-server.js";
import { mcpTool } from "./mcp-tool.js";
import { ToolNamer } from "./tool-names.js";

/**
 * Keeps a run's tool registry in step with its MCP servers. A server's tools are registered
 * when it connects and replaced when its list changes; when the server is disabled or given
 * up they stay registered but not offered (`enabled: false`), so a call the model makes from
 * memory gets an error naming the server instead of "unknown tool". Nothing is re-registered
 * when nothing changed: the tool list sent to the model, and its prompt cache, stay the same.
 */
export class ToolSync {
  readonly #namer: ToolNamer;
  /** `server\0tool` → Gyre name: a server that reconnects gets back the same names. */
  readonly #names = new Map<string, string>();
  /** Per server: Gyre name → the tool's MCP listing and whether it was offered, to tell a change from a repeat. */
  readonly #registered = new Map<LiveServer, Map<string, string>>();
  #registry: ToolRegistry | undefined;
  #hidden: (toolName: string) => boolean = () => false;

  readonly #limits: McpCallLimits;

  constructor(takenNames: Iterable<string> | undefined, limits: McpCallLimits) {
    this.#namer = new ToolNamer(takenNames);
    this.#limits = limits;
  }

  attach(registry: ToolRegistry, hidden: (toolName: string) => boolean, servers: LiveServer[]): void {
    this.#registry = registry;
    this.#hidden = hidden;
    for (const server of servers) this.update(server);
  }

  /** Brings the registry in line with `server`'s tools and availability. */
  update(server: LiveServer): void {
    const registry = this.#registry;
    if (!registry) return;
    const previous = this.#registered.get(server) ?? new Map<string, string>();
    const next = new Map<string, string>();
    const enabled = !server.unavailable;
    for (const info of server.knownTools) {
      const name = this.#nameOf(server.name, info.name);
      if (this.#hidden(name)) continue;
      const key = JSON.stringify([info, enabled]);
      next.set(name, key);
      if (previous.get(name) === key) continue;
      registry.register(this.#tool(server, name, info, enabled));
    }
    for (const name of previous.keys()) if (!next.has(name)) registry.unregister(name);
    this.#registered.set(server, next);
  }

  #tool(server: LiveServer, name: string, info: LiveServer["knownTools"][number], enabled: boolean): AnyTool {
    const source = {
      server: server.name,
      call: server.callTool.bind(server),
      timeoutMs: server.timeoutMs,
      limits: this.#limits,
    };
    const tool = mcpTool(name, info, source) as AnyTool;
    return enabled ? tool : { ...tool, enabled: false };
  }

  #nameOf(server: string, tool: string): string {
    const key = `${server}\0${tool}`;
    let name = this.#names.get(key);
    if (name === undefined) {
      name = this.#namer.name(server, tool);
      this.#names.set(key, name);
    }
    return name;
  }
}
