import type { LanguageModelV3 } from "@ai-sdk/provider";
import { GyreError } from "../errors/index.js";
import { AiSdkModel, apiOfLanguageModel } from "./ai-sdk/ai-sdk-model.js";
import type { Model, ModelApi } from "./model.js";
import { providerOfBareModelId } from "./model-families.js";
import { DEFAULT_PRICING, lookupModelInfo, type PricingTable } from "./pricing.js";
import { BUILTIN_PROVIDERS, type ProviderConfig } from "./providers.js";
import { isTextProtocolModel, wrapTextProtocol } from "./text-protocol/index.js";

export type Env = Record<string, string | undefined>;

export interface ResolveModelOptions {
  /** Defaults to `process.env`. */
  env?: Env;
  /** Extra or overriding providers, by the name used before the `/`. */
  providers?: Record<string, ProviderConfig>;
  /** Overrides and additions to the pricing table, by model id. */
  pricing?: PricingTable;
  /** A fetch implementation for the provider (tests, proxies). */
  fetch?: typeof globalThis.fetch;
}

/**
 * Resolve `"provider/model-id"`, a bare model id of a known family (`"claude-sonnet-4-5"`,
 * `"gpt-5"`, `"gemini-2.5-pro"`) or an AI SDK language model object to a {@link Model}: the
 * AI SDK adapter over the provider's package, wrapped in the text tool protocol when the
 * provider is configured with `toolProtocol: "text"`. A missing API key or an unknown
 * provider fails here, before any request is sent. Provider packages are imported on demand
 * so start-up loads only the one in use.
 */
export async function resolveModel(
  spec: string | LanguageModelV3 | Model,
  options: ResolveModelOptions = {},
): Promise<Model> {
  const pricing = { ...DEFAULT_PRICING, ...options.pricing };
  // Already a Model (one of ours, or the caller's own implementation): used as it is.
  if (typeof spec !== "string" && "stream" in spec) return spec;
  if (typeof spec !== "string") {
    const provider = spec.provider.split(".")[0] ?? spec.provider;
    return new AiSdkModel(spec, {
      id: `${provider}/${spec.modelId}`,
      provider,
      modelId: spec.modelId,
      info: lookupModelInfo(spec.modelId, pricing),
      api: apiOfLanguageModel(spec),
      freeformTools: takesFreeformTools(spec, apiOfLanguageModel(spec)),
      serverSearch: searchesItself(spec, provider, apiOfLanguageModel(spec)),
    });
  }
  const providers = { ...BUILTIN_PROVIDERS, ...options.providers };
  const { providerName, modelId } = splitModelSpec(spec, Object.keys(providers));
  const config = providers[providerName];
  if (!config) {
    throw new GyreError(
      "unknown_provider",
      `Unknown model provider "${providerName}" in "${spec}". Known providers: ${Object.keys(providers).join(", ")}. ` +
        `Add others with the "providers" option.`,
    );
  }
  const env = options.env ?? process.env;
  const created = await createLanguageModel(providerName, modelId, config, env, options.fetch);
  const rules = {
    ...(config.textProtocol?.strict && { requireServerName: true }),
    ...(config.textProtocol?.oneCallPerTurn && { oneCallPerTurn: true }),
  };
  const model = config.toolProtocol === "text" ? wrapTextProtocol(created, rules) : created;
  return new AiSdkModel(model, {
    id: `${providerName}/${modelId}`,
    provider: providerName,
    modelId,
    info: lookupModelInfo(modelId, pricing, providerName),
    api: apiOfConfig(config),
    freeformTools: takesFreeformTools(model, apiOfConfig(config)),
    serverSearch: searchesItself(model, config.type, apiOfConfig(config)),
  });
}

