import { errorMessage, GyreError } from "../errors/index.js";
import { type AgentDefinition, MODEL_ALIASES } from "../run/index.js";
import { handoffTarget, handoffTool, handoffToolName, transferMessage } from "./handoff-tool.js";
import type { Model } from "../model/index.js";
import type { PermissionPolicy } from "../permissions/index.js";
import { AGENT_TOOL_NAME } from "./agent-tool.js";
import { type AnyTool, errorResult, ToolRegistry } from "../tools/index.js";
import { rebindToolSearch } from "../tool-search/index.js";
import {
  type AgentSwitchState,
  type HandoffState,
  type RunContext,
  type RunHandoffs,
  type RunState,
  type ToolBatch,
  type TurnHandoff,
  useModel,
} from "../loop/index.js";
import { planHandoff, takeHandoff } from "./handoff-step.js";

// Handoffs (the OpenAI Agents SDK's): an agent with `handoffs` gets a `transfer_to_<agent>`
// tool per target; calling it hands the rest of the run to that agent — its system prompt,
// tools, model and permission mode — with the history kept. The main thread runs as an agent
// the same way (the `agent` option). RunContext stays fixed per agent: the agent the run
// runs as, and its context, are run state (`state.activeAgent`).

/** Handoffs per prompt before the run stops as a doom loop (agents passing the run back and forth). */
export const DEFAULT_MAX_HANDOFFS = 10;

export interface HandoffsInit {
  agents: ReadonlyMap<string, AgentDefinition>;
  /** The run's own context, which every agent's context derives from (read when first needed). */
  base: () => RunContext;
  /** The tools an agent's `tools` narrows: the run's own (a subagent's: its parent's). */
  tools: () => AnyTool[];
  /** Tools every agent keeps whatever its list says: the run needs them to end (loop control, StructuredOutput). */
  kept: ReadonlySet<string>;
  /** What `model: "inherit"` means, and the permissions an agent's `permissionMode` narrows. */
  run: () => { model: Model; permissions: PermissionPolicy };
  resolveModel: (spec: string) => Promise<Model>;
  maxHandoffs: number;
}

/** The agents a run may run as or hand off to, and how to switch the run to one of them. */
export class Handoffs implements RunHandoffs {
  readonly #models = new Map<string, Promise<Model>>();

  constructor(readonly init: HandoffsInit) {}

  /** One `transfer_to_<target>` tool per name in the definition's `handoffs`. */
  transferTools(definition: AgentDefinition): AnyTool[] {
    return (definition.handoffs ?? []).map((target) =>
      handoffTool(target, this.#definition(target), async () => {
        try {
          await this.model(target);
        } catch (error) {
          return errorResult(
            `Error: The transfer to ${target} failed: its model cannot be used: ${errorMessage(error)}`,
          );
        }
        return { content: transferMessage(target), data: { handoff: target } };
      }),
    );
  }

  /**
   * The context of a run that runs as `name`: the agent's prompt (with the run's environment
   * section), the run's tools narrowed to the agent's list plus its transfer tools, and its
   * `maxTurns` counted from `turns` (the run's turns so far), within the run's own limit.
   */
  contextFor(name: string, turns: number): RunContext {
    const base = this.init.base();
    const definition = this.#definition(name);
    const only = definition.tools && new Set(definition.tools);
    const without = new Set(definition.disallowedTools ?? []);
    const listed = (tool: AnyTool) => [tool.name, ...(tool.aliases ?? [])].some((n) => only?.has(n));
    const tools = this.init
      .tools()
      .filter((tool) => this.init.kept.has(tool.name) || ((!only || listed(tool)) && !without.has(tool.name)));
    const { maxTurns } = base.limits;
    return {
      ...base,
      systemPrompt: agentPrompt(definition, base.systemPrompt),
      registry: rebindToolSearch(new ToolRegistry([...tools, ...this.transferTools(definition)])),
      limits: {
        ...base.limits,
        maxTurns: definition.maxTurns === undefined ? maxTurns : Math.min(maxTurns, turns + definition.maxTurns),
      },
    };
  }

  /** Makes `name` the agent the run goes on as: its context, model and narrowed permissions. */
  async switchTo(state: AgentSwitchState, name: string): Promise<void> {
    const model = await this.model(name);
    const context = this.contextFor(name, state.turns);
    state.activeAgent = { name, context };
    useModel(context, state, model);
    state.permissions = this.init.run().permissions.narrowedTo(this.#definition(name).permissionMode);
  }

  /** The turn's handoff: the first transfer call it makes, taken after the turn's tools ran. */
  plan(context: RunContext, state: HandoffState, batch: ToolBatch): TurnHandoff | undefined {
    const plan = planHandoff(context, state, batch);
    return (
      plan && {
        batch: plan.batch,
        take: (context, state, tools, next) => takeHandoff(context, state, plan, tools, next),
      }
    );
  }

  /** The agent's model: `inherit` (or none) is the run's own; resolved once per model. */
  model(name: string): Promise<Model> {
    const runModel = this.init.run().model;
    const spec = this.#definition(name).model;
    const full = spec === undefined || spec === "inherit" ? runModel.id : (MODEL_ALIASES[spec] ?? spec);
    if (full === runModel.id) return Promise.resolve(runModel);
    let model = this.#models.get(full);
    if (!model) {
      model = this.init.resolveModel(full);
      model.catch(() => {});
      this.#models.set(full, model);
    }
    return model;
  }

  #definition(name: string): AgentDefinition {
    const definition = this.init.agents.get(name);
    if (!definition) throw new GyreError("config_error", `There is no agent "${name}".`);
    return definition;
  }
}

