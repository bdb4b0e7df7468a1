import { homedir } from "node:os";
import { activeContext, RunChannel } from "../loop/index.js";
import { mcpCallLimits } from "../mcp/index.js";
import type { AgentDefinition, AgentWiring, AgentWiringInput, QueryOptions } from "../run/index.js";
import { findTrustedFolder, type IgnoredProjectSettings, realOrResolved } from "../settings/index.js";
import type { Plugin } from "../plugins/index.js";
import { type AgentFile, loadAgentFiles, loadPluginAgentFiles, projectAgentFiles } from "./agent-files.js";
import { BackgroundAgents } from "./background-agents.js";
import { checkAgents, DEFAULT_MAX_HANDOFFS, Handoffs, subagentParentContext } from "./handoffs.js";
import { SubagentSessions } from "./subagent-session.js";
import { runAgents, type SubagentSettings, subagentOutputTool, subagentTool } from "./subagents.js";

/**
 * The agents of a run: the Agent and AgentOutput tools (when the run has the Agent tool), the
 * handoffs between its agents, and its background agents. The definitions (agent files and
 * the `agents` option) are read only when the run can use them.
 */
export async function wireAgents(input: AgentWiringInput): Promise<AgentWiring> {
  const { options, startAs, run } = input;
  const agentTool = wantsAgentTool(options);
  if (!agentTool && startAs === undefined) return { tools: [] };
  const { agents, fromFiles, ignored } = await runAgentDefinitions(options, input.cwd, await input.plugins());
  checkAgents(agents, startAs);
  const handoffs = new Handoffs({
    agents,
    base: () => run.context,
    tools: () => run.context.registry.offered(),
    kept: input.kept,
    run: () => run.own,
    resolveModel: input.resolveRunModel,
    maxHandoffs: options.maxHandoffs ?? DEFAULT_MAX_HANDOFFS,
  });
  if (!agentTool) return { tools: [], handoffs, ...(ignored && { ignored }) };
  const settings = subagentSettings(input, agents, fromFiles);
  // A subagent's parent is the agent the run runs as at the time of the call.
  const parent = () => ({
    context: subagentParentContext(activeContext(run.context, run.state)),
    state: run.state,
    depth: 0,
  });
  return {
    tools: [subagentTool(settings, parent), subagentOutputTool(parent)],
    handoffs,
    background: new BackgroundAgents(new RunChannel()),
    agentNames: [...agents.keys()],
    ...(ignored && { ignored }),
  };
}

/**
 * The Agent tool is there when the run has all default tools, or names it (`Agent`, or its
 * older name `Task`) in `tools`, and neither `maxSubagentDepth: 0` nor `disallowedTools` takes it away.
 */
function wantsAgentTool(options: QueryOptions): boolean {
  if (options.maxSubagentDepth === 0) return false;
  if (options.disallowedTools?.some((rule) => rule === "Agent" || rule === "Task")) return false;
  return options.tools === undefined || options.tools.some((tool) => tool === "Agent" || tool === "Task");
}

function subagentSettings(
  input: AgentWiringInput,
  agents: Map<string, AgentDefinition>,
  fromFiles: Set<AgentDefinition>,
): SubagentSettings {
  const { options } = input;
  const env = { ...process.env, ...options.env };
  const children = input.childSessions;
  return {
    agents,
    resolveModel: input.resolveModel,
    skills: input.skills,
    maxConcurrent: options.maxConcurrentSubagents ?? 4,
    maxDepth: options.maxSubagentDepth ?? 1,
    doomLoopThreshold: options.doomLoopThreshold ?? 3,
    mcp: {
      runServers: input.mcpServers,
      env,
      limits: mcpCallLimits(env),
      onElicitation: options.onElicitation,
      fromFiles,
    },
    ...(children && { sessions: new SubagentSessions(children, input.newUuid) }),
  };
}

/**
 * The run's agents: the built-in one, then agent files by `settingSources` (a project's only
 * in a trusted folder when `requireProjectTrust` is on; else listed in `ignored`, as its
 * settings are), then the `agents` option.
 */
async function runAgentDefinitions(
  options: QueryOptions,
  cwd: string,
  plugins: readonly Plugin[],
): Promise<{
  agents: Map<string, AgentDefinition>;
  fromFiles: Set<AgentDefinition>;
  ignored?: IgnoredProjectSettings;
}> {
  const scopes = [...(options.settingSources ?? [])];
  let ignored: IgnoredProjectSettings | undefined;
  if (options.requireProjectTrust === true && scopes.includes("project") && !(await findTrustedFolder(cwd))) {
    scopes.splice(0, scopes.length, ...scopes.filter((scope) => scope === "user"));
    const files = await projectAgentFiles(cwd, homedir());
    if (files.length > 0)
      ignored = { folder: await realOrResolved(cwd), files: files.map((file) => ({ path: file, ignored: ["agent"] })) };
  }
  const files: Map<string, AgentFile> = new Map([
    ...(await loadPluginAgentFiles(plugins)),
    ...(scopes.length > 0 ? await loadAgentFiles({ cwd, home: homedir(), scopes }) : new Map<string, AgentFile>()),
  ]);
  const fromFiles = Object.fromEntries([...files].map(([name, file]) => [name, file.definition]));
  // Which definitions came from files: their MCP servers expand `${VAR}` as config files' do.
  return {
    agents: runAgents({ ...fromFiles, ...options.agents }),
    fromFiles: new Set(Object.values(fromFiles)),
    ...(ignored && { ignored }),
  };
}
