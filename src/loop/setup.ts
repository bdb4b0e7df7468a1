import { homedir } from "node:os";
import { systemTimers } from "../async/index.js";
import { Compactor, mergeProviderOptions, SystemPromptBuilder } from "../context/index.js";
import { GyreError } from "../errors/index.js";
import type { HookRunner } from "../hooks/index.js";
import {
  mcpCallLimits,
  type McpServers,
  type McpServerStatus,
  type RunMcpServers,
  startRunMcpServers,
} from "../mcp/index.js";
import {
  CostTracker,
  type JsonObject,
  type Model,
  type ProviderOptions,
  providerKeyEnvNames,
  resolveModel,
} from "../model/index.js";
import { loadShellParser, PermissionPolicy, ruleAppliesTo } from "../permissions/index.js";
import type { PermissionMode } from "../protocol/index.js";
import {
  findTrustedFolder,
  type IgnoredProjectSettings,
  type LoadedSettings,
  loadSettings,
  mergeIgnoredSettings,
  mergeSettings,
} from "../settings/index.js";
import { type AgentDefinition, type AgentFile, loadAgentFiles } from "../subagents/index.js";
import {
  type CommandSandbox,
  defaultTools,
  passedVariables,
  type SandboxViolation,
  loopControlTools,
  structuredOutputTool,
} from "../tools/builtin/index.js";
import { type AnyTool, ToolRegistry, type ToolSession } from "../tools/index.js";
import { DoomLoopDetector } from "./doom-loop.js";
import { activeContext, checkAgents, DEFAULT_MAX_HANDOFFS, Handoffs, subagentParentContext } from "./handoffs.js";
import type { MessageStamp } from "./messages.js";
import type { QueryOptions } from "./options.js";
import type { Persistence } from "./persistence.js";
import { DEFAULT_RETRY } from "./retry.js";
import type { RunContext } from "./run-context.js";
import { newRunState, type RunState, useModel } from "./run-state.js";
import type { OsSandbox } from "../sandbox/index.js";
import { BackgroundAgents } from "./background-agents.js";
import { RunChannel } from "./run-channel.js";
import { startRunSandbox } from "./sandbox-setup.js";
import { runAgents, type SubagentSettings, subagentOutputTool, subagentTool } from "./subagents.js";
import { ToolGate } from "./tool-gate.js";

export const DEFAULT_MODEL = "anthropic/claude-sonnet-4-5";

export interface RunSetup {
  context: RunContext;
  state: RunState;
  /** The mode the run starts in. */
  permissionMode: PermissionMode;
  /** Resolves `spec` (default: the run's own model) and uses it from the next model call on. */
  switchModel: (spec: string | undefined) => Promise<void>;
  /** What an untrusted folder's settings files asked for that did not apply (see `requireProjectTrust`). */
  ignoredSettings?: IgnoredProjectSettings;
  /** The run's MCP servers (`mcpServers`), connected or failed, in the order given. */
  mcpServers: McpServerStatus[];
  /** The live servers, for `Query`'s MCP controls (none when the run has no `mcpServers`). */
  mcp: McpServers | undefined;
  /** What the sandbox found and set aside when it closed, filled in when the session is disposed. */
  sandboxClosing: SandboxViolation[];
}

export interface SetupInput {
  options: QueryOptions;
  cwd: string;
  sessionId: string;
  persistence: Persistence;
  session: ToolSession;
  stamp: MessageStamp;
  signal: AbortSignal;
  /** The clock for durations (`Date.now` unless injected). */
  now: () => number;
  /** When the run started, by that clock. */
  startedAt: number;
  /** New ids (`crypto.randomUUID` unless injected). */
  newUuid: () => string;
  /** The model, when the caller started resolving it early ({@link startModel}). */
  model?: Promise<Model>;
}

/**
 * Starts resolving the run's model (importing its provider package) so that the import
 * can overlap other start-up work; {@link setupRun} awaits it. A failure surfaces only
 * where setupRun awaits it, so errors keep their order.
 */
export function startModel(options: QueryOptions): Promise<Model> {
  return quiet(resolveModel(modelSpec(options), resolveOptions(options)));
}

/**
 * Resolve everything a run needs from its options, before the first turn: the model (a
 * missing key fails here), settings, tools, permissions, hooks, system prompt, compaction.
 */
