import { Slots } from "../async/index.js";
import { type AgentDefinition, GENERAL_PURPOSE, GENERAL_PURPOSE_NAME, MODEL_ALIASES } from "../run/index.js";
import { AGENT_TOOL_NAME, agentTool, type SubagentCall } from "./agent-tool.js";
import { CostTracker, type Model } from "../model/index.js";
import type { SDKResultMessage } from "../protocol/index.js";
import { AGENT_OUTPUT_TOOL_NAME, agentOutputTool } from "./agent-output-tool.js";
import { type AnyTool, errorResult, ToolRegistry, type ToolContext, type ToolResult } from "../tools/index.js";
import { DoomLoopDetector, hookReports, newRunState, type RunContext, runLoop, type RunState } from "../loop/index.js";
import { backgroundAgentsOf } from "./background-agents.js";
import { withSubagentHandoffs } from "./handoffs.js";
import { openAgentMcp, type SubagentMcpSettings } from "./subagent-mcp.js";
import type { SubagentSessions } from "./subagent-session.js";
import { loadSkill, selectSkills, type Skill } from "../skills/index.js";
import { rebindToolSearch } from "../tool-search/index.js";

/** What every subagent of a run shares, from the run's options. */
export interface SubagentSettings {
  /** The agents the model may start: the built-in general-purpose one, then the caller's. */
  agents: ReadonlyMap<string, AgentDefinition>;
  /** Resolves a model string as the run resolves its own (keys, providers, pricing). */
  resolveModel: (spec: string) => Promise<Model>;
  /** Subagents running at once per run; more calls in one turn wait for a slot. */
  maxConcurrent: number;
  /** How deep subagents may nest: 1 lets the run start subagents that cannot start their own. */
  maxDepth: number;
  doomLoopThreshold: number;
  /** The run's MCP servers and what agents' own servers need; none: agents name no servers. */
  mcp?: SubagentMcpSettings;
  /** Where subagents keep their own sessions; none when the run keeps no session. */
  sessions?: SubagentSessions;
  /** The run's skills, for definitions that name some. */
  skills?: () => Promise<readonly Skill[]>;
}

/** A run (the top one or a subagent) that can start subagents. */
interface Parent {
  context: RunContext;
  state: RunState;
  /** 0 for the top run. */
  depth: number;
}

/** The agents of a run, built-in first; the caller's may replace `general-purpose`. */
export function runAgents(own: Record<string, AgentDefinition> | undefined): Map<string, AgentDefinition> {
  return new Map([[GENERAL_PURPOSE_NAME, GENERAL_PURPOSE], ...Object.entries(own ?? {})]);
}

/**
 * The `Agent` tool of a run. `parent` is read when the model calls it, so the tool can be
 * registered before the run's context and state exist.
 */
export function subagentTool(settings: SubagentSettings, parent: () => Parent): AnyTool {
  const slots = new Slots(settings.maxConcurrent);
  return agentTool(settings.agents, async (call, toolContext) => {
    const definition = settings.agents.get(call.subagentType);
    if (!definition) {
      return errorResult(
        `Error: There is no agent "${call.subagentType}". Available agents: ${[...settings.agents.keys()].join(", ")}.`,
      );
    }
    // A background agent waits for its slot in the background: its call returns at once either way.
    const run = async (runContext: ToolContext) => {
      await slots.take(runContext.signal);
      try {
        return await runSubagent(settings, parent(), definition, call, runContext);
      } finally {
        slots.give();
      }
    };
    const { context } = parent();
    const background = backgroundAgentsOf(context);
    if (call.runInBackground && background) return background.start(call, toolContext, context.signal, run);
    return run(toolContext);
  });
}

/** The `AgentOutput` tool of a run, over the background agents its `Agent` tool started. */
export function subagentOutputTool(parent: () => Parent): AnyTool {
  return agentOutputTool(async (request, toolContext) => {
    const { context } = parent();
    const background = backgroundAgentsOf(context);
    const { timers } = context;
    if (!background) return errorResult("Error: No background agent was started in this run.");
    return background.output(request, toolContext, timers);
  });
}

