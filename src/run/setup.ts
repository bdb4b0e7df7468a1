import { homedir } from "node:os";
import { systemTimers } from "../async/index.js";
import {
  type Compactor,
  DEFAULT_CONTEXT_WINDOW,
  mergeProviderOptions,
  SummaryCompactor,
  SystemPromptBuilder,
} from "../context/index.js";
import { GyreError } from "../errors/index.js";
import type { HookOutcome, HookRunner } from "../hooks/index.js";
import {
  mcpCallLimits,
  type McpServers,
  type McpServerConfig,
  type McpServerStatus,
  resolveServerEntry,
  type RunMcpServers,
  startRunMcpServers,
} from "../mcp/index.js";
import {
  CostTracker,
  type JsonObject,
  LATEST_SONNET,
  type Model,
  type ProviderOptions,
  providerKeyEnvNames,
  resolveModel,
} from "../model/index.js";
import { loadShellParser, PermissionPolicy, ruleAppliesTo } from "../permissions/index.js";
import type { PermissionMode } from "../protocol/index.js";
import {
  type IgnoredProjectSettings,
  type LoadedSettings,
  loadSettings,
  mergeIgnoredSettings,
  mergeSettings,
  untrustedPermissionsFolder,
} from "../settings/index.js";
import {
  type CommandSandbox,
  defaultTools,
  passedVariables,
  type SandboxViolation,
  loopControlTools,
  preloadBuiltinTools,
  restoreTodos,
  structuredOutputTool,
  type WebFetchToolOptions,
  type WebSearchToolOptions,
} from "../tools/builtin/index.js";
import { type AnyTool, type ToolDefinition, ToolRegistry, type ToolSession } from "../tools/index.js";
import {
  DEFAULT_RETRY,
  DoomLoopDetector,
  type MessageStamp,
  newRunState,
  type RunContext,
  type RunLimits,
  type RunState,
  ToolGate,
  useModel,
} from "../loop/index.js";
import { type AgentWiring, BuiltRun, type WireAgents } from "./agent-wiring.js";
import type { QueryOptions } from "./options.js";
import type { Persistence } from "./persistence.js";
import { WorkspaceSnapshots } from "../sessions/index.js";
import {
  bindToolSearch,
  parseToolSearch,
  presentTools,
  TOOL_SEARCH_TOOL_NAME,
  type ToolSearchSetting,
} from "../tool-search/index.js";
import type { OsSandbox } from "../sandbox/index.js";
import { startRunSandbox } from "./sandbox-setup.js";
import { turnPrompt } from "./turn-prompt.js";
import { webFetchOptions, webSearchOptions } from "./web-tools.js";
import type { RunTracing, TracedHook } from "../telemetry/index.js";
import { loadPlugins, type Plugin } from "../plugins/index.js";
import {
  type DiscoveredSkills,
  discoverSkills,
  type InvalidSkill,
  selectSkills,
  type Skill,
  skillTool,
} from "../skills/index.js";

/** The model of a run that names none (and has no `GYRE_MODEL`): the newest generally available Sonnet. */
export const DEFAULT_MODEL = `anthropic/${LATEST_SONNET}`;

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
  /** The agents the Agent tool can start, when the run has it. */
  agentNames?: string[];
  /** The skills the model is offered (`system/init`'s `skills`). */
  skills: string[];
  /** Those skills' files: a prompt `/name` loads one as the Skill tool does. */
  offeredSkills: Skill[];
  /** `SKILL.md` files that are not valid skills. */
  invalidSkills: InvalidSkill[];
  /** The plugins loaded (`plugins`, less those `enabledPlugins` turns off). */
  plugins: Plugin[];
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
  /** Wires agents into the run (the Agent tool, handoffs, background agents): `query()` of src/agents/ passes it. */
  wireAgents?: WireAgents;
  /** The run's `invoke_agent` span, under which its model and tool spans go. */
  tracing?: RunTracing;
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
 * The slow parts start together and are awaited in order, so the first failure is still the model's.
 */
