import { describe, expect, it } from "vitest";
import { servableModels } from "./servable-models.js";

describe("servableModels", () => {
  it("lists the priced models of the providers that have a key, bare rows by their family", () => {
    const models = servableModels({ env: { ANTHROPIC_API_KEY: "a", XAI_API_KEY: "x" } });
    const ids = models.map((model) => model.id);
    expect(ids).toContain("claude-sonnet-4-5");
    expect(ids).toContain("xai/grok-4");
    expect(ids.some((id) => id.startsWith("gpt-") || id.startsWith("gemini-") || id.startsWith("deepseek/"))).toBe(
      false,
    );
    expect(models.find((model) => model.id === "claude-sonnet-4-5")?.provider).toBe("anthropic");
  });

  it("adds the config's priced models of its own providers, and leaves out rows no provider serves", () => {
    const models = servableModels({
      env: {},
      providers: { gateway: { type: "anthropic", apiKey: "k", requiresApiKey: true } },
      pricing: { "gateway/house": { input: 1, output: 2 }, "llama-3-local": { input: 0, output: 0 } },
    });
    expect(models).toEqual([{ id: "gateway/house", provider: "gateway" }]);
  });
});
