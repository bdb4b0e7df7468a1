import { randomUUID } from "node:crypto";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { SlashCommandExpander } from "../commands/index.js";
import { GyreError } from "../errors/index.js";
import type { McpServerStatus } from "../mcp/index.js";
import { apiKeySource, type Model } from "../model/index.js";
import {
  emptyUsage,
  type PermissionMode,
  type SDKMessage,
  type TerminalReason,
  type Usage,
  type UserContentBlock,
} from "../protocol/index.js";
import { projectOf, type RewindFilesResult, rewindFiles } from "../sessions/index.js";
import { RunTracing } from "../telemetry/index.js";
import { ToolSession } from "../tools/index.js";
import {
  activeContext,
  reachableToolNames,
  continueStep,
  hookReports,
  joinedText,
  MessageStamp,
  readAnswers,
  interruptReason,
  resultMessage,
  resumeStep,
  type PendingAnswers,
  type RunBudget,
  runBudget,
  type RunContext,
  runLoop,
  type RunState,
} from "../loop/index.js";
import type { QueryOptions, QueryParams, QueryPrompt } from "./options.js";
import { validateOptions } from "./options-schema.js";
import { Persistence } from "./persistence.js";
import { userTurns, withContext } from "./prompt-turns.js";
import { McpControls } from "./mcp-controls.js";
import { RunControls } from "./run-controls.js";
import type { WireAgents } from "./agent-wiring.js";
import { type RunSetup, setupRun, startModel } from "./setup.js";
import { GYRE_VERSION } from "../version.js";

export { DEFAULT_MODEL } from "./setup.js";
/** The Claude Code release whose tool input and output formats the built-in tools match. */
const CLAUDE_CODE_TOOLS_VERSION = "2.1.0";

/**
 * A running agent: an async generator of `SDKMessage`s that ends with a `result`, plus
 * control and live accessors.
 */
export interface Query extends AsyncGenerator<SDKMessage, void> {
  /** Stop the run: the model call or running tools are cancelled; a `result` still follows. */
  interrupt(): Promise<void>;
  /**
   * Change the permission mode from the next tool call on (as in the Claude Agent SDK).
   * An unknown mode is a `config_error`.
   */
  setPermissionMode(mode: PermissionMode): Promise<void>;
  /**
   * Use another model (`"provider/model-id"`; none: the run's own) from the next model call
   * on. A model that cannot be resolved (unknown provider, missing key) rejects, and the run
   * goes on with the model it had.
   */
  setModel(model?: string): Promise<void>;
  /** Compact the conversation before the next model call (`instructions` guide the summary). */
  compact(instructions?: string): void;
  /** Every MCP server of the run with its status; asked before the run is set up, waits for it. */
  mcpServerStatus(): Promise<McpServerStatus[]>;
  /**
   * Close an MCP server's connection and connect again (a stdio server is restarted), with a
   * fresh restart budget. An unknown name is a `config_error`; a failed connection rejects
   * (`mcp_connection_failed`) and the server stays `failed`.
   */
  reconnectMcpServer(serverName: string): Promise<void>;
  /**
   * Turn an MCP server off (`disabled`: connection closed, tools withdrawn before the next
   * model call) or on again (connects it). An unknown name is a `config_error`.
   */
  toggleMcpServer(serverName: string, enabled: boolean): Promise<void>;
  /** The session's id; with `continue` or a fork, final once the first message is out. */
  readonly sessionId: string;
  /**
   * Restores files changed since `messageUuid` (its own changes included) to their content
   * before it, from this session's checkpoints.
   */
  rewindFiles(messageUuid: string, options?: { dryRun?: boolean }): Promise<RewindFilesResult>;
  readonly usage: Usage;
  readonly totalCostUsd: number;
  /**
   * What is left of `maxBudgetUsd` and `maxBudgetTokens` now (Gyre addition), read at any
   * moment of the run: before it starts, between messages, inside a tool. Compaction's spend
   * counts, as the limits count it; so do the subagents'.
   */
  readonly budget: RunBudget;
  readonly numTurns: number;
  /** Why the run ended; undefined while it runs. */
  readonly exitReason: TerminalReason | undefined;
}

/**
 * Run the agentic loop (`query()` of src/agents/ is this with agents wired in: the one users call). Options are checked at once (an unknown option or a bad value throws a
 * `config_error` here); nothing else happens until the first message is pulled. Then the model
 * is resolved (a missing key fails before any request), and messages stream as produced.
 */
