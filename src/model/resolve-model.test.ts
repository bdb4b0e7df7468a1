import { describe, expect, it } from "vitest";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { AiSdkModel } from "./ai-sdk/ai-sdk-model.js";
import type { Model } from "./model.js";
import { resolveModel } from "./resolve-model.js";

/** The AI SDK model the adapter wraps. */
function languageModel(model: Model): LanguageModelV3 {
  if (!(model instanceof AiSdkModel)) throw new Error("not the AI SDK adapter");
  return model.languageModel;
}

describe("resolveModel", () => {
  it("resolves each built-in provider through its AI SDK package", async () => {
    const env = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" };
    const anthropic = await resolveModel("anthropic/claude-sonnet-4-5", { env });
    expect(anthropic).toMatchObject({
      id: "anthropic/claude-sonnet-4-5",
      provider: "anthropic",
      modelId: "claude-sonnet-4-5",
    });
    expect(languageModel(anthropic).provider).toMatch(/^anthropic/);
    expect(anthropic.api).toBe("anthropic");
    expect(anthropic.info?.contextWindow).toBe(200_000);
    const openai = await resolveModel("openai/gpt-5", { env });
    expect([languageModel(openai).provider, openai.api]).toEqual(["openai.responses", "openai-responses"]);
    const chat = await resolveModel("openai-chat/gpt-4o", { env });
    expect([languageModel(chat).provider, chat.api]).toEqual(["openai.chat", "openai-chat"]);
    const ollama = await resolveModel("ollama/llama3.2", { env: {} });
    expect(languageModel(ollama).provider).toMatch(/^ollama/);
    expect(ollama.api).toBe("openai-compatible");
  });

  it("fails before any request on a missing key, an unknown provider or a malformed id", async () => {
    await expect(resolveModel("openai/gpt-5", { env: {} })).rejects.toMatchObject({ code: "missing_api_key" });
    await expect(resolveModel("acme/model", { env: {} })).rejects.toMatchObject({ code: "unknown_provider" });
    await expect(resolveModel("no-slash", { env: {} })).rejects.toMatchObject({ code: "invalid_model" });
    await expect(resolveModel("openai-compatible/x", { env: {} })).rejects.toMatchObject({ code: "config_error" });
  });

  it("takes user providers, prices and AI SDK model objects", async () => {
    const custom = await resolveModel("corp/big-model", {
      env: {},
      providers: { corp: { type: "openai-compatible", baseURL: "http://127.0.0.1:9/v1" } },
      pricing: { "big-model": { input: 1, output: 2 } },
    });
    expect(custom.info).toEqual({ input: 1, output: 2 });
    const direct = await resolveModel(languageModel(custom));
    expect(direct).toMatchObject({ id: "corp/big-model", api: "other", info: undefined });
  });
});
