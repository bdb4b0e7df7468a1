import { z } from "zod";

/** Prices in US dollars per million tokens. */
export const Rates = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheWrite: z.number().nonnegative().optional(),
  cacheRead: z.number().nonnegative().optional(),
});
export type Rates = z.infer<typeof Rates>;

/**
 * What a model costs and how big it is. `longContext` applies to the whole request when
 * its input (including cache tokens) exceeds `thresholdTokens`, as Anthropic bills it.
 */
export const ModelInfo = Rates.extend({
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  longContext: Rates.extend({ thresholdTokens: z.number().int().positive() }).optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

export type PricingTable = Record<string, ModelInfo>;

const sonnetLong = { thresholdTokens: 200_000, input: 6, output: 22.5, cacheWrite: 7.5, cacheRead: 0.6 };

/**
 * Known models, keyed by model id without provider or date suffix. Lookup falls back to
 * the longest key that prefixes the id, so dated snapshots find their family.
 */
export const DEFAULT_PRICING: PricingTable = {
  "claude-opus-4-5": {
    input: 5,
    output: 25,
    cacheWrite: 6.25,
    cacheRead: 0.5,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  "claude-opus-4-1": {
    input: 15,
    output: 75,
    cacheWrite: 18.75,
    cacheRead: 1.5,
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
  },
  "claude-opus-4": {
    input: 15,
    output: 75,
    cacheWrite: 18.75,
    cacheRead: 1.5,
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
  },
  "claude-sonnet-4-5": {
    input: 3,
    output: 15,
    cacheWrite: 3.75,
    cacheRead: 0.3,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    longContext: sonnetLong,
  },
  "claude-sonnet-4": {
    input: 3,
    output: 15,
    cacheWrite: 3.75,
    cacheRead: 0.3,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    longContext: sonnetLong,
  },
  "claude-3-7-sonnet": {
    input: 3,
    output: 15,
    cacheWrite: 3.75,
    cacheRead: 0.3,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  "claude-haiku-4-5": {
    input: 1,
    output: 5,
    cacheWrite: 1.25,
    cacheRead: 0.1,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
  },
  "claude-3-5-haiku": {
    input: 0.8,
    output: 4,
    cacheWrite: 1,
    cacheRead: 0.08,
    contextWindow: 200_000,
    maxOutputTokens: 8_192,
  },
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125, contextWindow: 400_000, maxOutputTokens: 128_000 },
  "gpt-5-mini": {
    input: 0.25,
    output: 2,
    cacheRead: 0.025,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
  },
  "gpt-5-nano": {
    input: 0.05,
    output: 0.4,
    cacheRead: 0.005,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
  },
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5, contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  "gpt-4.1-mini": {
    input: 0.4,
    output: 1.6,
    cacheRead: 0.1,
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
  },
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25, contextWindow: 128_000, maxOutputTokens: 16_384 },
  "gpt-4o-mini": {
    input: 0.15,
    output: 0.6,
    cacheRead: 0.075,
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
  },
  o3: { input: 2, output: 8, cacheRead: 0.5, contextWindow: 200_000, maxOutputTokens: 100_000 },
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275, contextWindow: 200_000, maxOutputTokens: 100_000 },
};

/** Find a model's info: exact id, then without a `-YYYYMMDD` suffix, then the longest prefix key. */
export function lookupModelInfo(modelId: string, table: PricingTable = DEFAULT_PRICING): ModelInfo | undefined {
  const exact = table[modelId];
  if (exact) return exact;
  const undated = modelId.replace(/-\d{8}$/, "");
  if (table[undated]) return table[undated];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (undated.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}