/**
 * Checks the run's agents before it starts: every handoff names an agent of the run (and no
 * two of one agent's targets share a tool name), and so does the agent the main thread runs as.
 */
export function checkAgents(
  agents: ReadonlyMap<string, AgentDefinition>,
  agent: { name: string; from: "option" | "session" } | undefined,
): void {
  const known = () => [...agents.keys()].join(", ");
  for (const [name, definition] of agents) {
    const toolNames = new Map<string, string>();
    for (const target of definition.handoffs ?? []) {
      if (!agents.has(target)) {
        throw new GyreError(
          "config_error",
          `Agent "${name}" hands off to "${target}", which is not an agent of this run. Agents: ${known()}.`,
        );
      }
      const toolName = handoffToolName(target);
      const clash = toolNames.get(toolName);
      if (clash !== undefined && clash !== target) {
        throw new GyreError(
          "config_error",
          `Agent "${name}" hands off to "${clash}" and "${target}", which both make the tool ${toolName}.`,
        );
      }
      toolNames.set(toolName, target);
    }
  }
  if (agent === undefined || agents.has(agent.name)) return;
  const what =
    agent.from === "option"
      ? `agent: there is no agent "${agent.name}"`
      : `The session was handed to the agent "${agent.name}", which this run does not have`;
  throw new GyreError("config_error", `${what}. Agents: ${known()}.`);
}

/**
 * The context a subagent starts from when the run runs as an agent: the agent's tools without
 * its transfer tools (a subagent cannot hand its parent's run over).
 */
export function subagentParentContext(context: RunContext): RunContext {
  const tools = context.registry.offered();
  if (!tools.some((tool) => handoffTarget(tool) !== undefined)) return context;
  const registry = new ToolRegistry(tools.filter((tool) => handoffTarget(tool) === undefined));
  return { ...context, registry: rebindToolSearch(registry) };
}

/**
 * A subagent's context with its own handoffs: its transfer tools, and the agents it may hand
 * off to narrowed from its parent's tools. Without handoffs, the parent's are dropped.
 */
export function withSubagentHandoffs(
  context: RunContext,
  definition: AgentDefinition,
  parent: { context: RunContext; state: RunState },
  agents: ReadonlyMap<string, AgentDefinition>,
  resolveModel: (spec: string) => Promise<Model>,
  model: Model,
): RunContext {
  const { handoffs: _parentHandoffs, ...own } = context;
  // A nested subagent's tools come from a subagent that may hand off: its transfers are not this one's.
  for (const tool of own.registry.list()) if (handoffTarget(tool) !== undefined) own.registry.unregister(tool.name);
  if (!definition.handoffs?.length) return own;
  const permissions = parent.state.permissions.narrowedTo(definition.permissionMode);
  const handoffs: Handoffs = new Handoffs({
    agents,
    base: () => subagent,
    tools: () =>
      parent.context.registry
        .offered()
        .filter((tool) => tool.name !== AGENT_TOOL_NAME && handoffTarget(tool) === undefined),
    kept: new Set(),
    run: () => ({ model, permissions }),
    resolveModel,
    maxHandoffs: parent.context.handoffs?.init.maxHandoffs ?? DEFAULT_MAX_HANDOFFS,
  });
  const subagent: RunContext = { ...own, handoffs };
  for (const tool of handoffs.transferTools(definition)) subagent.registry.register(tool);
  return subagent;
}

/** The agent's prompt, then the run's environment section when its prompt has one (as subagents get it). */
function agentPrompt(definition: AgentDefinition, runPrompt: string): string {
  const env = /<env>[\s\S]*?<\/env>/.exec(runPrompt)?.[0];
  return env ? `${definition.prompt}\n\n${env}` : definition.prompt;
}