export async function setupRun(input: SetupInput): Promise<RunSetup> {
  const { options, cwd, persistence } = input;
  const pending = startResolving(input);
  const model = await pending.model;
  const fallbackModel = await pending.fallbackModel;
  for (const candidate of [model, fallbackModel]) if (candidate) assertBudgetPriced(options, candidate);
  const settings = await pending.settings;
  const sandbox = await pending.sandbox;
  const agents = await pending.agents;
  const skills = await pending.skills;
  // The run's spend: its model calls, and those its tools make (WebFetch's small model).
  const costs = new CostTracker();
  const tools = [
    ...resolveTools(options, cwd, sandbox, {
      webFetch: webFetchOptions(options, settings, model, resolveOptions(options), costs),
      webSearch: webSearchOptions(options, settings, model, costs),
    }).map((tool) => persistence.withCheckpoints(tool)),
    ...skillTools(options, skills.offered),
    ...agents.tools,
    ...pending.endingTools,
  ];
  const { servers: mcp, ignored: ignoredMcp } = await pending.mcp;
  const registry = toolRegistry(options, tools, mcp);
  const toolSearch = toolSearchSetting(options, settings);
  // ToolSearch only ever reaches MCP tools: `tools` does not list it; a deny rule for it
  // (`disallowedTools`, a settings file's) turns tool search off, as in Claude Code, rather than
  // leaving the MCP tools deferred with no way to load them.
  if (toolSearch && mcp && !toolSearchDenied(settings)) bindToolSearch(registry);
  const permissionMode = options.permissionMode ?? settings.permissions.defaultMode ?? "default";
  const policy = permissionPolicy(options, settings, cwd, permissionMode, sandbox);
  const plugins = await pending.plugins;
  const hooks = await hookRunner(options, settings, plugins, cwd, input.sessionId, () => policy.mode, input.tracing);
  const context = runContext(input, {
    systemPrompt: await pending.systemPrompt,
    registry,
    toolSearch,
    hooks,
    fallbackModel,
    agents,
  });
  const state = newRunState(context, {
    model,
    permissions: policy,
    doomLoop: new DoomLoopDetector(options.doomLoopThreshold ?? 3),
    costs,
    history: [...persistence.history],
    startedAt: input.startedAt,
  });
  // A resumed session's plan, as its last TodoWrite left it, is in the prompt from the first call.
  restoreTodos(input.session, state.history);
  pending.run.complete({ context, state, model, permissions: policy });
  if (pending.startAs) {
    if (!agents.handoffs) throw new GyreError("config_error", "The agent option needs a run started by query().");
    await agents.handoffs.switchTo(state, pending.startAs.name);
  }
  const ignoredSettings = [ignoredMcp, agents.ignored, skills.found.ignored].reduce(
    mergeIgnoredSettings,
    settings.ignored,
  );
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
    sandboxClosing: pending.sandboxClosing,
    ...(ignoredSettings && { ignoredSettings }),
    ...(agents.agentNames && { agentNames: agents.agentNames }),
    skills: skills.offered.map((skill) => skill.name),
    offeredSkills: skills.offered,
    invalidSkills: skills.found.invalid,
    plugins,
  };
}

/**
 * Starts what a run's set-up waits on, all at once: the model's provider import, the settings
 * files, the system prompt's file reads, the sandbox, the MCP servers and the agents overlap.
 */
