import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import type { Compactor } from "../context/index.js";
import type { HookRunner } from "../hooks/index.js";
import type { CostTracker, ResolvedModel } from "../model/index.js";
import type { HistoryEntry, PermissionDenial, TerminalReason } from "../protocol/index.js";
import type { ToolRegistry, ToolSession } from "../tools/index.js";
import type { MessageStamp } from "./messages.js";
import type { RunEnding, RunTotals } from "./result.js";
import type { RetryPolicy } from "./retry.js";
import type { ToolGate } from "./tool-gate.js";

/** Everything one run needs, resolved from the options before the first turn. */
export interface LoopConfig {
  model: ResolvedModel;
  /** `fallbackModel`, resolved; the run switches to it once when a model call fails for good. */
  fallbackModel: ResolvedModel | undefined;
  /** Makes `model` the run's model from the next call on (compaction follows it). */
  useModel: (model: ResolvedModel) => void;
  systemPrompt: string;
  registry: ToolRegistry;
  session: ToolSession;
  cwd: string;
  signal: AbortSignal;
  stamp: MessageStamp;
  costs: CostTracker;
  retry: RetryPolicy;
  maxTurns: number;
  maxBudgetUsd: number | undefined;
  maxTokensContinuations: number;
  includePartialMessages: boolean;
  gate: ToolGate;
  hooks: HookRunner | undefined;
  maxStopHookContinuations: number;
  stopAtTools: ReadonlySet<string>;
  /** Loop-control tools are on: an answer without a tool call gets a reminder. */
  loopControl: boolean;
  maxToolReminders: number;
  /** `outputFormat` is set: the run must end through the StructuredOutput tool. */
  structuredOutput: boolean;
  /** Reminders to call StructuredOutput before the run gives up (default 3). */
  maxStructuredOutputRetries: number;
  /** Client-side compaction; undefined when turned off. */
  compactor: Compactor | undefined;
  toolTimeoutMs: number | undefined;
  /** UTF-8 bytes one tool call's arguments may have; a larger call gets an `is_error` result. */
  maxToolInputBytes: number;
  maxOutputTokens: number | undefined;
  providerOptions: LanguageModelV3CallOptions["providerOptions"];
}

/** Mutable state of a run, readable from the `Query` while it runs. */
export interface LoopState extends RunTotals {
  history: HistoryEntry[];
  /** A manual compaction asked for with `Query.compact()`, run before the next model call. */
  compactRequest: { instructions?: string } | undefined;
  exitReason: TerminalReason | undefined;
}

export function newLoopState(costs: CostTracker): LoopState {
  return {
    history: [],
    compactRequest: undefined,
    exitReason: undefined,
    startedAt: performance.now(),
    apiMs: 0,
    turns: 0,
    costs,
    denials: [] as PermissionDenial[],
    lastAssistant: undefined,
  };
}

/** What a step decided: go round again, or stop for a reason. */
export type NextStep = { next: "continue" } | ({ next: "stop"; reason: TerminalReason } & RunEnding);
