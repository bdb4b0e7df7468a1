import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { GyreError } from "../errors/index.js";
import type { McpServerStatus } from "../mcp/index.js";
import { apiKeySource, type Model } from "../model/index.js";
import {
  emptyUsage,
  type PermissionMode,
  type SDKMessage,
  type TerminalReason,
  type Usage,
} from "../protocol/index.js";
import { type RewindFilesResult, rewindFiles } from "../sessions/index.js";
import { ToolSession } from "../tools/index.js";
import { MessageStamp } from "./messages.js";
import type { QueryOptions, QueryParams, QueryPrompt } from "./options.js";
import { validateOptions } from "./options-schema.js";
import { Persistence } from "./persistence.js";
import { readAnswers, resumeStep } from "./pause.js";
import { userTurns, withContext } from "./prompt-turns.js";
import { joinedText } from "./joined-text.js";
import { resultMessage } from "./result.js";
import { McpControls } from "./mcp-controls.js";
import { RunControls } from "./run-controls.js";
import { runLoop } from "./run-loop.js";
import type { RunState } from "./run-state.js";
import { setupRun, startModel } from "./setup.js";
import { hookReports } from "./hook-reports.js";
import { activeContext, setPermissionMode } from "./handoffs.js";
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
  readonly numTurns: number;
  /** Why the run ended; undefined while it runs. */
  readonly exitReason: TerminalReason | undefined;
}

/**
 * Run the agentic loop. Options are checked at once (an unknown option or a bad value throws a
 * `config_error` here); nothing else happens until the first message is pulled. Then the model
 * is resolved (a missing key fails before any request), and messages stream as produced.
 */
