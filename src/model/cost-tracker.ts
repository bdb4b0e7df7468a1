import { addUsage, emptyUsage, type ModelUsage, type Usage } from "../protocol/index.js";
import { costOf, Decimal } from "./cost.js";
import type { ModelInfo } from "./pricing.js";

interface Entry {
  usage: Usage;
  cost: Decimal;
  contextWindow: number;
  maxOutputTokens: number;
}

/** Accumulates usage and exact cost per model across the turns of a run. */
export class CostTracker {
  readonly #byModel = new Map<string, Entry>();
  #total = new Decimal(0);
  #usage: Usage = emptyUsage();

  /** Record one model call; returns its cost in dollars. */
  add(model: string, usage: Usage, info: ModelInfo | undefined): number {
    const cost = costOf(usage, info);
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
    return cost.toNumber();
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

  modelUsage(): Record<string, ModelUsage> {
    const out: Record<string, ModelUsage> = {};
    for (const [model, entry] of this.#byModel) {
      out[model] = {
        inputTokens: entry.usage.input_tokens,
        outputTokens: entry.usage.output_tokens,
        cacheReadInputTokens: entry.usage.cache_read_input_tokens,
        cacheCreationInputTokens: entry.usage.cache_creation_input_tokens,
        webSearchRequests: 0,
        costUSD: entry.cost.toNumber(),
        contextWindow: entry.contextWindow,
        maxOutputTokens: entry.maxOutputTokens,
      };
    }
    return out;
  }
}
