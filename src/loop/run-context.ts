import type { Timers } from "../async/index.js";
import type { Compactor } from "../context/index.js";
import type { HookRunner } from "../hooks/index.js";
import type { CostTracker, Model, ProviderOptions } from "../model/index.js";
import type { PermissionPolicy } from "../permissions/index.js";
import type { ToolRegistry, ToolSession } from "../tools/index.js";
import type { ToolSearchSetting } from "../tool-search/index.js";
import type { MessageStamp } from "./messages.js";
import type { NextStep } from "./next-step.js";
import type { RunChannel } from "./run-channel.js";
import type { RetryPolicy } from "./retry.js";
import type { ToolBatch, ToolsOutcome } from "./tool-batch.js";
import type { ToolGate } from "./tool-gate.js";
import type { SDKMessage } from "../protocol/index.js";
import type { RunTracing } from "../telemetry/index.js";
import type { WorkspaceSnapshots } from "../sessions/index.js";

/**
 * The system prompt of one model call; `context` is the context the call runs in (a subagent's
 * or a handoff's own), `turn` the call's number (1 for the first).
 */
export type TurnPrompt = (context: RunContext, call: { turn: number }) => Promise<string>;

/** What depends on the run's current model: compaction thresholds and provider options. */
export interface ModelSettings {
  /** Client-side compaction; undefined when turned off. */
  compactor: Compactor | undefined;
  providerOptions: ProviderOptions | undefined;
}

/** The agent definition a run goes on as (the `agent` option, or a handoff's target), with its context. */
export interface ActiveAgent {
  name: string;
  context: RunContext;
}

/** The part of the run's state a switch to another agent reads and changes (see `RunState`). */
export interface AgentSwitchState {
  readonly turns: number;
  model: Model;
  modelSettings: ModelSettings;
  permissions: PermissionPolicy;
  activeAgent: ActiveAgent | undefined;
}

/** The part of the run's state a handoff reads and changes: the agent switch, and the prompt's handoff count. */
export interface HandoffState extends AgentSwitchState {
  readonly counters: { handoffs: number };
}

/**
 * The agents a run may run as or hand off to, as the loop reaches them: the agents room
 * (`Handoffs`, in src/agents/) builds the agents' contexts, so the loop knows it only by this interface.
 */
export interface RunHandoffs {
  readonly init: { readonly maxHandoffs: number; readonly run: () => { permissions: PermissionPolicy } };
  /** Makes `name` the agent the run goes on as: its context, model and narrowed permissions. */
  switchTo(state: AgentSwitchState, name: string): Promise<void>;
  /** Before a turn's tools run: the handoff its calls ask for, if any. */
  plan(context: RunContext, state: HandoffState, batch: ToolBatch): TurnHandoff | undefined;
}

/** A turn's handoff, planned before its tools run and taken after them. */
export interface TurnHandoff {
  /** The turn's calls, with the transfers that are not taken already answered. */
  readonly batch: ToolBatch;
  /** After the tools: switches the run when the transfer succeeded, and says what comes next. */
  take(
    context: RunContext,
    state: HandoffState,
    tools: ToolsOutcome,
    next: NextStep,
  ): AsyncGenerator<SDKMessage, NextStep>;
}

/** Work a run's tools started that goes on beside its turns (background agents): the loop's part in it. */
export interface RunBackground {
  /** Where the background work's messages reach the run's stream. */
  readonly channel: RunChannel;
  /** Stops whatever still runs; the run ends after it. */
  stopAll(): Promise<void>;
  /** What the model is told when it ends while background work still runs or has unread results, once per task. */
  reminder(): string | undefined;
}