export function query(params: QueryParams, wireAgents?: WireAgents): Query {
  validateOptions(params.options);
  const options = params.options ?? {};
  if (options.continueRun) checkContinueRun(params.prompt, options);
  const ids = { newUuid: options.newUuid ?? randomUUID, now: options.now ?? Date.now };
  const proposedId = options.sessionId ?? ids.newUuid();
  const live: LiveRun = { proposedId, sessionId: options.resume ?? proposedId, state: undefined };
  const controller = options.abortController ?? new AbortController();
  const controls = new RunControls();
  const mcp = new McpControls();
  const inner = run({ prompt: params.prompt, options, live, controller, controls, mcp, ...ids, wireAgents });
  const generator = Object.assign(inner, {
    rewindFiles: (messageUuid: string, rewind: { dryRun?: boolean } = {}) =>
      rewindFiles(live.sessionId, messageUuid, {
        ...rewind,
        ...(options.sessionStore ? { store: options.sessionStore } : {}),
        cwd: resolve(options.cwd ?? process.cwd()),
      }),
    compact: (instructions?: string) => controls.compact(instructions),
    async interrupt() {
      if (!controller.signal.aborted) controller.abort(interruptReason());
    },
    setPermissionMode: (mode: PermissionMode) => controls.setPermissionMode(mode),
    setModel: (model?: string) => controls.setModel(model),
    mcpServerStatus: () => mcp.status(),
    reconnectMcpServer: (serverName: string) => mcp.reconnect(serverName),
    toggleMcpServer: (serverName: string, enabled: boolean) => mcp.toggle(serverName, enabled),
  });
  Object.defineProperties(generator, {
    sessionId: { get: () => live.sessionId },
    usage: { get: () => live.state?.costs.usage ?? emptyUsage() },
    totalCostUsd: { get: () => live.state?.costs.totalCostUsd ?? 0 },
    budget: { get: () => runBudget(options, live.state?.costs) },
    numTurns: { get: () => live.state?.turns ?? 0 },
    exitReason: { get: () => live.state?.exitReason },
  });
  return generator as unknown as Query;
}

/** `continueRun` goes on with a stored session's run: it needs `resume`, and takes no prompt. */
function checkContinueRun(prompt: QueryPrompt, options: QueryOptions): void {
  if (options.resume === undefined || options.forkSession || options.resumeSessionAt !== undefined)
    throw new GyreError("config_error", "continueRun goes on with the run of the session named by resume, unforked.");
  if (prompt !== "")
    throw new GyreError("config_error", 'continueRun takes no prompt (pass ""): the run goes on from its session.');
}

/** What `Query`'s accessors read while the run goes: its session, and its state once set up. */
interface LiveRun {
  proposedId: string;
  sessionId: string;
  state: RunState | undefined;
}

/** One prompt's content, as a streamed prompt or the prompt string gives it. */
type QueryPromptContent = string | UserContentBlock[];

/** What a query runs with, fixed when it is made. */
interface QueryRun {
  prompt: QueryPrompt;
  options: QueryOptions;
  live: LiveRun;
  controller: AbortController;
  /** What `Query`'s control methods reach the run through. */
  controls: RunControls;
  mcp: McpControls;
  newUuid: () => string;
  now: () => number;
  wireAgents: WireAgents | undefined;
}

/**
 * Opens the session (resume, lock) and persists every message before the caller sees it
 * (a new session's first messages are stored once its store is open: see Persistence).
 */
