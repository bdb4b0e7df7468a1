import { GyreError } from "../errors/index.js";
import { providerOfBareModelId } from "./model-families.js";
import { DEFAULT_PRICING } from "./pricing.js";
import { BUILTIN_PROVIDERS, type ProviderConfig } from "./providers.js";
import type { ResolveModelOptions } from "./resolve-model.js";

/** A model Gyre can reach: the string that selects it, and its provider. */
export interface ServableModel {
  /** What `resolveModel` takes: a bare id of a family (`claude-sonnet-4-5`) or `provider/model-id`. */
  id: string;
  provider: string;
}

/**
 * The models that these providers can serve with these keys: each row of the pricing table
 * (Gyre's and `pricing`'s) whose provider has its API key, or needs none. A bare row
 * (`gpt-5`) belongs to its family's provider; a row a family leaves ambiguous is left out.
 * Models a provider serves without a row (a local server's, a new release) are not known here.
 */
export function servableModels(options: Omit<ResolveModelOptions, "fetch"> = {}): ServableModel[] {
  const providers = { ...BUILTIN_PROVIDERS, ...options.providers };
  const env = options.env ?? process.env;
  const names = Object.keys(providers);
  const servable: ServableModel[] = [];
  for (const id of Object.keys({ ...DEFAULT_PRICING, ...options.pricing })) {
    const provider = providerOfRow(id, names);
    const config = provider === undefined ? undefined : providers[provider];
    if (provider !== undefined && config && hasKey(config, env)) servable.push({ id, provider });
  }
  return servable;
}

/** The provider of a pricing row: the part before its `/`, or its family's; undefined when neither names one. */
function providerOfRow(id: string, providers: readonly string[]): string | undefined {
  const slash = id.indexOf("/");
  if (slash > 0) {
    const prefix = id.slice(0, slash);
    return providers.includes(prefix) ? prefix : undefined;
  }
  try {
    return providerOfBareModelId(id, providers);
  } catch (error) {
    if (error instanceof GyreError && error.code === "invalid_model") return undefined;
    throw error;
  }
}

function hasKey(config: ProviderConfig, env: Record<string, string | undefined>): boolean {
  if (!config.requiresApiKey) return true;
  return Boolean(config.apiKey ?? (config.apiKeyEnv ? env[config.apiKeyEnv] : undefined));
}