/** Bounds a run keeps to; each one past its limit ends the run with its own terminal reason. */
export interface RunLimits {
  readonly maxTurns: number;
  readonly maxBudgetUsd: number | undefined;
  /** Tokens (input, cache and output) the run may use; a budget that needs no prices. */
  readonly maxBudgetTokens: number | undefined;
  /** `max_tokens` stops continued in a row before the run gives up. */
  readonly maxTokensContinuations: number;
  /** Times a Stop hook may keep the agent going per prompt. */
  readonly maxStopHookContinuations: number;
  /** Reminders to call a tool (loop-control tools on) per prompt. */
  readonly maxToolReminders: number;
  /** Reminders to call StructuredOutput per prompt before the run gives up. */
  readonly maxStructuredOutputRetries: number;
  /** UTF-8 bytes one tool call's arguments may have; a larger call gets an `is_error` result. */
  readonly maxToolInputBytes: number;
  readonly toolTimeoutMs: number | undefined;
  readonly maxOutputTokens: number | undefined;
  /** History entries a model request carries at most (the newest); all of them when undefined. */
  readonly maxMessages: number | undefined;
}

/**
 * What the caller configured, resolved once before the first turn and never changed by the
 * run: everything that changes while it runs (model, history, counters, permission mode) is
 * in {@link RunState}.
 */
export interface RunContext {
  /** The system prompt as configured (the preset, the literal text, or an agent's own). */
  readonly systemPrompt: string;
  /**
   * Builds each model call's system prompt from `systemPrompt` and the run as it is now (the
   * plan, retrieved context; a `systemPrompt` function); none: `systemPrompt` as it is.
   */
  readonly turnPrompt?: TurnPrompt;
  readonly registry: ToolRegistry;
  /**
   * When MCP tools are deferred behind ToolSearch (the `toolSearch` option); none: every tool
   * is sent whole. In use only while the registry offers ToolSearch (see `presentTools`).
   */
  readonly toolSearch?: ToolSearchSetting;
  readonly session: ToolSession;
  readonly cwd: string;
  readonly signal: AbortSignal;
  readonly stamp: MessageStamp;
  readonly retry: RetryPolicy;
  readonly limits: RunLimits;
  readonly includePartialMessages: boolean;
  readonly gate: ToolGate;
  readonly hooks: HookRunner | undefined;
  /** Tools whose successful call ends the run with their output as the result. */
  readonly stopAtTools: ReadonlySet<string>;
  /** Loop-control tools are on: an answer without a tool call gets a reminder. */
  readonly loopControl: boolean;
  /** `outputFormat` is set: the run must end through the StructuredOutput tool. */
  readonly structuredOutput: boolean;
  /** `fallbackModel`, resolved; the run switches to it once when a model call fails for good. */
  readonly fallbackModel: Model | undefined;
  /** Compaction and provider options for a model (they depend on its context window and provider). */
  readonly modelSettings: (model: Model) => ModelSettings;
  /** The clock (`Date.now` unless the caller injected one). */
  readonly now: () => number;
  /** Timers for the loop's own schedules (`tool_progress`); Node's, or a test's. */
  readonly timers: Timers;
  /** New ids (`crypto.randomUUID` unless the caller injected a source). */
  readonly newUuid: () => string;
  /**
   * The costs the budget limits when not the run's own: a subagent's are its top run's, so
   * the subagents together never spend past the parent's budget.
   */
  readonly budgetCosts?: CostTracker;
  /** Set when this run is a subagent: its end fires SubagentStop hooks instead of Stop. */
  readonly agent?: { readonly id: string; readonly type: string };
  /** The background agents this run started (when it has the Agent tool); stopped when it ends. */
  readonly background?: RunBackground;
  /** With the `snapshots` option: the workspace is snapshotted at each step's start and at the run's end. */
  readonly snapshots?: WorkspaceSnapshots;
  /** The agents this run may run as or hand off to; absent when it has none. */
  readonly handoffs?: RunHandoffs;
  /**
   * Called when a model call's answer starts to arrive: the run's session store, when it waits
   * to open (see Persistence), opens then, while the model answers, not before the request.
   */
  readonly modelAnswering?: () => void;
  /** The run's `invoke_agent` span and where its model and tool spans go; none: untraced. */
  readonly tracing?: RunTracing;
}