function startResolving(input: SetupInput) {
  const { options, cwd, persistence, session, signal } = input;
  const model = input.model ?? startModel(options);
  const fallbackModel =
    options.fallbackModel === undefined
      ? undefined
      : quiet(resolveModel(options.fallbackModel, resolveOptions(options)));
  const settings = quiet(readSettings(cwd, options));
  const plugins = quiet(runPlugins(options, cwd, settings));
  const skills = quiet(plugins.then((loaded) => runSkills(options, cwd, loaded)));
  const systemPrompt = quiet(
    // A function builds on the preset (its `defaultPrompt`), rebuilt for each model call.
    skills.then(({ offered }) =>
      new SystemPromptBuilder({ cwd, skills: offered }).build(
        typeof options.systemPrompt === "function" || options.systemPrompt === undefined
          ? { type: "preset", preset: "gyre" }
          : options.systemPrompt,
      ),
    ),
  );
  // Started once the settings are read; stdio MCP servers with `sandbox: true` wait for it.
  const sandbox = quiet(settings.then((loaded) => startRunSandbox(options, loaded, cwd)));
  // Registered before the MCP servers' and every command's cleanup, so it runs after them: its
  // last gitlink check sees what a background command or a server did after the last tool call.
  const sandboxClosing: SandboxViolation[] = [];
  session.onDispose(async () => {
    sandboxClosing.push(...((await (await sandbox.catch(() => undefined))?.close()) ?? []));
  });
  // Plugins' servers are known once the plugins are read; without plugins nothing waits for them.
  const mcp = quiet(
    (options.plugins?.length ? plugins : Promise.resolve([])).then((loaded) =>
      connectMcp(options, cwd, signal, settings, sandbox, loaded),
    ),
  );
  // Registered at once, so the servers close when the run ends even if setup fails further on.
  session.onDispose(async () => (await mcp.catch(() => undefined))?.servers?.close());
  const endingTools = runEndingTools(options);
  // The agent the main thread runs as: a resumed session's last handoff, else the option.
  const agentName = persistence.agent ?? options.agent;
  const from = persistence.agent !== undefined ? ("session" as const) : ("option" as const);
  const startAs = agentName === undefined ? undefined : { name: agentName, from };
  // What the agents' tools read when called: the run as built, completed once it is.
  const run = new BuiltRun();
  const agents = quiet(
    (input.wireAgents ?? noAgents)({
      options,
      cwd,
      startAs,
      childSessions: persistence.childSessions(cwd),
      newUuid: input.newUuid,
      mcpServers: () => mcp.then(({ servers }) => servers),
      resolveModel: (spec) => resolveModel(spec, resolveOptions(options)),
      resolveRunModel: async (spec) => {
        const resolved = await resolveModel(spec, resolveOptions(options));
        assertBudgetPriced(options, resolved);
        return resolved;
      },
      kept: new Set(endingTools.map((tool) => tool.name)),
      run,
      skills: () => skills.then(({ found }) => found.skills),
      plugins: () => plugins,
    }),
  );
  return {
    model,
    fallbackModel,
    settings,
    plugins,
    skills,
    systemPrompt,
    sandbox,
    sandboxClosing,
    mcp,
    endingTools,
    startAs,
    run,
    agents,
  };
}

/**
 * The run's skills: those of the folders `settingSources` reads (a project's only once it is
 * trusted, with `requireProjectTrust`), and of those the ones the `skills` option offers.
 */
async function runSkills(
  options: QueryOptions,
  cwd: string,
  plugins: Plugin[],
): Promise<{ found: DiscoveredSkills; offered: Skill[] }> {
  const scopes = options.settingSources ?? [];
  // `disallowedTools: ["Skill"]` takes the tool away: no skill is listed that could not be loaded.
  const noTool = options.disallowedTools?.includes("Skill") === true;
  if (
    (scopes.length === 0 && plugins.length === 0) ||
    (Array.isArray(options.skills) && options.skills.length === 0) ||
    noTool
  )
    return { found: { skills: [], invalid: [] }, offered: [] };
  const found = await discoverSkills({
    cwd,
    home: homedir(),
    scopes,
    requireTrust: options.requireProjectTrust === true,
    plugins: plugins.map((plugin) => ({ plugin: plugin.name, folder: plugin.skillsFolder })),
  });
  return { found, offered: selectSkills(found.skills, options.skills) };
}

