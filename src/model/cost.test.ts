import { describe, expect, it } from "vitest";
import { emptyUsage } from "../protocol/index.js";
import { costOf } from "./cost.js";
import { CostTracker } from "./cost-tracker.js";
import { DEFAULT_PRICING, lookupModelInfo } from "./pricing.js";

describe("pricing lookup", () => {
  it("finds exact ids, dated snapshots and families by longest prefix", () => {
    expect(lookupModelInfo("claude-sonnet-4-5")).toBe(DEFAULT_PRICING["claude-sonnet-4-5"]);
    expect(lookupModelInfo("claude-sonnet-4-5-20250929")).toBe(DEFAULT_PRICING["claude-sonnet-4-5"]);
    expect(lookupModelInfo("gpt-5-mini-2025-08-07")).toBe(DEFAULT_PRICING["gpt-5-mini"]);
    expect(lookupModelInfo("gpt-4o-mini")).toBe(DEFAULT_PRICING["gpt-4o-mini"]);
    expect(lookupModelInfo("llama3.2")).toBeUndefined();
  });
});

describe("costOf", () => {
  const usage = {
    input_tokens: 100_000,
    output_tokens: 100_000,
    cache_creation_input_tokens: 10_000,
    cache_read_input_tokens: 20_000,
  };

  it("prices input, output, cache writes and cache reads separately", () => {
    // (100k*3 + 100k*15 + 10k*3.75 + 20k*0.3) per million
    expect(costOf(usage, DEFAULT_PRICING["claude-sonnet-4-5"]).toNumber()).toBe(1.8435);
  });

  it("switches the whole request to the long-context tier past its threshold", () => {
    const long = { ...usage, input_tokens: 250_000 };
    // 250k*6 + 100k*22.5 + 10k*7.5 + 20k*0.6, per million
    expect(costOf(long, DEFAULT_PRICING["claude-sonnet-4-5"]).toNumber()).toBe(3.837);
  });

  it("charges cache tokens at the input price when the model has no cache prices", () => {
    // (100k + 10k + 20k)*1 + 100k*2, per million
    expect(costOf(usage, { input: 1, output: 2 }).toNumber()).toBe(0.33);
  });

  it("costs nothing for a model without prices", () => {
    expect(costOf(usage, undefined).toNumber()).toBe(0);
  });
});

describe("CostTracker", () => {
  it("adds thousands of small costs without float drift, per model", () => {
    const tracker = new CostTracker();
    const info = { input: 0.1, output: 0.3 };
    for (let i = 0; i < 3000; i++) tracker.add("a/x", { ...emptyUsage(), input_tokens: 1, output_tokens: 1 }, info);
    tracker.add("b/y", { ...emptyUsage(), input_tokens: 10 }, { input: 1, output: 1, contextWindow: 1000 });
    // 3000 * 0.4e-6 = 0.0012 exactly, plus 10e-6.
    expect(tracker.totalCostUsd).toBe(0.00121);
    expect(tracker.modelUsage()["a/x"]).toMatchObject({ inputTokens: 3000, outputTokens: 3000, costUSD: 0.0012 });
    expect(tracker.modelUsage()["b/y"]).toMatchObject({ costUSD: 0.00001, contextWindow: 1000 });
    expect(tracker.usage.input_tokens).toBe(3010);
  });
});
