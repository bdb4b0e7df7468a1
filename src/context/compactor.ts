import { GyreError } from "../errors/index.js";
import type { Model, ProviderOptions } from "../model/index.js";
import type { HistoryEntry, Usage, UserContentBlock } from "../protocol/index.js";
import { summaryMessage } from "./compaction-prompt.js";
import { toolResults, userBlocks } from "./history.js";
import { pruneToolOutputs } from "./prune.js";
import { type AnthropicServerCompactionOptions, anthropicServerCompaction } from "./server-compaction.js";
import { requestSummary } from "./summarize.js";
import { tailStart } from "./tail.js";
import { estimateEntryTokens, estimateHistoryTokens, estimateTextTokens, usageTokens } from "./token-count.js";
import { renderTranscript } from "./transcript.js";

export const DEFAULT_CONTEXT_WINDOW = 200_000;

export interface CompactorOptions {
  model: Model;
  /** Default: `model.info.contextWindow`, else 200,000. */
  contextWindow?: number;
  /** Tokens kept free for the model's answer. Default: the model's max output, capped at 32,000. */
  outputReserveTokens?: number;
  /** Safety margin for estimation error. Default 13,000 (or 10% of small windows). */
  bufferTokens?: number;
  /** Compact above this many tokens. Default: window − output reserve − buffer. */
  thresholdTokens?: number;
  /** Assistant turns kept verbatim after a summary. Default 3. */
  keepRecentTurns?: number;
  /** Estimated tokens the kept turns may hold. Default: a quarter of the threshold. */
  keepRecentTokens?: number;
  /** Tool output tokens, newest first, never pruned. Default: a quarter of the threshold, at most 40,000. */
  protectToolOutputTokens?: number;
  /** Output limit of the summary call. Default: 8,000, at most the output reserve. */
  summaryMaxTokens?: number;
  /** The system prompt and tool definitions, counted when no usage report covers the history. */
  systemPrompt?: string;
  tools?: unknown;
  /** Provider options for the summary call. */
  providerOptions?: ProviderOptions;
  /**
   * Let Anthropic compact server-side at the threshold (see `anthropicServerCompaction`);
   * client compaction then stays as a fallback at window − output reserve.
   */
  serverSide?: boolean | AnthropicServerCompactionOptions;
}

/** How a compaction was asked for. */
export interface CompactOptions {
  /** `auto`: the compactor said it was due, or the provider found the prompt too long; `manual`: `Query.compact()`. */
  trigger: "manual" | "auto";
  /** The run's signal: a compaction that calls a model should stop with it. */
  signal?: AbortSignal;
  /** Extra instructions for the summary (PreCompact hook output, `/compact <text>`). */
  customInstructions?: string;
  /** The provider rejected the prompt as too long: skip the pruning-only shortcut, keep no tail. */
  afterPromptTooLong?: boolean;
}

/** What a compaction gives back; the loop goes on with `history` and reports the rest. */
export interface CompactionResult {
  /** The history the run goes on with: a valid conversation (a user message first, every call answered). */
  history: HistoryEntry[];
  /** The trigger it was asked with, for the `compact_boundary` message. */
  trigger: "manual" | "auto";
  /** Tokens before the compaction (the boundary's `pre_tokens`). */
  preTokens: number;
  /** Tokens after it (the boundary's `post_tokens`). */
  postTokens: number;
  /** The summary text, when older turns were summarized. */
  summary?: string;
  /** Tool outputs replaced by a note in the returned history (0 when older turns were summarized). */
  pruned: number;
  /** What the summary call used, for cost tracking. */
  summaryUsage?: Usage;
}

/**
 * What the loop compacts a run's history with (the `compactor` option replaces Gyre's own,
 * {@link SummaryCompactor}). Before each model call the loop asks `needsCompaction`; when it
 * says yes, when `Query.compact()` asked for it (trigger `manual`) or when the provider found
 * the prompt too long (`afterPromptTooLong`), it calls `compact` and goes on with the returned
 * history, which must be a valid conversation (it starts with a user message, and every tool
 * call keeps its result). A `compact` that throws ends the run with `context_overflow`.
 */