/** The run's plugins (`plugins`), less those the settings' `enabledPlugins` turn off. */
async function runPlugins(options: QueryOptions, cwd: string, settings: Promise<LoadedSettings>): Promise<Plugin[]> {
  if (!options.plugins?.length) return [];
  const enabled = (await settings).merged.enabledPlugins;
  return loadPlugins(options.plugins, {
    cwd,
    ...(typeof enabled === "object" && enabled !== null && { enabledPlugins: enabled as Record<string, unknown> }),
  });
}

/** Plugins' MCP servers, named `plugin_<plugin>_<server>` (Claude Code's), their `${VAR}`s expanded. */
function pluginServers(plugins: Plugin[], env: Record<string, string | undefined>): Record<string, McpServerConfig> {
  const servers: Record<string, McpServerConfig> = {};
  for (const plugin of plugins)
    for (const [name, entry] of Object.entries(plugin.mcpServers)) {
      const resolved = resolveServerEntry(entry, env, `MCP server "${name}" of plugin ${plugin.name}`);
      if (resolved instanceof GyreError) throw resolved;
      servers[`plugin_${plugin.name.replace(/[^\w-]/g, "_")}_${name}`] = resolved;
    }
  return servers;
}

/**
 * The Skill tool, when some skill is offered: with the built-in tools (no `tools` list), when
 * `tools` names it, or when the `skills` option asks for skills (as the SDK's: no need to list the tool).
 */
function skillTools(options: QueryOptions, offered: Skill[]): AnyTool[] {
  if (offered.length === 0) return [];
  const wanted = options.tools === undefined || options.tools.includes("Skill") || options.skills !== undefined;
  return wanted ? [skillTool(offered, { listed: typeof options.systemPrompt === "string" })] : [];
}

/** A run set up without agents' wiring: no Agent tool, no handoffs. */
async function noAgents(): Promise<AgentWiring> {
  return { tools: [] };
}

/** Tools the run needs to end as asked: every agent it runs as keeps them. */
function runEndingTools(options: QueryOptions): AnyTool[] {
  return [
    ...(options.loopControlTools === true ? loopControlTools() : []),
    ...(Array.isArray(options.loopControlTools) ? loopControlTools(options.loopControlTools) : []),
    ...(options.outputFormat ? [structuredOutputTool(options.outputFormat)] : []),
  ];
}

/**
 * Tool search as asked for: the `toolSearch` option, else `ENABLE_TOOL_SEARCH` from the run's
 * `env`, the settings files' `env` or the process's (Claude Code's variable), else `auto`.
 */
function toolSearchSetting(options: QueryOptions, settings: LoadedSettings): ToolSearchSetting | undefined {
  if (options.toolSearch !== undefined) return parseToolSearch(options.toolSearch, "toolSearch");
  const value =
    options.env?.[ENABLE_TOOL_SEARCH] ?? settings.env[ENABLE_TOOL_SEARCH] ?? process.env[ENABLE_TOOL_SEARCH];
  return parseToolSearch(value, ENABLE_TOOL_SEARCH);
}

const ENABLE_TOOL_SEARCH = "ENABLE_TOOL_SEARCH";

/** A settings file denies ToolSearch as a whole (`"deny": ["ToolSearch"]`); `disallowedTools` hides it from the registry. */
function toolSearchDenied(settings: LoadedSettings): boolean {
  return settings.permissions.deny.some(({ rule }) => rule.trim() === TOOL_SEARCH_TOOL_NAME);
}

function toolRegistry(options: QueryOptions, tools: AnyTool[], mcp: McpServers | undefined): ToolRegistry {
  const wholeToolRules = (options.disallowedTools ?? []).filter((rule) => !rule.includes("("));
  const registry = new ToolRegistry(tools, { disallowed: wholeToolRules });
  // `disallowedTools: ["mcp__server"]` hides every tool of that server, as a name hides one tool (also tools that arrive later).
  mcp?.attach(registry, (name) => wholeToolRules.some((rule) => ruleAppliesTo(rule, name)));
  return registry;
}

