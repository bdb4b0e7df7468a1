import { type Attributes, type Counter, type Histogram, type Meter, metrics } from "@opentelemetry/api";
import type { Usage } from "../protocol/index.js";
import { ATTR, providerName } from "./attributes.js";
import { GYRE_VERSION } from "../version.js";

// Metrics in OpenTelemetry's GenAI semantic conventions: token usage and operation duration per
// model request, as histograms with the conventions' bucket advice, and Gyre's cost counter. From
// the meter given or the global meter provider's; without one, the API's no-op instruments.

const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** Metric names: the conventions' two, and Gyre's own. */
export const METRIC = {
  tokenUsage: "gen_ai.client.token.usage",
  operationDuration: "gen_ai.client.operation.duration",
  cost: "gyre.client.cost",
} as const;

/** The instruments of one meter. */
export interface GenAiInstruments {
  readonly tokenUsage: Histogram;
  readonly duration: Histogram;
  readonly cost: Counter;
}

const byMeter = new WeakMap<Meter, GenAiInstruments>();

/** The instruments of `meter` (default: the global meter provider's `gyre` meter), made once per meter. */
export function genAiInstruments(meter: Meter = metrics.getMeter("gyre", GYRE_VERSION)): GenAiInstruments {
  let instruments = byMeter.get(meter);
  if (!instruments) {
    instruments = {
      tokenUsage: meter.createHistogram(METRIC.tokenUsage, {
        unit: "{token}",
        description: "Tokens used per model request, by type (input, output).",
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      }),
      duration: meter.createHistogram(METRIC.operationDuration, {
        unit: "s",
        description: "How long each model request took.",
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      cost: meter.createCounter(METRIC.cost, {
        unit: "USD",
        description: "What runs cost by model, at Gyre's price table.",
      }),
    };
    byMeter.set(meter, instruments);
  }
  return instruments;
}

/** One model request's measurements: its duration, and its tokens when it answered. */
export interface ChatMeasure {
  provider: string;
  requestModel: string;
  responseModel?: string | undefined;
  seconds: number;
  usage?: Usage | undefined;
  /** A failed request's `error.type`. */
  errorType?: string | undefined;
}

/** Records a model request on the instruments. */
export function recordChat(instruments: GenAiInstruments, measure: ChatMeasure): void {
  const attributes: Attributes = {
    [ATTR.operationName]: "chat",
    [ATTR.providerName]: providerName(measure.provider),
    [ATTR.requestModel]: measure.requestModel,
    ...(measure.responseModel !== undefined && { [ATTR.responseModel]: measure.responseModel }),
    ...(measure.errorType !== undefined && { [ATTR.errorType]: measure.errorType }),
  };
  instruments.duration.record(measure.seconds, attributes);
  if (!measure.usage) return;
  instruments.tokenUsage.record(measure.usage.input_tokens, { ...attributes, [ATTR.tokenType]: "input" });
  instruments.tokenUsage.record(measure.usage.output_tokens, { ...attributes, [ATTR.tokenType]: "output" });
}