export interface Compactor {
  /** Asked before every model call: whether to compact now. */
  needsCompaction(history: readonly HistoryEntry[]): boolean;
  /** Compacts; the input must not be changed. A throw ends the run with `context_overflow`. */
  compact(history: readonly HistoryEntry[], options: CompactOptions): Promise<CompactionResult>;
  /** Provider options to merge into every model call (e.g. the provider's own compaction). */
  providerOptions?(): ProviderOptions | undefined;
}

/**
 * Gyre's compactor. Keeps a conversation inside the model's context window: counts tokens from the provider's
 * last usage report plus a chars/4 estimate of what came after it, and when over the
 * threshold prunes old tool outputs, then summarizes older turns with the same model. The
 * result is always a valid history (see `historyProblems`); when nothing gets it under the
 * threshold, `compact` throws `GyreError("context_overflow")` after at most two summary calls.
 */
export class SummaryCompactor implements Compactor {
  readonly model: Model;
  readonly contextWindow: number;
  /** Client compaction starts above this many tokens. */
  readonly thresholdTokens: number;
  readonly #options: CompactorOptions;
  readonly #outputReserve: number;
  readonly #serverThreshold: number | undefined;
  readonly #overheadTokens: number;
  /** Assistant messages whose usage reports predate the last compaction. */
  readonly #stale = new WeakSet<object>();
  #baseline: { entry: HistoryEntry; tokens: number } | undefined;