export async function setupRun(input: SetupInput): Promise<RunSetup> {
  const { options, cwd, sessionId, persistence, session, stamp, signal } = input;
  // Started together, awaited in order: the model's provider import, the settings files
  // and the system prompt's file reads overlap, and the first failure is still the model's.
  const pendingModel = input.model ?? startModel(options);
  const pendingFallback =
    options.fallbackModel === undefined
      ? undefined
      : quiet(resolveModel(options.fallbackModel, resolveOptions(options)));
  const pendingSettings = quiet(readSettings(cwd, options));
  const pendingPrompt = quiet(
    new SystemPromptBuilder({ cwd }).build(options.systemPrompt ?? { type: "preset", preset: "gyre" }),
  );
  // Started once the settings are read; stdio MCP servers with `sandbox: true` wait for it.
  const pendingSandbox = quiet(pendingSettings.then((settings) => startRunSandbox(options, settings, cwd)));
  // Registered before the MCP servers' and every command's cleanup, so it runs after them: its
  // last gitlink check sees what a background command or a server did after the last tool call.
  const sandboxClosing: SandboxViolation[] = [];
  session.onDispose(async () => {
    sandboxClosing.push(...((await (await pendingSandbox.catch(() => undefined))?.close()) ?? []));
  });
  const pendingMcp = quiet(connectMcp(options, cwd, signal, pendingSettings, pendingSandbox));
  const pendingAgents = quiet(runAgentDefinitions(options, cwd));
  // Registered at once, so the servers close when the run ends even if setup fails further on.
  session.onDispose(async () => (await pendingMcp.catch(() => undefined))?.servers?.close());
  const model = await pendingModel;
  const fallbackModel = await pendingFallback;
  for (const candidate of [model, fallbackModel]) if (candidate) assertBudgetPriced(options, candidate);
  const settings = await pendingSettings;
  const sandbox = await pendingSandbox;
  const disallowed = options.disallowedTools ?? [];
  const tools = resolveTools(options, cwd, sandbox).map((tool) => persistence.withCheckpoints(tool));
  // The Agent tool reads the run's context and state when called: they exist by then.
  const top = {} as { context: RunContext; state: RunState };
  // The agent the main thread runs as: a resumed session's last handoff, else the option.
  const agentName = persistence.agent ?? options.agent;
  const loaded = wantsAgentTool(options) || agentName !== undefined ? await pendingAgents : undefined;
  const agents = loaded?.agents;
  if (agents) {
    const from = persistence.agent !== undefined ? "session" : "option";
    checkAgents(agents, agentName === undefined ? undefined : { name: agentName, from });
  }
  if (loaded && agents && wantsAgentTool(options)) {
    const { fromFiles } = loaded;
    const env = { ...process.env, ...options.env };
    const subagents: SubagentSettings = {
      agents,
      resolveModel: (spec) => resolveModel(spec, resolveOptions(options)),
      maxConcurrent: options.maxConcurrentSubagents ?? 4,
      maxDepth: options.maxSubagentDepth ?? 1,
      doomLoopThreshold: options.doomLoopThreshold ?? 3,
      mcp: {
        runServers: () => pendingMcp.then(({ servers }) => servers),
        env,
        limits: mcpCallLimits(env),
        onElicitation: options.onElicitation,
        fromFiles,
      },
    };
    const sessions = persistence.subagentSessions(cwd, input.newUuid);
    if (sessions) subagents.sessions = sessions;
    // A subagent's parent is the agent the run runs as at the time of the call.
    const parent = () => ({ context: subagentParentContext(activeContext(top.context, top.state)), state: top.state });
    tools.push(subagentTool(subagents, () => ({ ...parent(), depth: 0 })));
    tools.push(subagentOutputTool(() => ({ ...parent(), depth: 0 })));
  }
  // Bash permissions need the shell parser, compiled once per process: started here, its
  // compiling overlaps the run's start (README, Benchmarks, says what that saves).
  if (tools.some((tool) => tool.name === "Bash")) void loadShellParser();
  // Tools the run needs to end as asked: every agent it runs as keeps them.
  const endingTools = [
    ...(options.loopControlTools === true ? loopControlTools() : []),
    ...(Array.isArray(options.loopControlTools) ? loopControlTools(options.loopControlTools) : []),
    ...(options.outputFormat ? [structuredOutputTool(options.outputFormat)] : []),
  ];
  tools.push(...endingTools);
  const { servers: mcp, ignored: ignoredMcp } = await pendingMcp;
  const wholeToolRules = disallowed.filter((rule) => !rule.includes("("));
  const registry = new ToolRegistry(tools, { disallowed: wholeToolRules });
  // `disallowedTools: ["mcp__server"]` hides every tool of that server, as a name hides one tool (also tools that arrive later).
  mcp?.attach(registry, (name) => wholeToolRules.some((rule) => ruleAppliesTo(rule, name)));
  const permissionMode = options.permissionMode ?? settings.permissions.defaultMode ?? "default";
  const policy = PermissionPolicy.fromSettings(settings, {
    cwd,
    mode: permissionMode,
    allow: options.allowedTools ?? [],
    deny: disallowed,
    additionalDirectories: options.additionalDirectories ?? [],
    ...(sandbox?.policy.autoAllowBashIfSandboxed && {
      sandboxedBash: (input: unknown) => confinesBash(sandbox, input),
    }),
  });
  const hooks = await hookRunner(options, settings, cwd, sessionId, () => policy.mode);
  const gate = new ToolGate({ hooks, canUseTool: options.canUseTool, cwd, signal, stamp });
  const systemPrompt = await pendingPrompt;
  const handoffs =
    agents &&
    new Handoffs({
      agents,
      base: () => top.context,
      tools: () => top.context.registry.offered(),
      kept: new Set(endingTools.map((tool) => tool.name)),
      run: () => ({ model, permissions: policy }),
      resolveModel: async (spec) => {
        const resolved = await resolveModel(spec, resolveOptions(options));
        assertBudgetPriced(options, resolved);
        return resolved;
      },
      maxHandoffs: options.maxHandoffs ?? DEFAULT_MAX_HANDOFFS,
    });
  const context: RunContext = {
    systemPrompt,
    registry,
    session,
    cwd,
    signal,
    stamp,
    retry: {
      ...DEFAULT_RETRY,
      ...options.retry,
      ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
    },
    limits: {
      maxTurns: options.maxTurns ?? Number.POSITIVE_INFINITY,
      maxBudgetUsd: options.maxBudgetUsd,
      maxBudgetTokens: options.maxBudgetTokens,
      maxTokensContinuations: options.maxTokensContinuations ?? 3,
      maxStopHookContinuations: options.maxStopHookContinuations ?? 5,
      maxToolReminders: options.maxToolReminders ?? 3,
      maxStructuredOutputRetries: options.maxStructuredOutputRetries ?? 3,
      maxToolInputBytes: maxToolInputBytes(options),
      toolTimeoutMs: options.toolTimeoutMs,
      maxOutputTokens: options.maxOutputTokens,
    },
    includePartialMessages: options.includePartialMessages ?? false,
    gate,
    hooks,
    stopAtTools: new Set(options.stopAtTools ?? []),
    loopControl: options.loopControlTools === true,
    structuredOutput: options.outputFormat !== undefined,
    fallbackModel,
    modelSettings: (forModel) => {
      // Compaction thresholds and server-side options depend on the model: built for each.
      const compactor = compactorFor(options, forModel, systemPrompt, registry);
      return {
        compactor,
        providerOptions: mergeProviderOptions(
          mergeProviderOptions(reasoningProviderOptions(options), options.providerOptions),
          compactor?.providerOptions(),
        ),
      };
    },
    now: input.now,
    timers: systemTimers,
    newUuid: input.newUuid,
    ...(wantsAgentTool(options) && { background: new BackgroundAgents(new RunChannel()) }),
    ...(handoffs && { handoffs }),
    modelAnswering: () => persistence.openStore(),
  };
  const state = newRunState(context, {
    model,
    permissions: policy,
    doomLoop: new DoomLoopDetector(options.doomLoopThreshold ?? 3),
    costs: new CostTracker(),
    history: [...persistence.history],
    startedAt: input.startedAt,
  });
  Object.assign(top, { context, state });
  if (handoffs && agentName !== undefined) await handoffs.switchTo(state, agentName);
  const ignoredSettings = mergeIgnoredSettings(settings.ignored, ignoredMcp);
  const switchModel = async (spec: string | undefined) => {
    const next = await resolveModel(spec ?? modelSpec(options), resolveOptions(options));
    assertBudgetPriced(options, next);
    useModel(context, state, next);
  };
  return {
    context,
    state,
    permissionMode,
    switchModel,
    mcpServers: mcp?.statuses() ?? [],
    mcp,
    sandboxClosing,
    ...(ignoredSettings && { ignoredSettings }),
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

/**
 * The run's agents: the built-in one, then agent files by `settingSources` (a project's only
 * in a trusted folder when `requireProjectTrust` is on), then the `agents` option.
 */
async function runAgentDefinitions(
  options: QueryOptions,
  cwd: string,
): Promise<{ agents: Map<string, AgentDefinition>; fromFiles: Set<AgentDefinition> }> {
  const scopes = [...(options.settingSources ?? [])];
  if (options.requireProjectTrust === true && !(await findTrustedFolder(cwd)))
    scopes.splice(0, scopes.length, ...scopes.filter((scope) => scope === "user"));
  const files: Map<string, AgentFile> =
    scopes.length > 0 ? await loadAgentFiles({ cwd, home: homedir(), scopes }) : new Map();
  const fromFiles = Object.fromEntries([...files].map(([name, file]) => [name, file.definition]));
  // Which definitions came from files: their MCP servers expand `${VAR}` as config files' do.
  return { agents: runAgents({ ...fromFiles, ...options.agents }), fromFiles: new Set(Object.values(fromFiles)) };
}

/**
 * Starts connecting the run's MCP servers: the option's and, unless `strictMcpConfig`, those
 * of the MCP config files of `settingSources` (the MCP SDK is loaded only for runs that have some).
 */
function connectMcp(
  options: QueryOptions,
  cwd: string,
  signal: AbortSignal,
  settings: Promise<LoadedSettings>,
  sandbox: Promise<OsSandbox | undefined>,
): Promise<RunMcpServers> {
  // The caller's own tools keep their names; an MCP tool that would clash gets a suffix.
  // No server can come from anywhere: skip copying the environment (a costly read per variable).
  const noFiles = options.strictMcpConfig === true || (options.settingSources ?? []).length === 0;
  if (noFiles && Object.keys(options.mcpServers ?? {}).length === 0) return Promise.resolve({});
  const takenNames = (options.tools ?? []).flatMap((tool) => (typeof tool === "string" ? [] : [tool.name]));
  const env = { ...process.env, ...options.env };
  return startRunMcpServers({
    servers: options.mcpServers,
    strict: options.strictMcpConfig,
    sources: options.settingSources ?? [],
    requireTrust: options.requireProjectTrust === true,
    cwd,
    env,
    signal,
    takenNames,
    settings,
    limits: mcpCallLimits(env),
    onElicitation: options.onElicitation,
    // A failed sandbox fails the run (below), not each server on its own.
    sandbox: sandbox.catch(() => undefined),
  });
}

/**
 * A dollar budget needs the price of every model the run may use: without one, tokens would
 * cost $0 and the budget would never stop the run. A token budget stands in for it.
 */
function assertBudgetPriced(options: QueryOptions, model: Model): void {
  if (options.maxBudgetUsd === undefined || model.info || options.maxBudgetTokens !== undefined) return;
  throw new GyreError(
    "unpriced_model",
    `maxBudgetUsd needs the price of "${model.id}", which Gyre does not know. Give it with ` +
      `pricing: { "${model.modelId}": { input: 0.5, output: 1.5 } } (US dollars per million tokens), ` +
      `or limit tokens instead with maxBudgetTokens.`,
  );
}

/**
 * `thinking` and `effort` in each provider's own terms; only the package of the run's provider
 * reads its entry. `providerOptions` set by the caller win over these.
 */
function reasoningProviderOptions(options: QueryOptions): ProviderOptions | undefined {
  const { thinking, effort } = options;
  if (!thinking && !effort) return undefined;
  const anthropic: JsonObject = {};
  if (thinking) anthropic.thinking = { ...thinking };
  if (effort) anthropic.effort = effort;
  return {
    anthropic,
    ...(effort && { openai: { reasoningEffort: effort } }),
    ...(thinking && { google: { thinkingConfig: geminiThinking(thinking) } }),
  };
}

/** Gemini's thinking budget: -1 lets the model decide, 0 turns thinking off. */
function geminiThinking(thinking: NonNullable<QueryOptions["thinking"]>): JsonObject {
  if (thinking.type === "disabled") return { thinkingBudget: 0 };
  const budget = thinking.type === "enabled" ? (thinking.budgetTokens ?? -1) : -1;
  return { thinkingBudget: budget, includeThoughts: thinking.display !== "omitted" };
}

function compactorFor(
  options: QueryOptions,
  model: Model,
  systemPrompt: string,
  registry: ToolRegistry,
): Compactor | undefined {
  if (options.compaction === false) return undefined;
  return new Compactor({
    model,
    systemPrompt,
    tools: registry.definitions(),
    providerOptions: options.providerOptions,
    ...(typeof options.compaction === "object" ? options.compaction : {}),
  });
}

/** 64 MiB: far past what a model writes in one call, well short of what exhausts memory. */
export const DEFAULT_MAX_TOOL_INPUT_BYTES = 64 * 1024 * 1024;

function maxToolInputBytes(options: QueryOptions): number {
  const value = options.maxToolInputBytes ?? DEFAULT_MAX_TOOL_INPUT_BYTES;
  if (Number.isNaN(value) || value <= 0)
    throw new GyreError("config_error", `maxToolInputBytes must be a positive number of bytes, not ${value}`);
  return value;
}

function resolveOptions(options: QueryOptions) {
  return { env: options.env, providers: options.providers, pricing: options.pricing };
}

/** The model a run asks for: the option, else `GYRE_MODEL`, else the default. */
function modelSpec(options: QueryOptions): NonNullable<QueryOptions["model"]> {
  return options.model ?? options.env?.GYRE_MODEL ?? process.env.GYRE_MODEL ?? DEFAULT_MODEL;
}

/**
 * Settings files of `settingSources` (none by default, so a library run is not shaped by
 * files on the machine), with the `settings` option over them.
 */
async function readSettings(cwd: string, options: QueryOptions): Promise<LoadedSettings> {
  const scopes = options.settingSources ?? [];
  if (scopes.length === 0 && options.settings === undefined) return mergeSettings([], homedir());
  return loadSettings({
    cwd,
    sources: scopes,
    requireTrust: options.requireProjectTrust === true,
    ...(options.settings !== undefined && { flagSettings: options.settings }),
  });
}

/** Marks a promise's rejection as handled; awaiting it later still throws. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The hooks engine is loaded only when a run has hooks (most runs have none). */
async function hookRunner(
  options: QueryOptions,
  settings: LoadedSettings,
  cwd: string,
  sessionId: string,
  permissionMode: () => string,
): Promise<HookRunner | undefined> {
  if (!options.hooks && settings.hooks.length === 0) return undefined;
  const { HookRunner } = await import("../hooks/index.js");
  return new HookRunner({
    callbacks: options.hooks,
    settings: settings.hooks.map((source) => source.hooks),
    cwd,
    sessionId,
    permissionMode,
  });
}

/** Whether a Bash call's input will run inside the sandbox. */
function confinesBash(sandbox: CommandSandbox, input: unknown): boolean {
  const fields = (typeof input === "object" && input !== null ? input : {}) as Record<string, unknown>;
  if (typeof fields.command !== "string") return false;
  return sandbox.confines({
    command: fields.command,
    dangerouslyDisableSandbox: fields.dangerouslyDisableSandbox === true,
  });
}

function resolveTools(options: QueryOptions, cwd: string, sandbox: CommandSandbox | undefined): AnyTool[] {
  // Commands never see the keys of the providers Gyre itself talks to, unless listed in passEnv.
  // A passEnv key comes from the run's env: the gyre CLI keeps the keys out of process.env.
  const env = passedVariables(options.passEnv, options.env);
  const bash = { secretEnv: providerKeyEnvNames(options.providers), passEnv: options.passEnv, sandbox, env };
  const builtins = defaultTools({ cwd, bash });
  const tools = options.tools;
  if (tools === undefined) return builtins;
  return tools.flatMap((tool) => {
    if (typeof tool !== "string") return [tool];
    if (tool === "Agent" || tool === "Task") return []; // added by setupRun, which knows the run
    const found = builtins.find((candidate) => candidate.name === tool);
    if (!found) {
      throw new GyreError(
        "config_error",
        `Unknown built-in tool "${tool}". Built-in tools: ${builtins.map((b) => b.name).join(", ") || "(none)"}.`,
      );
    }
    return [found];
  });
}