export function query(params: QueryParams): Query {
  validateOptions(params.options);
  const options = params.options ?? {};
  const ids = { newUuid: options.newUuid ?? randomUUID, now: options.now ?? Date.now };
  const proposedId = options.sessionId ?? ids.newUuid();
  const live: LiveRun = { proposedId, sessionId: options.resume ?? proposedId, state: undefined };
  const controller = options.abortController ?? new AbortController();
  const controls = new RunControls();
  const mcp = new McpControls();
  const inner = run(params.prompt, options, live, controller, { controls, mcp }, ids);
  const generator = Object.assign(inner, {
    rewindFiles: (messageUuid: string, rewind: { dryRun?: boolean } = {}) =>
      rewindFiles(live.sessionId, messageUuid, {
        ...rewind,
        ...(options.sessionStore ? { store: options.sessionStore } : {}),
        cwd: resolve(options.cwd ?? process.cwd()),
      }),
    compact: (instructions?: string) => controls.compact(instructions),
    async interrupt() {
      if (!controller.signal.aborted) controller.abort(new GyreError("aborted", "Interrupted"));
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
    numTurns: { get: () => live.state?.turns ?? 0 },
    exitReason: { get: () => live.state?.exitReason },
  });
  return generator as unknown as Query;
}

/** What `Query`'s accessors read while the run goes: its session, and its state once set up. */
interface LiveRun {
  proposedId: string;
  sessionId: string;
  state: RunState | undefined;
}

/** What `Query`'s control methods reach the run through. */
interface Controls {
  controls: RunControls;
  mcp: McpControls;
}

interface Ids {
  newUuid: () => string;
  now: () => number;
}

/**
 * Opens the session (resume, lock) and persists every message before the caller sees it
 * (a new session's first messages are stored once its store is open: see Persistence).
 */
async function* run(
  prompt: QueryPrompt,
  options: QueryOptions,
  live: LiveRun,
  controller: AbortController,
  controls: Controls,
  ids: Ids,
): AsyncGenerator<SDKMessage, void> {
  const startedAt = ids.now();
  // The provider package loads while the session store opens.
  const model = startModel(options);
  const persistence = await Persistence.open(options, resolve(options.cwd ?? process.cwd()), live.proposedId);
  live.sessionId = persistence.sessionId;
  try {
    const session = runSession(prompt, options, persistence, controller, model, controls, live, { ...ids, startedAt });
    for await (const message of session) {
      await persistence.record(message);
      yield message;
    }
  } finally {
    await persistence.close();
  }
}

async function* runSession(
  prompt: QueryPrompt,
  options: QueryOptions,
  persistence: Persistence,
  controller: AbortController,
  pendingModel: Promise<Model>,
  { controls, mcp }: Controls,
  live: LiveRun,
  ids: Ids & { startedAt: number },
): AsyncGenerator<SDKMessage, void> {
  const sessionId = persistence.sessionId;
  const cwd = resolve(options.cwd ?? process.cwd());
  const stamp = new MessageStamp(sessionId, ids.newUuid);
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
      now: ids.now,
      newUuid: ids.newUuid,
      startedAt: ids.startedAt,
    });
    const { context, state } = setup;
    const { hooks } = context;
    state.pending = [...persistence.pending];
    live.state = state;
    if (options.approvals && Object.keys(options.approvals).length > 0 && state.pending.length === 0) {
      throw new GyreError(
        "resume_mismatch",
        "approvals answer the calls a paused session waits on, and this session waits on none. Nothing was changed.",
      );
    }
    const turns = userTurns(prompt)[Symbol.asyncIterator]();
    // A paused session's first prompt must answer what it waits on: checked before anything is recorded.
    let firstTurn = state.pending.length > 0 ? await turns.next() : undefined;
    let firstAnswers =
      firstTurn && !firstTurn.done ? readAnswers(state.pending, firstTurn.value, options.approvals) : undefined;
    mcp.attach(setup.mcp);
    await controls.attach({
      setPermissionMode: (mode) => setPermissionMode(context, state, mode),
      switchModel: setup.switchModel,
      compact: (request) => {
        state.compactRequest = request;
      },
    });
    yield stamp.stamp({
      type: "system",
      subtype: "init",
      apiKeySource: apiKeySource(state.model.provider, options, typeof (options.model ?? "") !== "string"),
      claude_code_version: CLAUDE_CODE_TOOLS_VERSION,
      cwd,
      tools: activeContext(context, state).registry.names(),
      mcp_servers: setup.mcpServers.map(({ name, status, error }) => ({ name, status, ...(error && { error }) })),
      model: state.model.id,
      // A mode set before the run started is the one it starts in.
      permissionMode: state.permissions.mode,
      slash_commands: [],
      output_style: "default",
      skills: [],
      plugins: [],
      gyre_version: GYRE_VERSION,
      ...(setup.ignoredSettings && { ignored_settings: setup.ignoredSettings }),
    });
    let sessionContext: string[] = [];
    if (hooks?.has("SessionStart")) {
      const outcome = await hooks.run(
        "SessionStart",
        { source: "startup", model: state.model.id },
        { signal: controller.signal },
      );
      yield* hookReports(stamp, outcome);
      sessionContext = outcome.additionalContext;
    }
    for (;;) {
      const next = firstTurn ?? (await turns.next());
      firstTurn = undefined;
      if (next.done) break;
      const content = next.value;
      if (state.pending.length > 0) {
        // The answers to a pause are not a new prompt: no UserPromptSubmit, the loop goes on from the paused turn.
        const answers = firstAnswers ?? readAnswers(state.pending, content);
        firstAnswers = undefined;
        yield* runLoop(context, state, (c, s) => resumeStep(c, s, answers));
        if (controller.signal.aborted) break;
        continue;
      }
      const added = [...sessionContext];
      sessionContext = [];
      if (hooks?.has("UserPromptSubmit")) {
        const outcome = await hooks.run(
          "UserPromptSubmit",
          { prompt: joinedText(content, "\n") },
          { signal: controller.signal },
        );
        yield* hookReports(stamp, outcome);
        if (outcome.block || !outcome.continue) {
          state.exitReason = "hook_stopped";
          const errors = [outcome.block?.reason ?? outcome.stopReason ?? "A UserPromptSubmit hook blocked the prompt."];
          yield resultMessage(stamp, state, "hook_stopped", { errors }, context.now());
          continue;
        }
        added.push(...outcome.additionalContext);
      }
      const userContent = withContext(content, added);
      state.history.push({ role: "user", content: userContent });
      await persistence.record(stamp.user(userContent));
      yield* runLoop(context, state);
      if (controller.signal.aborted) break;
    }
    if (hooks?.has("SessionEnd")) {
      const outcome = await hooks.run("SessionEnd", {
        reason: controller.signal.aborted ? "interrupted" : "other",
      });
      yield* hookReports(stamp, outcome);
    }
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
    mcp.attach(undefined); // Ended before it was set up: nothing waits for servers that never came.
    if (!controller.signal.aborted) controller.abort(new GyreError("aborted", "The query ended"));
    await session.dispose();
  }
}