  constructor(options: CompactorOptions) {
    this.#options = options;
    this.model = options.model;
    const info = options.model.info;
    this.contextWindow = options.contextWindow ?? info?.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
    this.#outputReserve = options.outputReserveTokens ?? Math.min(info?.maxOutputTokens ?? 32_000, 32_000);
    const buffer = options.bufferTokens ?? Math.min(13_000, Math.floor(this.contextWindow / 10));
    const threshold = options.thresholdTokens ?? this.contextWindow - this.#outputReserve - buffer;
    if (options.serverSide && options.model.api === "anthropic") {
      this.#serverThreshold = threshold;
      this.thresholdTokens = Math.max(threshold, this.contextWindow - this.#outputReserve);
    } else {
      this.thresholdTokens = threshold;
    }
    this.#overheadTokens =
      estimateTextTokens(options.systemPrompt ?? "") +
      (options.tools === undefined ? 0 : estimateTextTokens(JSON.stringify(options.tools)));
  }

  /**
   * Provider options to merge into every model call (Anthropic server-side compaction), or
   * undefined when it is off or the model is not Anthropic's.
   */
  providerOptions(): ProviderOptions | undefined {
    const serverSide = this.#options.serverSide;
    if (!serverSide || this.#serverThreshold === undefined) return undefined;
    return anthropicServerCompaction({
      triggerTokens: this.#serverThreshold,
      ...(typeof serverSide === "object" && serverSide),
    });
  }

  /**
   * Tokens the history takes: the newest usage report (input + cache + output tokens) plus
   * a chars/4 estimate of the entries after it. Reports from before a compaction are ignored.
   */
  contextTokens(history: readonly HistoryEntry[]): number {
    let estimate = 0;
    for (let index = history.length - 1; index >= 0; index--) {
      const entry = history[index] as HistoryEntry;
      if (entry === this.#baseline?.entry) return this.#baseline.tokens + estimate;
      if (entry.role === "assistant" && !this.#stale.has(entry.message)) {
        const reported = usageTokens(entry.message.usage);
        if (reported > 0) return reported + estimate;
      }
      estimate += estimateEntryTokens(entry);
    }
    return estimate + this.#overheadTokens;
  }

  /** Whether the next model call should be preceded by `compact`. */
  needsCompaction(history: readonly HistoryEntry[]): boolean {
    return this.contextTokens(history) > this.thresholdTokens;
  }

  /**
   * Shrink the history: prune old tool outputs, and if that is not enough (or the trigger is
   * manual) summarize everything between the first user message and the recent tail.
   * The input array and its entries are not changed.
   */
  async compact(history: readonly HistoryEntry[], options: CompactOptions): Promise<CompactionResult> {
    const preTokens = this.contextTokens(history);
    const keepFrom = options.afterPromptTooLong ? history.length : this.#tailStart(history);
    const protectTokens = options.afterPromptTooLong ? 0 : this.#protectTokens();
    const pruned = pruneToolOutputs(history, { keepFrom, protectTokens });
    const prunedTokens = Math.max(0, preTokens - pruned.savedTokens);
    const base = { trigger: options.trigger, preTokens, pruned: pruned.pruned };
    if (options.trigger === "auto" && !options.afterPromptTooLong && pruned.pruned > 0) {
      if (prunedTokens <= this.thresholdTokens)
        return this.#finish(history, { ...base, history: pruned.history, postTokens: prunedTokens });
    }
    let lastPost = prunedTokens;
    for (const start of uniqueStarts(keepFrom, history.length)) {
      const attempt = await this.#summarize(history, start, options);
      if (!attempt) continue;
      lastPost = attempt.postTokens;
      // The summary replaces the pruned part and the tail is never pruned: no notes remain.
      if (attempt.postTokens <= this.thresholdTokens) return this.#finish(history, { ...base, pruned: 0, ...attempt });
    }
    throw new GyreError(
      "context_overflow",
      `The conversation does not fit the context window: about ${lastPost} tokens after compaction, ` +
        `the limit is ${this.thresholdTokens} (window ${this.contextWindow}).`,
    );
  }

  async #summarize(
    history: readonly HistoryEntry[],
    start: number,
    options: CompactOptions,
  ): Promise<Pick<CompactionResult, "history" | "postTokens" | "summary" | "summaryUsage"> | undefined> {
    const first = history[0];
    if (first?.role !== "user") return undefined;
    const last = history.at(-1);
    // Without a tail, a fresh user prompt at the end is carried over verbatim, not summarized.
    const carried =
      start >= history.length && last?.role === "user" && history.length > 1 && toolResults(last).length === 0
        ? last
        : undefined;
    const middle = history.slice(1, carried ? history.length - 1 : start);
    if (middle.length === 0) return undefined;
    const summaryMaxTokens = Math.min(this.#options.summaryMaxTokens ?? 8_000, this.#outputReserve);
    const transcriptBudget = (this.contextWindow - summaryMaxTokens - this.#overheadTokens - 2_000) * 4;
    const { summary, usage } = await requestSummary({
      model: this.model,
      transcript: renderTranscript(middle, { maxChars: Math.max(4_000, transcriptBudget) }),
      customInstructions: options.customInstructions,
      maxOutputTokens: summaryMaxTokens,
      signal: options.signal,
      providerOptions: this.#options.providerOptions,
    });
    const head: UserContentBlock[] = [
      ...userBlocks(first).filter((block) => block.type !== "tool_result"),
      { type: "text", text: summaryMessage(summary) },
      ...(carried ? userBlocks(carried) : []),
    ];
    const compacted: HistoryEntry[] = [{ role: "user", content: head }, ...history.slice(start)];
    const postTokens = this.#overheadTokens + estimateHistoryTokens(compacted);
    return { history: compacted, postTokens, summary, summaryUsage: usage };
  }

  #finish(original: readonly HistoryEntry[], result: CompactionResult): CompactionResult {
    for (const entry of original) if (entry.role === "assistant") this.#stale.add(entry.message);
    const last = result.history.at(-1);
    this.#baseline = last ? { entry: last, tokens: result.postTokens } : undefined;
    return result;
  }

  #tailStart(history: readonly HistoryEntry[]): number {
    return tailStart(history, {
      turns: this.#options.keepRecentTurns ?? 3,
      maxTokens: this.#options.keepRecentTokens ?? Math.floor(this.thresholdTokens / 4),
    });
  }

  #protectTokens(): number {
    return this.#options.protectToolOutputTokens ?? Math.min(40_000, Math.floor(this.thresholdTokens / 4));
  }
}

/** Summary attempts: with the recent tail, then without it. */
function uniqueStarts(keepFrom: number, length: number): number[] {
  return keepFrom < length ? [keepFrom, length] : [length];
}
