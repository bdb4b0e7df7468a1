import { type Compactor, estimateHistoryTokens, serverCompactedHistory } from "../../context/index.js";
import { errorMessage } from "../../errors/index.js";
import type { HookRunner } from "../../hooks/index.js";
import type { CostTracker, Model, ServerCompactionUsage } from "../../model/index.js";
import type { HistoryEntry, SDKMessage } from "../../protocol/index.js";
import type { MessageStamp } from "../messages.js";
import { CONTINUE, interrupted, type NextStep, stop } from "../next-step.js";
import type { RunContext } from "../run-context.js";
import type { RunState } from "../run-state.js";
import type { RunTracing } from "../../telemetry/index.js";
import { hookReports } from "../hook-reports.js";

export interface CompactStepInput {
  compactor: Compactor;
  history: HistoryEntry[];
  trigger: "auto" | "manual";
  customInstructions?: string;
  afterPromptTooLong?: boolean;
  hooks: HookRunner | undefined;
  model: Model;
  costs: CostTracker;
  stamp: MessageStamp;
  signal: AbortSignal;
  /** Where its `compact_history` span goes; none: untraced. */
  tracing?: RunTracing | undefined;
}

export type CompactStepOutcome = { ok: true; history: HistoryEntry[] } | { ok: false; error: string };

/**
 * Compact the history, with PreCompact/PostCompact hooks around it. Emits the
 * `compact_boundary` and then the compacted history as messages, so a session resumed from
 * the boundary on has exactly what the model will see.
 */
export async function* compactStep(input: CompactStepInput): AsyncGenerator<SDKMessage, CompactStepOutcome> {
  let instructions = input.customInstructions;
  if (input.hooks?.has("PreCompact")) {
    const outcome = await input.hooks.run(
      "PreCompact",
      { trigger: input.trigger, custom_instructions: instructions ?? null },
      { signal: input.signal },
    );
    yield* hookReports(input.stamp, outcome);
    if (outcome.additionalContext.length > 0)
      instructions = [instructions, ...outcome.additionalContext].filter(Boolean).join("\n");
  }
  let result: Awaited<ReturnType<Compactor["compact"]>>;
  const span = input.tracing?.startCompaction(input.trigger);
  try {
    result = await input.compactor.compact(input.history, {
      trigger: input.trigger,
      signal: input.signal,
      ...(instructions !== undefined && { customInstructions: instructions }),
      ...(input.afterPromptTooLong && { afterPromptTooLong: true }),
    });
  } catch (error) {
    span?.failed(error);
    return { ok: false, error: errorMessage(error) };
  }
  span?.end({ preTokens: result.preTokens, postTokens: result.postTokens, usage: result.summaryUsage });
  if (result.summaryUsage) input.costs.add(input.model.id, result.summaryUsage, input.model.info, { compaction: true });
  yield input.stamp.stamp({
    type: "system",
    subtype: "compact_boundary",
    compact_metadata: {
      trigger: result.trigger,
      pre_tokens: result.preTokens,
      post_tokens: result.postTokens,
    },
  });
  for (const entry of result.history) {
    yield entry.role === "user"
      ? input.stamp.user(entry.content, { isSynthetic: true })
      : input.stamp.assistant(entry.message);
  }
  if (input.hooks?.has("PostCompact")) {
    const outcome = await input.hooks.run(
      "PostCompact",
      { trigger: input.trigger, ...(result.summary !== undefined && { compact_summary: result.summary }) },
      { signal: input.signal },
    );
    yield* hookReports(input.stamp, outcome);
  }
  return { ok: true, history: result.history };
}

/** Before a model call: a manual compaction that was asked for, or an automatic one at the threshold. */
export async function* compactIfNeeded(context: RunContext, state: RunState): AsyncGenerator<SDKMessage, NextStep> {
  const request = state.compactRequest;
  const { compactor } = state.modelSettings;
  if (request) {
    state.compactRequest = undefined;
    if (compactor) return yield* compact(context, state, "manual", request.instructions, false);
  }
  if (compactor?.needsCompaction(state.history)) return yield* compact(context, state, "auto", undefined, false);
  return CONTINUE;
}

/** Compact now and adopt the compacted history, or say why the run cannot go on. */
export async function* compact(
  context: RunContext,
  state: RunState,
  trigger: "auto" | "manual",
  customInstructions: string | undefined,
  afterPromptTooLong: boolean,
): AsyncGenerator<SDKMessage, NextStep> {
  const { compactor } = state.modelSettings;
  if (!compactor) return CONTINUE;
  const outcome = yield* compactStep({
    compactor,
    history: state.history,
    trigger,
    ...(customInstructions !== undefined && { customInstructions }),
    afterPromptTooLong,
    hooks: context.hooks,
    model: state.model,
    costs: state.costs,
    stamp: context.stamp,
    signal: context.signal,
    tracing: context.tracing,
  });
  if (!outcome.ok) {
    if (context.signal.aborted) return interrupted(context.signal);
    return stop("context_overflow", { errors: [outcome.error] });
  }
  state.history = outcome.history;
  return CONTINUE;
}

/**
 * The provider compacted the context before its answer (Anthropic's server-side compaction; the
 * answer starts with a compaction block). The stream gets the `compact_boundary` a client-side
 * compaction gives (trigger `auto`, `pre_tokens` as the provider reported them, else estimated)
 * and the kept history after it, as a client-side compaction does, so a session resumed from
 * the boundary on has what the model works from: the first prompt (see
 * `serverCompactedHistory`) and then the answer, which the caller records next. The
 * compaction's tokens are costed apart from the answer's, at the same model's prices.
 */
export function* serverCompacted(
  context: RunContext,
  state: RunState,
  model: Model,
  usage: ServerCompactionUsage | undefined,
): Generator<SDKMessage> {
  if (usage) {
    state.costs.add(
      model.id,
      {
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
      model.info,
      { compaction: true },
    );
  }
  yield context.stamp.stamp({
    type: "system",
    subtype: "compact_boundary",
    compact_metadata: { trigger: "auto", pre_tokens: usage?.inputTokens ?? estimateHistoryTokens(state.history) },
  });
  state.history = serverCompactedHistory(state.history);
  for (const entry of state.history) {
    if (entry.role === "user") yield context.stamp.user(entry.content, { isSynthetic: true });
  }
}