/** `provider/model-id`, or a bare id whose family names its provider (`claude-sonnet-4-5`). */
function splitModelSpec(spec: string, knownProviders: string[]): { providerName: string; modelId: string } {
  const slash = spec.indexOf("/");
  if (slash === -1 && spec.trim() !== "") {
    return { providerName: providerOfBareModelId(spec, knownProviders), modelId: spec };
  }
  if (slash <= 0 || slash === spec.length - 1) {
    throw new GyreError(
      "invalid_model",
      `Model "${spec}" must look like "provider/model-id", e.g. "anthropic/claude-sonnet-4-5".`,
    );
  }
  return { providerName: spec.slice(0, slash), modelId: spec.slice(slash + 1) };
}

async function createLanguageModel(
  providerName: string,
  modelId: string,
  config: ProviderConfig,
  env: Env,
  fetch: typeof globalThis.fetch | undefined,
): Promise<LanguageModelV3> {
  const apiKey = config.apiKey ?? (config.apiKeyEnv ? env[config.apiKeyEnv] : undefined);
  if (config.requiresApiKey && !apiKey) {
    throw new GyreError(
      "missing_api_key",
      `No API key for provider "${providerName}": set ${config.apiKeyEnv ?? "an API key"} or pass providers.${providerName}.apiKey.`,
    );
  }
  const baseURL = config.baseURL ?? (config.baseURLEnv ? env[config.baseURLEnv] : undefined) ?? config.defaultBaseURL;
  const common = { apiKey, headers: config.headers, fetch };
  switch (config.type) {
    case "anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ ...common, baseURL: baseURL && withV1(baseURL) })(modelId);
    }
    case "openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      const provider = createOpenAI({ ...common, baseURL });
      return config.api === "chat" ? provider.chat(modelId) : provider.responses(modelId);
    }
    case "google": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      return createGoogleGenerativeAI({ ...common, baseURL })(modelId);
    }
    case "azure": {
      const resourceName = env.AZURE_RESOURCE_NAME;
      if (!baseURL && !resourceName) {
        throw new GyreError(
          "config_error",
          `Provider "${providerName}" needs its endpoint: set ${config.baseURLEnv ?? "baseURL"} (https://NAME.openai.azure.com/openai/v1) or AZURE_RESOURCE_NAME.`,
        );
      }
      const { createAzure } = await import("@ai-sdk/azure");
      const provider = createAzure({ ...common, baseURL, resourceName });
      return config.api === "chat" ? provider.chat(modelId) : provider.responses(modelId);
    }
    case "openai-compatible": {
      if (!baseURL) {
        throw new GyreError(
          "config_error",
          `Provider "${providerName}" needs a base URL: set ${config.baseURLEnv ?? "baseURL"} or providers.${providerName}.baseURL.`,
        );
      }
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ ...common, name: providerName, baseURL, includeUsage: true })(modelId);
    }
  }
}

/**
 * Anthropic's own SDKs take a base URL without the API version (`https://api.anthropic.com`)
 * while the AI SDK wants it with `/v1`; accept both so existing environments work unchanged.
 */
function withV1(baseURL: string): string {
  const trimmed = baseURL.replace(/\/+$/, "");
  return /\/v\d+$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/** OpenAI's Responses API has freeform tools; the text protocol describes every tool as a function in the prompt. */
function takesFreeformTools(model: LanguageModelV3, api: ModelApi): boolean {
  return api === "openai-responses" && !isTextProtocolModel(model);
}

/**
 * Anthropic's Messages API, OpenAI's own Responses API and the Gemini API (grounding with Google
 * Search) run a web search themselves (Azure's Responses API has no `web_search` tool); a
 * text-protocol model only reads tools from its prompt.
 */
function searchesItself(model: LanguageModelV3, family: string, api: ModelApi): boolean {
  if (isTextProtocolModel(model)) return false;
  return (
    (family === "anthropic" && api === "anthropic") ||
    (family === "openai" && api === "openai-responses") ||
    (family === "google" && api === "google")
  );
}

function apiOfConfig(config: ProviderConfig): ModelApi {
  if (config.type === "openai" || config.type === "azure")
    return config.api === "chat" ? "openai-chat" : "openai-responses";
  return config.type;
}
