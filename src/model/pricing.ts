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
  /** US dollars per search of the provider's own web search (Anthropic bills $10 per 1,000). */
  webSearch: z.number().nonnegative().optional(),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  longContext: Rates.extend({ thresholdTokens: z.number().int().positive() }).optional(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

export type PricingTable = Record<string, ModelInfo>;

/**
 * The date of the newest published list price below (Anthropic's, OpenAI's and Google's pricing
 * and model pages, and those of the hosted services). Where each figure came from is in
 * test/fixtures/list-prices.json, which the table is checked against. Prices change: `pricing`
 * overrides any row.
 */
export const PRICES_AS_OF = "2026-11-17";

/**
 * The newest generally available Claude Sonnet: the default model (`DEFAULT_MODEL`) and the
 * `sonnet` alias follow it, and a test holds it to the newest Sonnet row of the table.
 */
export const LATEST_SONNET = "claude-sonnet-5-5";
/** The newest generally available Claude Opus and Haiku, for the `opus` and `haiku` aliases. */
export const LATEST_OPUS = "claude-opus-5-5";
export const LATEST_HAIKU = "claude-haiku-5-5";

const sonnetLong = { thresholdTokens: 200_000, input: 6, output: 22.5, cacheWrite: 7.5, cacheRead: 0.6 };
/**
 * Anthropic: a 5-minute cache write costs 1.25× the input price and a cache read 0.1× (written
 * out: floats would not add up to the cent); a web search (its server tool) $10 per 1,000.
 */
const claude = (
  [input, output, cacheWrite, cacheRead]: [number, number, number, number],
  maxOutputTokens: number,
  contextWindow = 200_000,
): ModelInfo => ({
  input,
  output,
  cacheWrite,
  cacheRead,
  webSearch: CLAUDE_WEB_SEARCH,
  contextWindow,
  maxOutputTokens,
});
const CLAUDE_WEB_SEARCH = 0.01;
/** Anthropic's models from Opus 4.6 and Sonnet 4.6 on: a 1M-token window, 128k tokens out. */
const claude1m = (rates: [number, number, number, number]): ModelInfo => claude(rates, 128_000, 1_000_000);
/** OpenAI's GPT-6 models: a 1.05M window, 128k out, and a whole request past 272k input billed higher. */
const gpt6 = ([input, output, cacheWrite, cacheRead]: [number, number, number, number]): ModelInfo => ({
  input,
  output,
  cacheWrite,
  cacheRead,
  contextWindow: 1_050_000,
  maxOutputTokens: 128_000,
  longContext: {
    thresholdTokens: 272_000,
    input: input * 2,
    output: output * 1.5,
    cacheWrite: cacheWrite * 2,
    cacheRead: cacheRead * 2,
  },
});
const gpt5 = { contextWindow: 400_000, maxOutputTokens: 128_000 };
const gpt41 = { contextWindow: 1_047_576, maxOutputTokens: 32_768 };
const gpt4o = { contextWindow: 128_000, maxOutputTokens: 16_384 };
const oSeries = { contextWindow: 200_000, maxOutputTokens: 100_000 };
const gemini = { contextWindow: 1_048_576, maxOutputTokens: 65_536 };
const gemini2 = { contextWindow: 1_048_576, maxOutputTokens: 8_192 };

/**
 * Known models, keyed by model id without provider or date suffix; rows of models that more
 * than one provider serves under the same id, or whose price depends on who serves it, are
 * keyed `provider/model-id`. Lookup falls back to the longest key that prefixes the id, so
 * dated snapshots find their family.
 */
export const DEFAULT_PRICING: PricingTable = {
  // Anthropic. Fable 5.1's and Opus 5.5's cache reads are below 0.1× input;
  // Haiku 5.5 bills the whole request higher past 100k prompt tokens.
  "claude-fable-5-1": claude1m([10, 50, 12.5, 0.25]),
  "claude-fable-5": claude1m([10, 50, 12.5, 1]),
  "claude-mythos-5-1": claude1m([10, 50, 12.5, 0.25]),
  "claude-mythos-5": claude1m([10, 50, 12.5, 1]),
  "claude-opus-5-5": claude1m([4, 20, 5, 0.2]),
  "claude-opus-5": claude1m([5, 25, 6.25, 0.5]),
  "claude-opus-4-8": { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5, webSearch: CLAUDE_WEB_SEARCH },
  "claude-opus-4-7": { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5, webSearch: CLAUDE_WEB_SEARCH },
  "claude-opus-4-6": claude1m([5, 25, 6.25, 0.5]),
  "claude-sonnet-5-5": claude1m([2, 10, 2.5, 0.2]),
  "claude-sonnet-5": claude1m([2, 10, 2.5, 0.2]),
  "claude-sonnet-4-6": claude1m([3, 15, 3.75, 0.3]),
  "claude-haiku-5-5": {
    ...claude1m([0.1, 0.5, 0.125, 0.01]),
    longContext: { thresholdTokens: 100_000, input: 0.5, output: 2.5, cacheWrite: 0.625, cacheRead: 0.05 },
  },
  "claude-opus-4-5": claude([5, 25, 6.25, 0.5], 64_000),
  "claude-opus-4-1": claude([15, 75, 18.75, 1.5], 32_000),
  "claude-opus-4": claude([15, 75, 18.75, 1.5], 32_000),
  "claude-sonnet-4-5": { ...claude([3, 15, 3.75, 0.3], 64_000), longContext: sonnetLong },
  "claude-sonnet-4": { ...claude([3, 15, 3.75, 0.3], 64_000), longContext: sonnetLong },
  "claude-3-7-sonnet": claude([3, 15, 3.75, 0.3], 64_000),
  "claude-haiku-4-5": claude([1, 5, 1.25, 0.1], 64_000),
  "claude-3-5-haiku": claude([0.8, 4, 1, 0.08], 8_192),
  "claude-3-haiku": claude([0.25, 1.25, 0.3, 0.03], 4_096),
  // OpenAI. The GPT-6 models bill the whole request at twice the input and cache rates and 1.5×
  // the output rate past 272k input tokens; their cache write is the 30-minute one.
  "gpt-6.2-sol": gpt6([2, 10, 2.5, 0.1]),
  "gpt-6.1-terra": gpt6([1, 5, 1.25, 0.05]),
  "gpt-6-luna": gpt6([0.1, 0.5, 0.125, 0.01]),
  "gpt-5.1": { input: 1.25, output: 10, cacheRead: 0.125, ...gpt5 },
  "gpt-5.1-codex": { input: 1.25, output: 10, cacheRead: 0.125, ...gpt5 },
  "gpt-5.1-codex-mini": { input: 0.25, output: 2, cacheRead: 0.025, ...gpt5 },
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125, ...gpt5 },
  "gpt-5-codex": { input: 1.25, output: 10, cacheRead: 0.125, ...gpt5 },
  "gpt-5-pro": { input: 15, output: 120, contextWindow: 400_000, maxOutputTokens: 272_000 },
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025, ...gpt5 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005, ...gpt5 },
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5, ...gpt41 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1, ...gpt41 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025, ...gpt41 },
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25, ...gpt4o },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075, ...gpt4o },
  o3: { input: 2, output: 8, cacheRead: 0.5, ...oSeries },
  "o3-pro": { input: 20, output: 80, ...oSeries },
  "o3-mini": { input: 1.1, output: 4.4, cacheRead: 0.55, ...oSeries },
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275, ...oSeries },
  o1: { input: 15, output: 60, cacheRead: 7.5, ...oSeries },
  // Google (Gemini API, paid tier); Pro models bill the whole request higher past 200k input tokens.
  "gemini-3-pro-preview": {
    input: 2,
    output: 12,
    cacheRead: 0.2,
    ...gemini,
    longContext: { thresholdTokens: 200_000, input: 4, output: 18, cacheRead: 0.4 },
  },
  "gemini-2.5-pro": {
    input: 1.25,
    output: 10,
    cacheRead: 0.125,
    ...gemini,
    longContext: { thresholdTokens: 200_000, input: 2.5, output: 15, cacheRead: 0.25 },
  },
  "gemini-2.5-flash": { input: 0.3, output: 2.5, cacheRead: 0.03, ...gemini },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cacheRead: 0.01, ...gemini },
  "gemini-2.0-flash": { input: 0.1, output: 0.4, cacheRead: 0.025, ...gemini2 },
  "gemini-2.0-flash-lite": { input: 0.075, output: 0.3, ...gemini2 },
  // Hosted services (their own list prices, which differ from the model makers' for the same model)
  "deepseek/deepseek-chat": {
    input: 0.28,
    output: 0.42,
    cacheRead: 0.028,
    contextWindow: 128_000,
    maxOutputTokens: 8_192,
  },
  "deepseek/deepseek-reasoner": {
    input: 0.28,
    output: 0.42,
    cacheRead: 0.028,
    contextWindow: 128_000,
    maxOutputTokens: 65_536,
  },
  "xai/grok-4": { input: 3, output: 15, cacheRead: 0.75, contextWindow: 256_000 },
  "xai/grok-4-fast-reasoning": { input: 0.2, output: 0.5, cacheRead: 0.05, contextWindow: 2_000_000 },
  "xai/grok-4-fast-non-reasoning": { input: 0.2, output: 0.5, cacheRead: 0.05, contextWindow: 2_000_000 },
  "xai/grok-code-fast-1": { input: 0.2, output: 1.5, cacheRead: 0.02, contextWindow: 256_000 },
  "xai/grok-3": { input: 3, output: 15, cacheRead: 0.75, contextWindow: 131_072 },
  "xai/grok-3-mini": { input: 0.3, output: 0.5, cacheRead: 0.075, contextWindow: 131_072 },
  "mistral/mistral-medium-latest": { input: 0.4, output: 2, contextWindow: 128_000 },
  "mistral/mistral-small-latest": { input: 0.1, output: 0.3, contextWindow: 128_000 },
  "mistral/codestral-latest": { input: 0.3, output: 0.9, contextWindow: 256_000 },
  "mistral/devstral-medium-latest": { input: 0.4, output: 2, contextWindow: 128_000 },
  "mistral/devstral-small-latest": { input: 0.1, output: 0.3, contextWindow: 128_000 },
  "mistral/magistral-medium-latest": { input: 2, output: 5, contextWindow: 128_000 },
  "groq/llama-3.3-70b-versatile": { input: 0.59, output: 0.79, contextWindow: 131_072, maxOutputTokens: 32_768 },
  "groq/llama-3.1-8b-instant": { input: 0.05, output: 0.08, contextWindow: 131_072, maxOutputTokens: 131_072 },
  "together/meta-llama/Llama-3.3-70B-Instruct-Turbo": { input: 0.88, output: 0.88, contextWindow: 131_072 },
  "fireworks/accounts/fireworks/models/llama-v3p3-70b-instruct": { input: 0.9, output: 0.9, contextWindow: 131_072 },
};

/**
 * Find a model's info: the row of `provider/model-id` when a provider is given, else (or
 * then) of the bare id. Each is tried exact, then without a `-YYYYMMDD` suffix, then as the
 * longest key that prefixes it.
 */
export function lookupModelInfo(
  modelId: string,
  table: PricingTable = DEFAULT_PRICING,
  provider?: string,
): ModelInfo | undefined {
  return (provider === undefined ? undefined : lookupKey(`${provider}/${modelId}`, table)) ?? lookupKey(modelId, table);
}

function lookupKey(id: string, table: PricingTable): ModelInfo | undefined {
  const exact = table[id];
  if (exact) return exact;
  const undated = id.replace(/-\d{8}$/, "");
  if (table[undated]) return table[undated];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (undated.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}
