// The pricing table against a fixture of the providers' published list prices: every row of
// the model makers' current models is checked, and no row goes unchecked; the default model is
// the newest Sonnet the table knows.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL, DEFAULT_PRICING, lookupModelInfo, PRICES_AS_OF } from "../src/index.js";
import { MODEL_ALIASES } from "../src/run/index.js";
import { costOf } from "../src/model/cost.js";
import { emptyUsage } from "../src/protocol/index.js";

interface Fixture {
  asOf: string;
  sources: Record<string, string>;
  models: Record<string, Record<string, unknown>>;
  limits: Record<string, { contextWindow: number; maxOutputTokens: number }>;
  modelSources: Record<string, string[]>;
}
const fixture = JSON.parse(readFileSync(new URL("./fixtures/list-prices.json", import.meta.url), "utf8")) as Fixture;
const MAKERS = ["anthropic", "openai", "google"];

describe("the pricing table", () => {
  it("is dated as the fixture of list prices it was checked against", () => {
    expect(PRICES_AS_OF).toBe(fixture.asOf);
    expect(Object.keys(fixture.sources).sort()).toEqual([...MAKERS].sort());
  });

  it.each(Object.entries(fixture.models))("prices %s at its list price", (id, prices) => {
    const [provider = "", ...rest] = id.split("/");
    const info = lookupModelInfo(rest.join("/"), DEFAULT_PRICING, provider);
    const { contextWindow: _window, maxOutputTokens: _output, webSearch, ...rates } = info ?? {};
    expect(rates).toEqual(prices);
    // Anthropic bills its server-side web search at $10 per 1,000 searches, every model alike.
    if (provider === "anthropic") expect(webSearch).toBe(0.01);
  });

  it.each(Object.entries(fixture.limits))("knows %s's context window and output limit", (id, limits) => {
    const [provider = "", ...rest] = id.split("/");
    const info = lookupModelInfo(rest.join("/"), DEFAULT_PRICING, provider);
    expect({ contextWindow: info?.contextWindow, maxOutputTokens: info?.maxOutputTokens }).toEqual(limits);
  });

  it("says where each newly checked row's prices came from", () => {
    const models = Object.keys(fixture.models);
    expect(Object.keys(fixture.limits).filter((id) => !models.includes(id))).toEqual([]);
    expect(Object.keys(fixture.modelSources).filter((id) => !models.includes(id))).toEqual([]);
    for (const urls of Object.values(fixture.modelSources)) {
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls)
        expect(url).toMatch(/^https:\/\/(platform\.claude\.com|developers\.openai\.com|ai\.google\.dev)\//);
    }
  });

  it("prices Claude Opus 4.6, the Go SDK's default, at its own row with a 1M window and 128k output", () => {
    const info = lookupModelInfo("claude-opus-4-6");
    expect(info).toBe(DEFAULT_PRICING["claude-opus-4-6"]);
    expect(info).toMatchObject({ input: 5, output: 25, contextWindow: 1_000_000, maxOutputTokens: 128_000 });
    // Before it had a row, the prefix fallback billed it as Claude Opus 4, at three times the price.
    expect(lookupModelInfo("claude-opus-4-6-20260205")).toBe(info);
    expect(lookupModelInfo("claude-sonnet-4-6")).not.toBe(DEFAULT_PRICING["claude-sonnet-4"]);
  });

  it("defaults to the newest Sonnet of the table, as the sonnet alias does", () => {
    const sonnets = Object.keys(DEFAULT_PRICING)
      .map((key) => /^claude-sonnet-(\d+)(?:-(\d+))?$/.exec(key))
      .filter((match) => match !== null)
      .map((match) => ({ id: match[0], version: [Number(match[1]), Number(match[2] ?? 0)] as const }))
      .sort((a, b) => b.version[0] - a.version[0] || b.version[1] - a.version[1]);
    expect(sonnets[0]?.id).toBe("claude-sonnet-5-5");
    expect(DEFAULT_MODEL).toBe(`anthropic/${sonnets[0]?.id}`);
    expect(MODEL_ALIASES.sonnet).toBe(DEFAULT_MODEL);
  });

  it("bills Claude Haiku 5.5's prompts past 100k tokens and GPT-6.2 Sol's past 272k at the higher rate", () => {
    const haiku = lookupModelInfo("claude-haiku-5-5");
    const short = costOf(
      { ...emptyUsage(), input_tokens: 90_000, cache_read_input_tokens: 10_000, output_tokens: 1000 },
      haiku,
    );
    const long = costOf(
      { ...emptyUsage(), input_tokens: 90_001, cache_read_input_tokens: 10_000, output_tokens: 1000 },
      haiku,
    );
    expect(short.toString()).toBe("0.0096");
    expect(long.toString()).toBe("0.0480005");
    const sol = lookupModelInfo("gpt-6.2-sol");
    expect(costOf({ ...emptyUsage(), input_tokens: 272_000 }, sol).toString()).toBe("0.544");
    expect(costOf({ ...emptyUsage(), input_tokens: 272_001 }, sol).toString()).toBe("1.088004");
  });

  it("has no row of Anthropic's, OpenAI's or Google's models that the fixture does not check", () => {
    const checked = new Set(Object.keys(fixture.models).map((id) => id.slice(id.indexOf("/") + 1)));
    const unchecked = Object.keys(DEFAULT_PRICING).filter((key) => !key.includes("/") && !checked.has(key));
    expect(unchecked).toEqual([]);
  });

  it("finds dated snapshots by their family, and bills Gemini Pro's long prompts at the higher rate", () => {
    expect(lookupModelInfo("claude-haiku-4-5-20251001")).toBe(DEFAULT_PRICING["claude-haiku-4-5"]);
    expect(lookupModelInfo("gpt-5-mini-2025-08-07")).toBe(DEFAULT_PRICING["gpt-5-mini"]);
    expect(lookupModelInfo("gemini-2.5-flash-lite-preview-09-2025")).toBe(DEFAULT_PRICING["gemini-2.5-flash-lite"]);
    const info = lookupModelInfo("gemini-2.5-pro");
    const short = costOf({ ...emptyUsage(), input_tokens: 200_000, output_tokens: 1000 }, info);
    const long = costOf({ ...emptyUsage(), input_tokens: 200_001, output_tokens: 1000 }, info);
    expect(short.toString()).toBe("0.26");
    expect(long.toString()).toBe("0.5150025");
  });
});