function permissionPolicy(
  options: QueryOptions,
  settings: LoadedSettings,
  cwd: string,
  mode: PermissionMode,
  sandbox: OsSandbox | undefined,
): PermissionPolicy {
  return PermissionPolicy.fromSettings(settings, {
    cwd,
    mode,
    allow: options.allowedTools ?? [],
    deny: options.disallowedTools ?? [],
    additionalDirectories: options.additionalDirectories ?? [],
    hint: options.permissionHint,
    untrustedFolder: untrustedPermissionsFolder(settings.ignored),
    ...(sandbox?.policy.autoAllowBashIfSandboxed && {
      sandboxedBash: (input: unknown) => confinesBash(sandbox, input),
    }),
  });
}

/** The run's fixed context: what its options resolved to. */
function runContext(
  input: SetupInput,
  resolved: {
    systemPrompt: string;
    registry: ToolRegistry;
    toolSearch: ToolSearchSetting | undefined;
    hooks: HookRunner | undefined;
    fallbackModel: Model | undefined;
    agents: AgentWiring;
  },
): RunContext {
  const { options, cwd, signal, stamp, session, persistence } = input;
  const { systemPrompt, registry, hooks, agents } = resolved;
  const prompt = turnPrompt(options);
  return {
    systemPrompt,
    ...(prompt && { turnPrompt: prompt }),
    registry,
    ...(resolved.toolSearch && { toolSearch: resolved.toolSearch }),
    session,
    cwd,
    signal,
    stamp,
    retry: {
      ...DEFAULT_RETRY,
      ...options.retry,
      ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
    },
    limits: runLimits(options),
    includePartialMessages: options.includePartialMessages ?? false,
    gate: new ToolGate({ hooks, canUseTool: options.canUseTool, cwd, signal, stamp }),
    hooks,
    stopAtTools: new Set(options.stopAtTools ?? []),
    loopControl: options.loopControlTools === true,
    structuredOutput: options.outputFormat !== undefined,
    fallbackModel: resolved.fallbackModel,
    modelSettings: (forModel) => {
      // Compaction thresholds and server-side options depend on the model: built for each.
      const compactor = compactorFor(
        options,
        forModel,
        systemPrompt,
        sentTools(registry, resolved.toolSearch, forModel),
      );
      return {
        compactor,
        providerOptions: mergeProviderOptions(
          mergeProviderOptions(reasoningProviderOptions(options), options.providerOptions),
          compactor?.providerOptions?.(),
        ),
      };
    },
    now: input.now,
    timers: systemTimers,
    newUuid: input.newUuid,
    ...(agents.background && { background: agents.background }),
    ...(agents.handoffs && { handoffs: agents.handoffs }),
    modelAnswering: () => {
      persistence.openStore();
      preloadOnce(registry);
    },
    ...(input.tracing && { tracing: input.tracing }),
    ...(options.snapshots && { snapshots: new WorkspaceSnapshots({ worktree: cwd }) }),
  };
}

const preloaded = new WeakSet<ToolRegistry>();

/**
 * Once the model starts answering a run's first request, what its tools load at their first
 * call starts loading: the shell parser Bash permissions need (compiled once per process) and
 * the search code of Glob and Grep. Not before: the first request would wait for it
 * (docs/benchmarks.md says what that saves); not at the call: the call would.
 */
function preloadOnce(registry: ToolRegistry): void {
  if (preloaded.has(registry)) return;
  preloaded.add(registry);
  const names = new Set(registry.offered().map((tool) => tool.name));
  // After the answer's first event has been handled; the parser last, as it compiles under
  // V8 flags of its own (see loadShellParser), under which nothing else should load.
  setImmediate(() => {
    void preloadBuiltinTools(names).then(() => (names.has("Bash") ? loadShellParser() : undefined));
  });
}

