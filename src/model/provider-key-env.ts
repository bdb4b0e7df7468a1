import { BUILTIN_PROVIDERS, type ProviderConfig } from "./providers.js";

/**
 * Names of the environment variables that hold provider API keys: each built-in provider's
 * `apiKeyEnv` and those of `providers` (a run's configured providers, which may name their
 * own). Gyre keeps these from the commands its tools run, so a command cannot print a key.
 */
export function providerKeyEnvNames(providers: Record<string, ProviderConfig> = {}): string[] {
  const names = new Set<string>();
  for (const config of [...Object.values(BUILTIN_PROVIDERS), ...Object.values(providers)]) {
    if (config.apiKeyEnv) names.add(config.apiKeyEnv);
  }
  return [...names];
}