async function* run(query: QueryRun): AsyncGenerator<SDKMessage, void> {
  const { options, live } = query;
  const startedAt = query.now();
  // Read at the first pull: a run pulled inside an active span is its child.
  const tracing = RunTracing.startAgent({
    tracer: options.tracer,
    meter: options.meter,
    captureContent: options.traceContent,
    env: options.env,
    agentName: options.agent ?? "gyre",
    conversationId: live.sessionId,
  });
  let failure: unknown;
  try {
    // The provider package loads while the session store opens.
    const model = startModel(options);
    const persistence = await Persistence.open(options, resolve(options.cwd ?? process.cwd()), live.proposedId);
    live.sessionId = persistence.sessionId;
    tracing.setConversation(persistence.sessionId);
    if (persistence.pending.length > 0) tracing.resumedFrom(persistence.pausedTrace);
    try {
      for await (const message of runSession(query, persistence, model, startedAt, tracing)) {
        if (message.type === "result" && message.terminal_reason === "requires_action") {
          const traceparent = tracing.paused((message.pending_tool_calls ?? []).map((call) => call.id));
          if (traceparent) message.traceparent = traceparent;
        }
        // Stream events are never stored: no await (a promise and a microtask) for each of them.
        if (message.type !== "stream_event") await persistence.record(message);
        yield message;
      }
    } finally {
      await persistence.close();
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    const state = live.state;
    if (state) tracing.recordCost(state.costs.modelUsage());
    tracing.end({
      model: state?.model.modelId,
      usage: state?.costs.usage,
      costUsd: state?.costs.totalCostUsd,
      numTurns: state?.turns,
      terminalReason: state?.exitReason,
      error: failure,
    });
  }
}

/** The session's life: set-up, `init`, SessionStart hooks, a loop per prompt, SessionEnd hooks. */
async function* runSession(
  query: QueryRun,
  persistence: Persistence,
  pendingModel: Promise<Model>,
  startedAt: number,
  tracing: RunTracing,
): AsyncGenerator<SDKMessage, void> {
  const { options, controller } = query;
  const sessionId = persistence.sessionId;
  const cwd = resolve(options.cwd ?? process.cwd());
  const stamp = new MessageStamp(sessionId, query.newUuid);
  const session = new ToolSession(sessionId);
  try {
    const setup = await setupRun({
      model: pendingModel,
      options,
      cwd,
      sessionId,
      persistence,
      session,
      stamp,
      signal: controller.signal,
      now: query.now,
      newUuid: query.newUuid,
      startedAt,
      tracing,
      ...(query.wireAgents && { wireAgents: query.wireAgents }),
    });
    const { context, state } = setup;
    tracing.setRequestModel(state.model.modelId);
    state.pending = [...persistence.pending];
    query.live.state = state;
    const commands = new SlashCommandExpander({
      cwd,
      home: homedir(),
      settingSources: options.settingSources ?? [],
      requireTrust: options.requireProjectTrust === true,
      plugins: setup.plugins,
      skills: setup.offeredSkills,
    });
    const prompts = new Prompts(query.prompt, state, options, commands);
    await prompts.readPendingAnswers();
    query.mcp.attach(setup.mcp);
    await query.controls.attach({
      setPermissionMode: (mode) => setPermissionMode(context, state, mode),
      switchModel: setup.switchModel,
      compact: (request) => {
        state.compactRequest = request;
      },
    });
    yield initMessage(setup, options, cwd);
    const sessionContext = yield* sessionHooks(setup, "SessionStart", { source: "startup", model: state.model.id });
    const { unfinished } = persistence;
    if (unfinished) yield* runLoop(context, state, (c, s) => continueStep(c, s, unfinished));
    else yield* promptLoops(setup, prompts, persistence, sessionContext);
    const reason = controller.signal.aborted ? "interrupted" : "other";
    yield* sessionHooks(setup, "SessionEnd", { reason });
    // Disposed here too (not only below), so that what the sandbox finds as it closes reaches the caller.
    await session.dispose();
    if (setup.sandboxClosing.length > 0)
      yield stamp.stamp({
        type: "system",
        subtype: "sandbox_violation",
        tool_use_id: null,
        violations: setup.sandboxClosing,
      });
  } finally {
    query.mcp.attach(undefined); // Ended before it was set up: nothing waits for servers that never came.
    if (!controller.signal.aborted) controller.abort(new GyreError("aborted", "The query ended"));
    await session.dispose();
  }
}

/**
 * The prompts of a run, in turn. A paused session's first prompt must answer what it waits
 * on: {@link readPendingAnswers} checks it before anything is recorded.
 */
class Prompts {
  readonly #turns: AsyncIterator<QueryPromptContent>;
  #first: IteratorResult<QueryPromptContent> | undefined;
  #firstAnswers: PendingAnswers | undefined;

  constructor(
    prompt: QueryPrompt,
    private readonly state: RunState,
    private readonly options: QueryOptions,
    private readonly commands: SlashCommandExpander,
  ) {
    this.#turns = userTurns(prompt)[Symbol.asyncIterator]();
  }

  async readPendingAnswers(): Promise<void> {
    const { state, options } = this;
    if (options.approvals && Object.keys(options.approvals).length > 0 && state.pending.length === 0) {
      throw new GyreError(
        "resume_mismatch",
        "approvals answer the calls a paused session waits on, and this session waits on none. Nothing was changed.",
      );
    }
    if (state.pending.length === 0) return;
    this.#first = await this.#turns.next();
    if (!this.#first.done) this.#firstAnswers = readAnswers(state.pending, this.#first.value, options.approvals);
  }

  /** The next prompt's content, or undefined when the prompts have ended. */
  async next(): Promise<QueryPromptContent | undefined> {
    const next = this.#first ?? (await this.#turns.next());
    this.#first = undefined;
    if (next.done) return undefined;
    // A prompt naming a slash command (`/kit:hello Ada`) is the command's prompt.
    return typeof next.value === "string" ? await this.commands.expand(next.value) : next.value;
  }

  /** How `content` answers the calls the run waits on (the first prompt's, read already). */
  answers(content: QueryPromptContent): PendingAnswers {
    const answers = this.#firstAnswers ?? readAnswers(this.state.pending, content);
    this.#firstAnswers = undefined;
    return answers;
  }
}

/** The session's `init` message: what the run was set up with. */
function initMessage(setup: RunSetup, options: QueryOptions, cwd: string): SDKMessage {
  const { context, state } = setup;
  return context.stamp.stamp({
    type: "system",
    subtype: "init",
    apiKeySource: apiKeySource(state.model.provider, options, typeof (options.model ?? "") !== "string"),
    claude_code_version: CLAUDE_CODE_TOOLS_VERSION,
    cwd,
    project: projectOf(cwd),
    tools: reachableToolNames(activeContext(context, state), state),
    mcp_servers: setup.mcpServers.map(({ name, status, error }) => ({ name, status, ...(error && { error }) })),
    model: state.model.id,
    // A mode set before the run started is the one it starts in.
    permissionMode: state.permissions.mode,
    slash_commands: setup.plugins.flatMap((plugin) => plugin.commands.map((command) => command.name)),
    output_style: "default",
    skills: setup.skills,
    plugins: setup.plugins.map((plugin) => ({ name: plugin.name, path: plugin.path })),
    gyre_version: GYRE_VERSION,
    ...(setup.agentNames && { agents: setup.agentNames }),
    ...(setup.ignoredSettings && { ignored_settings: setup.ignoredSettings }),
    ...(setup.invalidSkills.length > 0 && { invalid_skills: setup.invalidSkills }),
  });
}

/** Runs a session's SessionStart or SessionEnd hooks, when it has some; returns the context they added. */
async function* sessionHooks(
  setup: RunSetup,
  event: "SessionStart" | "SessionEnd",
  input: { source: "startup"; model: string } | { reason: "interrupted" | "other" },
): AsyncGenerator<SDKMessage, string[]> {
  const { hooks, stamp, signal } = setup.context;
  if (!hooks?.has(event)) return [];
  // SessionEnd runs after the run was interrupted too: it gets no signal that is already aborted.
  const outcome =
    event === "SessionStart"
      ? await hooks.run(event, input as { source: "startup"; model: string }, { signal })
      : await hooks.run(event, input as { reason: "interrupted" | "other" });
  yield* hookReports(stamp, outcome);
  return outcome.additionalContext;
}

/**
 * A loop per prompt: the answers to a pause go on from the paused turn (no UserPromptSubmit);
 * a new prompt passes UserPromptSubmit hooks (with the session's start context on the first),
 * is recorded, and runs the loop.
 */
async function* promptLoops(
  setup: RunSetup,
  prompts: Prompts,
  persistence: Persistence,
  startContext: string[],
): AsyncGenerator<SDKMessage, void> {
  const { context, state } = setup;
  let sessionContext = startContext;
  for (let content = await prompts.next(); content !== undefined; content = await prompts.next()) {
    if (state.pending.length > 0) {
      const answers = prompts.answers(content);
      yield* runLoop(context, state, (c, s) => resumeStep(c, s, answers));
    } else {
      const carried = sessionContext;
      sessionContext = [];
      const added = yield* promptSubmitHooks(setup, content);
      if (added === undefined) continue;
      const userContent = withContext(content, [...carried, ...added]);
      state.history.push({ role: "user", content: userContent });
      await persistence.record(context.stamp.user(userContent));
      yield* runLoop(context, state);
    }
    if (context.signal.aborted) break;
  }
}

/** UserPromptSubmit hooks: the context they add, or undefined when one blocked the prompt (its result is out). */
async function* promptSubmitHooks(
  setup: RunSetup,
  content: QueryPromptContent,
): AsyncGenerator<SDKMessage, string[] | undefined> {
  const { context, state } = setup;
  const { hooks, stamp, signal } = context;
  if (!hooks?.has("UserPromptSubmit")) return [];
  const outcome = await hooks.run("UserPromptSubmit", { prompt: joinedText(content, "\n") }, { signal });
  yield* hookReports(stamp, outcome);
  if (!outcome.block && outcome.continue) return outcome.additionalContext;
  state.exitReason = "hook_stopped";
  const errors = [outcome.block?.reason ?? outcome.stopReason ?? "A UserPromptSubmit hook blocked the prompt."];
  yield resultMessage(stamp, state, "hook_stopped", { errors }, context.now());
  return undefined;
}

/**
 * `Query.setPermissionMode`: the mode of the policy in use and of the run's own, which later
 * handoffs narrow from — else a handoff would undo a mode the caller set while an agent ran.
 */
function setPermissionMode(context: RunContext, state: RunState, mode: PermissionMode): void {
  state.permissions.setMode(mode);
  const run = context.handoffs?.init.run().permissions;
  if (run && run !== state.permissions) run.setMode(mode);
}