function runLimits(options: QueryOptions): RunLimits {
  return {
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
    maxMessages: options.maxMessages,
  };
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
  plugins: Plugin[],
): Promise<RunMcpServers> {
  // The caller's own tools keep their names; an MCP tool that would clash gets a suffix.
  // No server can come from anywhere: skip copying the environment (a costly read per variable).
  const noFiles = options.strictMcpConfig === true || (options.settingSources ?? []).length === 0;
  const noPluginServers = plugins.every((plugin) => Object.keys(plugin.mcpServers).length === 0);
  if (noFiles && noPluginServers && Object.keys(options.mcpServers ?? {}).length === 0) return Promise.resolve({});
  const takenNames = (options.tools ?? []).flatMap((tool) => (typeof tool === "string" ? [] : [tool.name]));
  const env = { ...process.env, ...options.env };
  return startRunMcpServers({
    servers: { ...pluginServers(plugins, env), ...options.mcpServers },
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

/**
 * The tools a first model call sends, which compaction counts before the provider reports
 * usage: with tool search in use, the deferred MCP tools' schemas are not among them.
 */
function sentTools(registry: ToolRegistry, toolSearch: ToolSearchSetting | undefined, model: Model): ToolDefinition[] {
  if (!toolSearch) return registry.definitions();
  return presentTools(registry, toolSearch, model.info?.contextWindow ?? DEFAULT_CONTEXT_WINDOW, []);
}

function compactorFor(
  options: QueryOptions,
  model: Model,
  systemPrompt: string,
  tools: ToolDefinition[],
): Compactor | undefined {
  if (options.compaction === false) return undefined;
  if (options.compactor) return options.compactor;
  return new SummaryCompactor({
    model,
    systemPrompt,
    tools,
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
  return { env: options.env, providers: options.providers, pricing: options.pricing, fetch: options.fetch };
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
  plugins: Plugin[],
  cwd: string,
  sessionId: string,
  permissionMode: () => string,
  tracing: RunTracing | undefined,
): Promise<HookRunner | undefined> {
  const pluginHooks = plugins.flatMap((plugin) => (plugin.hooks === undefined ? [] : [plugin.hooks]));
  if (!options.hooks && settings.hooks.length === 0 && pluginHooks.length === 0) return undefined;
  const { HookRunner } = await import("../hooks/index.js");
  return new HookRunner({
    callbacks: options.hooks,
    settings: [...settings.hooks.map((source) => source.hooks), ...pluginHooks],
    cwd,
    sessionId,
    permissionMode,
    ...(tracing && { onOutcome: (outcome: HookOutcome) => tracing.hookRan(tracedHook(outcome)) }),
  });
}

/** A hook outcome as its span event says it: what ran and what it decided, none of its output. */
function tracedHook(outcome: HookOutcome): TracedHook {
  const decision = outcome.block
    ? "block"
    : !outcome.continue
      ? "stop"
      : (outcome.permissionDecision ?? outcome.permissionRequest?.behavior);
  return {
    event: outcome.event,
    toolUseId: outcome.toolUseId,
    count: outcome.hookCount,
    errors: outcome.errors.length,
    ...(decision !== undefined && { decision }),
  };
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

function resolveTools(
  options: QueryOptions,
  cwd: string,
  sandbox: CommandSandbox | undefined,
  web: { webFetch: WebFetchToolOptions; webSearch: WebSearchToolOptions },
): AnyTool[] {
  // Commands never see the keys of the providers Gyre itself talks to, unless listed in passEnv.
  // A passEnv key comes from the run's env: the gyre CLI keeps the keys out of process.env.
  const env = passedVariables(options.passEnv, options.env);
  const bash = { secretEnv: providerKeyEnvNames(options.providers), passEnv: options.passEnv, sandbox, env };
  const builtins = defaultTools({ cwd, bash, ...web });
  const tools = options.tools;
  if (tools === undefined) return builtins;
  return tools.flatMap((tool) => {
    if (typeof tool !== "string") return [tool];
    if (tool === "Agent" || tool === "Task" || tool === "Skill") return []; // added by setupRun, which knows the run
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
