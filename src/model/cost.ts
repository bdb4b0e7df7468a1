import { Decimal } from "decimal.js";
import { type Usage, webSearchRequests } from "../protocol/index.js";
import type { ModelInfo, Rates } from "./pricing.js";

/** Rates are US dollars per million tokens. */
const TOKENS_PER_RATE_UNIT = new Decimal(1_000_000);

/**
 * The exact cost of one model call: its tokens, and the provider's own web searches at the
 * model's price per search (none when the table has no price for them). Money is computed in decimal so that thousands of
 * turns add up to the cent the provider bills, not a float's approximation of it.
 */
export function costOf(usage: Usage, info: ModelInfo | undefined): Decimal {
  if (!info) return new Decimal(0);
  const totalInput = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
  const rates: Rates = info.longContext && totalInput > info.longContext.thresholdTokens ? info.longContext : info;
  const cacheWrite = rates.cacheWrite ?? rates.input;
  const cacheRead = rates.cacheRead ?? rates.input;
  return new Decimal(usage.input_tokens)
    .mul(rates.input)
    .plus(new Decimal(usage.output_tokens).mul(rates.output))
    .plus(new Decimal(usage.cache_creation_input_tokens).mul(cacheWrite))
    .plus(new Decimal(usage.cache_read_input_tokens).mul(cacheRead))
    .div(TOKENS_PER_RATE_UNIT)
    .plus(new Decimal(webSearchRequests(usage)).mul(info.webSearch ?? 0));
}

export { Decimal };
