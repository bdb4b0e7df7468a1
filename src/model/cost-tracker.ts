import { addUsage, emptyUsage, type ModelUsage, type Usage, webSearchRequests } from "../protocol/index.js";
import { costOf, Decimal } from "./cost.js";
import type { ModelInfo } from "./pricing.js";

interface Entry {
  usage: Usage;
  cost: Decimal;
  contextWindow: number;
  maxOutputTokens: number;
}

/**
 * Accumulates usage and exact cost per model across the turns of a run. Tokens of a model
 * with no known price are counted but not costed; such models are listed in
 * {@link unpricedModels} so that a total is never passed off as complete.
 */
export class CostTracker {
  readonly #byModel = new Map<string, Entry>();
  readonly #unpriced = new Set<string>();
  #total = new Decimal(0);
  #usage: Usage = emptyUsage();
  /** What compaction spent (summary calls, a provider's own compaction); undefined until one is counted. */
  #compaction: { usage: Usage; cost: Decimal } | undefined;
  readonly #parent: CostTracker | undefined;

  /** `parent`: a tracker every call is also added to (a subagent's usage rolls up into its parent's). */
  constructor(options: { parent?: CostTracker } = {}) {
    this.#parent = options.parent;
  }

  /**
   * Record one model call; returns its cost in dollars, or `undefined` when the model has no
   * price. `compaction`: the call compacted the context (counted in the totals, and apart).
   */
  add(model: string, usage: Usage, info: ModelInfo | undefined, kind?: { compaction: true }): number | undefined {
    const cost = costOf(usage, info);
    if (!info && totalTokens(usage) > 0) this.#unpriced.add(model);
    const entry = this.#byModel.get(model) ?? {
      usage: emptyUsage(),
      cost: new Decimal(0),
      contextWindow: 0,
      maxOutputTokens: 0,
    };
    entry.usage = addUsage(entry.usage, usage);
    entry.cost = entry.cost.plus(cost);
    entry.contextWindow = info?.contextWindow ?? entry.contextWindow;
    entry.maxOutputTokens = info?.maxOutputTokens ?? entry.maxOutputTokens;
    this.#byModel.set(model, entry);
    this.#total = this.#total.plus(cost);
    this.#usage = addUsage(this.#usage, usage);
    if (kind?.compaction) {
      const before = this.#compaction ?? { usage: emptyUsage(), cost: new Decimal(0) };
      this.#compaction = { usage: addUsage(before.usage, usage), cost: before.cost.plus(cost) };
    }
    this.#parent?.add(model, usage, info, kind);
    return info ? cost.toNumber() : undefined;
  }

  /** Models whose tokens the total does not include, for want of a price: the true cost is unknown. */
  get unpricedModels(): string[] {
    return [...this.#unpriced];
  }

  /** Every token counted so far, input (cache included) and output: what a token budget limits. */
  get totalTokens(): number {
    return totalTokens(this.#usage);
  }

  get totalCostUsd(): number {
    return this.#total.toNumber();
  }

  /** The exact total, for budget comparisons without float error. */
  get totalCost(): Decimal {
    return this.#total;
  }

  get usage(): Usage {
    return { ...this.#usage };
  }

  /** What compaction spent, in dollars, out of the total; undefined when nothing was compacted. */
  get compactionCostUsd(): number | undefined {
    return this.#compaction?.cost.toNumber();
  }

  /** The tokens compaction used, out of {@link usage}; undefined when nothing was compacted. */
  get compactionUsage(): Usage | undefined {
    return this.#compaction && { ...this.#compaction.usage };
  }

  modelUsage(): Record<string, ModelUsage> {
    const out: Record<string, ModelUsage> = {};
    for (const [model, entry] of this.#byModel) {
      out[model] = {
        inputTokens: entry.usage.input_tokens,
        outputTokens: entry.usage.output_tokens,
        cacheReadInputTokens: entry.usage.cache_read_input_tokens,
        cacheCreationInputTokens: entry.usage.cache_creation_input_tokens,
        webSearchRequests: webSearchRequests(entry.usage),
        costUSD: entry.cost.toNumber(),
        contextWindow: entry.contextWindow,
        maxOutputTokens: entry.maxOutputTokens,
      };
    }
    return out;
  }
}

function totalTokens(usage: Usage): number {
  return usage.input_tokens + usage.output_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
}