/**
 * Runs one subagent to its end: a fresh history holding only the prompt, the agent's system
 * prompt and tools, the parent's permissions, hooks and budget. Its messages reach the
 * caller tagged with the call's id; its usage and cost add to the parent's.
 */
async function runSubagent(
  settings: SubagentSettings,
  parent: Parent,
  definition: AgentDefinition,
  call: SubagentCall,
  toolContext: ToolContext,
): Promise<ToolResult> {
  let model: Model;
  try {
    model = await modelFor(settings, parent.state.model, call.model ?? definition.model);
  } catch (error) {
    return errorResult(`Error: The agent's model could not be used: ${(error as Error).message}`);
  }
  const depth = parent.depth + 1;
  const agent = { id: parent.context.newUuid(), type: call.subagentType };
  const { hooks } = parent.context;
  const prompt = [...(await preloadedSkills(settings, definition)), call.prompt];
  if (hooks?.has("SubagentStart")) {
    const outcome = await hooks.run(
      "SubagentStart",
      { agent_id: agent.id, agent_type: agent.type },
      { signal: toolContext.signal },
    );
    for (const message of hookReports(parent.context.stamp, outcome)) toolContext.emit({ type: "message", message });
    prompt.push(...outcome.additionalContext);
  }
  const tools = toolsFor(parent.context.registry, definition);
  const opened = await settings.sessions?.open(parent.context.stamp, {
    toolUseId: toolContext.toolUseId,
    description: call.description,
  });
  if (opened) toolContext.emit({ type: "message", message: opened.started });
  const childSession = opened?.session;
  // Its invoke_agent span is a child of the parent's execute_tool Agent span (a background
  // agent's, which outlives that call, of the parent's run, linked to the call).
  const tracing = parent.context.tracing?.startSubagent(
    { agentName: agent.type, agentId: agent.id, conversationId: childSession?.id ?? parent.context.session.id },
    toolContext.toolUseId,
    { background: call.runInBackground === true && backgroundAgentsOf(parent.context) !== undefined },
  );
  const base: RunContext = {
    ...parent.context,
    stamp: childSession?.stamp ?? parent.context.stamp,
    systemPrompt: subagentPrompt(definition, parent.context.systemPrompt),
    registry: rebindToolSearch(new ToolRegistry(tools)),
    signal: toolContext.signal,
    limits: { ...parent.context.limits, maxTurns: definition.maxTurns ?? parent.context.limits.maxTurns },
    stopAtTools: new Set(),
    loopControl: false,
    structuredOutput: false,
    // A subagent spends from the parent's budget: the sum of all stays within it.
    budgetCosts: parent.context.budgetCosts ?? parent.state.costs,
    agent,
    // Its own background agents (if it may start any) die with it; the parent's are not its to stop.
    background: depth < settings.maxDepth ? backgroundAgentsOf(parent.context)?.forSubagent() : undefined,
    ...(tracing && { tracing }),
  };
  const context = withSubagentHandoffs(base, definition, parent, settings.agents, settings.resolveModel, model);
  if (depth < settings.maxDepth) {
    context.registry.register(subagentTool(settings, () => child));
    context.registry.register(subagentOutputTool(() => child));
  }
  const content = prompt.map((text) => ({ type: "text" as const, text }));
  const state = newRunState(context, {
    model,
    permissions: parent.state.permissions.narrowedTo(definition.permissionMode),
    doomLoop: new DoomLoopDetector(settings.doomLoopThreshold),
    costs: new CostTracker({ parent: parent.state.costs }),
    history: [{ role: "user", content }],
    startedAt: context.now(),
  });
  // Denials show in the top run's result, whichever agent met them.
  state.denials = parent.state.denials;
  const child: Parent = { context, state, depth };
  const mcp = await openAgentMcp({
    settings: settings.mcp,
    definition,
    parentRegistry: parent.context.registry,
    parentIsTop: parent.depth === 0,
    registry: context.registry,
    cwd: context.cwd,
    signal: toolContext.signal,
    session: context.session,
  });
  if ("error" in mcp) {
    tracing?.end({ error: new Error(mcp.error) });
    return errorResult(mcp.error);
  }
  let result: SDKResultMessage | undefined;
  let failure: unknown;
  tracing?.setRequestModel(model.modelId);
  try {
    // Its session starts with the prompt (the caller's stream never carried it).
    await childSession?.record(childSession.stamp.user(content));
    for await (const message of runLoop(context, state)) {
      await childSession?.record(message);
      if (message.type === "result") result = message;
      else toolContext.emit({ type: "message", message: childSession ? childSession.forParent(message) : message });
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    // The agent's own servers end with it, also when it was aborted or failed.
    await mcp.close();
    tracing?.end({
      model: state.model.modelId,
      usage: state.costs.usage,
      costUsd: state.costs.totalCostUsd,
      numTurns: state.turns,
      terminalReason: state.exitReason,
      error: failure,
    });
  }
  return subagentResult(result, call, childSession?.id);
}

function subagentResult(result: SDKResultMessage | undefined, call: SubagentCall, sessionId?: string): ToolResult {
  const status =
    result?.subtype === "success"
      ? "completed"
      : result?.terminal_reason === "interrupted" || result?.terminal_reason === "aborted"
        ? "interrupted"
        : "error";
  const data = result && {
    agent: call.subagentType,
    status,
    ...(sessionId !== undefined && { session_id: sessionId }),
    num_turns: result.num_turns,
    total_cost_usd: result.total_cost_usd,
    usage: result.usage,
    terminal_reason: result.terminal_reason,
  };
  if (result?.subtype === "success") return { content: result.result || "(the agent gave no answer)", data };
  const errors = result && "errors" in result ? (result.errors ?? []) : [];
  const why = errors.length > 0 ? errors.join("; ") : "it ended early";
  return {
    content: `Error: The ${call.subagentType} agent stopped before finishing (${result?.terminal_reason ?? "unknown"}): ${why}`,
    isError: true,
    data,
  };
}

/**
 * The agent's prompt, then the parent's environment section (working directory, platform,
 * date) when the parent's prompt has one: a caller who wrote their own prompt without it
 * chose so for the subagents too.
 */
function subagentPrompt(definition: AgentDefinition, parentPrompt: string): string {
  const env = /<env>[\s\S]*?<\/env>/.exec(parentPrompt)?.[0];
  return env ? `${definition.prompt}\n\n${env}` : definition.prompt;
}

/**
 * The instructions of the skills a definition names, each as the Skill tool would return it,
 * ahead of the task; a name that matches no skill of the run is said so, not fatal.
 */
async function preloadedSkills(settings: SubagentSettings, definition: AgentDefinition): Promise<string[]> {
  if (!definition.skills || definition.skills.length === 0) return [];
  const all = (await settings.skills?.()) ?? [];
  const texts: string[] = [];
  for (const name of definition.skills) {
    const [skill] = selectSkills(all, [name]);
    if (!skill) texts.push(`(The skill "${name}" this agent names was not found.)`);
    else
      texts.push(
        await loadSkill(skill).catch((error: Error) => `(The skill "${name}" cannot be read: ${error.message})`),
      );
  }
  return texts;
}

/** `inherit` or nothing: the parent's current model; an alias or full string: resolved. */
async function modelFor(settings: SubagentSettings, current: Model, spec: string | undefined): Promise<Model> {
  if (spec === undefined || spec === "inherit") return current;
  const full = MODEL_ALIASES[spec] ?? spec;
  return full === current.id ? current : settings.resolveModel(full);
}

/**
 * The agent's tools: the parent's offered tools, narrowed to the definition's list, minus its
 * disallowed ones and the parent's `Agent` and `AgentOutput` tools. Never wider than the parent's: a tool the
 * parent lacks is not added by naming it.
 */
function toolsFor(parent: ToolRegistry, definition: AgentDefinition): AnyTool[] {
  const only = definition.tools && new Set(definition.tools);
  const without = new Set([...(definition.disallowedTools ?? []), AGENT_TOOL_NAME, AGENT_OUTPUT_TOOL_NAME]);
  return parent.offered().filter((tool) => (!only || only.has(tool.name)) && !without.has(tool.name));
}
