// The pricing table against a fixture of the providers' published list prices: every row of
// the model makers' current models is checked, and no row goes unchecked.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRICING, lookupModelInfo, PRICES_AS_OF } from "../src/index.js";
import { costOf } from "../src/model/cost.js";
import { emptyUsage } from "../src/protocol/index.js";

interface Fixture {
  asOf: string;
  sources: Record<string, string>;
  models: Record<string, Record<string, unknown>>;
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
    const { contextWindow: _window, maxOutputTokens: _output, ...rates } = info ?? {};
    expect(rates).toEqual(prices);
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
