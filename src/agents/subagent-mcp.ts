import {
  connectMcpServers,
  type McpCallLimits,
  type McpFileServerConfig,
  type McpServerConfig,
  type McpServers,
  type OnElicitation,
  resolveServerEntry,
} from "../mcp/index.js";
import { ruleAppliesTo } from "../permissions/index.js";
import type { AgentDefinition } from "../run/index.js";
import type { ToolRegistry, ToolSession } from "../tools/index.js";

/** What a run gives its subagents to reach MCP servers, from the run's options. */
export interface SubagentMcpSettings {
  /** The run's own servers (the `mcpServers` option's and the config files'), once connected. */
  runServers: () => Promise<McpServers | undefined>;
  /** The run's environment: what `${VAR}` in an agent file's servers expands from. */
  env: Readonly<Record<string, string | undefined>>;
  limits: McpCallLimits;
  onElicitation?: OnElicitation;
  /** The definitions read from agent files: their servers expand `${VAR}` as a config file's do. */
  fromFiles: ReadonlySet<AgentDefinition>;
}

/** The MCP servers one subagent runs with; {@link AgentMcp.close} ends those started for it. */
export interface AgentMcp {
  close(): Promise<void>;
}

export interface AgentMcpInput {
  settings: SubagentMcpSettings | undefined;
  definition: AgentDefinition;
  /** The parent's registry: a named parent server's tools are taken from it, never wider. */
  parentRegistry: ToolRegistry;
  /** The top run's parent may also name its servers that offer no tool (failed, or toolless). */
  parentIsTop: boolean;
  /** The agent's registry, which gets the servers' tools. */
  registry: ToolRegistry;
  cwd: string;
  signal: AbortSignal;
  /** The run's session: an agent abandoned by an abort still has its servers closed when the run ends. */
  session: ToolSession;
}

const NOTHING_TO_CLOSE: AgentMcp = { close: async () => {} };

/**
 * Puts the agent's `mcpServers` into its registry: a parent's server by name (its tools as
 * the parent has them, whatever `tools` says), and the agent's own servers, connected in
 * parallel. A name the parent lacks, or an own server that cannot be connected, fails the
 * start: the error names what went wrong, and nothing started is left running. The agent's
 * `disallowedTools` hide these tools too. Every call still passes the parent's permissions.
 */
export async function openAgentMcp(input: AgentMcpInput): Promise<AgentMcp | { error: string }> {
  const specs = input.definition.mcpServers ?? [];
  if (specs.length === 0) return NOTHING_TO_CLOSE;
  const hidden = hiddenBy(input.definition.disallowedTools ?? []);
  const named = specs.filter((spec) => typeof spec === "string");
  if (named.length > 0) {
    const known = await parentServerNames(input);
    const unknown = named.filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      const list = known.length > 0 ? known.join(", ") : "(none)";
      return {
        error: `Error: The agent names MCP servers its parent does not have: ${unknown.join(", ")}. The parent's MCP servers: ${list}.`,
      };
    }
    for (const tool of input.parentRegistry.offered())
      if (tool.mcp && named.includes(tool.mcp.server) && !hidden(tool.name)) input.registry.register(tool);
  }
  const own = ownServers(input);
  if (Object.keys(own).length === 0) return NOTHING_TO_CLOSE;
  const servers = await connectMcpServers(own, {
    cwd: input.cwd,
    signal: input.signal,
    takenNames: input.registry.list().map((tool) => tool.name),
    ...(input.settings && { limits: input.settings.limits }),
    ...(input.settings?.onElicitation && { onElicitation: input.settings.onElicitation }),
  });
  const failed = servers.statuses().filter((status) => status.status !== "connected");
  // Aborted while connecting: the run may be over already, and nobody would close them later.
  if (failed.length > 0 || input.signal.aborted) {
    await servers.close();
    const why = failed.map((status) => `"${status.name}" (${status.status}): ${status.error ?? "not connected"}`);
    return { error: `Error: The agent's MCP servers could not be started: ${why.join("; ") || "interrupted"}` };
  }
  servers.attach(input.registry, hidden);
  // An abort abandons the Agent call without waiting for the agent to wind down: the run's end closes them then.
  const open = openServers(input.session);
  let closing: Promise<void> | undefined;
  // One close, awaited by whoever asks: the agent's end, and the run's end if the agent was abandoned.
  const mcp: AgentMcp = { close: () => (closing ??= servers.close().finally(() => open.delete(mcp))) };
  open.add(mcp);
  return mcp;
}

const OPEN_SERVERS = Symbol("subagents' own MCP servers");

/** The agents' own servers still open in a session, closed all together when it is disposed. */
function openServers(session: ToolSession): Set<AgentMcp> {
  return session.get(OPEN_SERVERS, () => {
    const open = new Set<AgentMcp>();
    session.onDispose(async () => {
      await Promise.all([...open].map((mcp) => mcp.close()));
    });
    return open;
  });
}

/** The servers the parent has: those its tools come from and, for the top run, all of the run's. */
async function parentServerNames(input: AgentMcpInput): Promise<string[]> {
  const names = new Set<string>();
  if (input.parentIsTop) {
    const run = await input.settings?.runServers();
    for (const status of run?.statuses() ?? []) names.add(status.name);
  }
  for (const tool of input.parentRegistry.offered()) if (tool.mcp) names.add(tool.mcp.server);
  return [...names];
}

/**
 * The agent's own servers, later records winning on a name. An agent file's entries have their
 * `${VAR}`s expanded as a config file's; one that cannot be is given as the error it fails with.
 */
function ownServers(input: AgentMcpInput): Record<string, McpServerConfig | Error> {
  const servers: Record<string, McpServerConfig | Error> = {};
  const { settings, definition } = input;
  const expand = settings?.fromFiles.has(definition) === true;
  for (const spec of definition.mcpServers ?? []) {
    if (typeof spec === "string") continue;
    for (const [name, config] of Object.entries(spec)) {
      servers[name] =
        expand && settings && config.type !== "sdk"
          ? resolveServerEntry(config as McpFileServerConfig, settings.env, `MCP server "${name}" of the agent`)
          : config;
    }
  }
  return servers;
}

/** Whole-tool rules of `disallowedTools` (`mcp__server` covers every tool of that server). */
function hiddenBy(rules: readonly string[]): (toolName: string) => boolean {
  const whole = rules.filter((rule) => !rule.includes("("));
  return (toolName) => whole.some((rule) => ruleAppliesTo(rule, toolName));
}
