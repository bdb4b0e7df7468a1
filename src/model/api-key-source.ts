import type { ApiKeySource } from "../protocol/index.js";
import { BUILTIN_PROVIDERS, type ProviderConfig } from "./providers.js";

/**
 * Where a run's API key comes from, in the Claude Agent SDK's terms (the init message's
 * `apiKeySource`): `ANTHROPIC_API_KEY` when that variable holds it, `user` for any other key the
 * caller gave (another variable, `providers.*.apiKey`, a model object built by the caller), and
 * `none` when the provider was reached without a key (local servers).
 */
export function apiKeySource(
  provider: string,
  options: { providers?: Record<string, ProviderConfig>; env?: Record<string, string | undefined> },
  builtByCaller: boolean,
): ApiKeySource {
  if (builtByCaller) return "user";
  const config = options.providers?.[provider] ?? BUILTIN_PROVIDERS[provider];
  if (!config) return "user";
  if (config.apiKey) return "user";
  const env = options.env ?? process.env;
  if (!config.apiKeyEnv || !env[config.apiKeyEnv]) return "none";
  return config.apiKeyEnv === "ANTHROPIC_API_KEY" ? "ANTHROPIC_API_KEY" : "user";
}
