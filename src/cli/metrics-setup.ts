import { metrics } from "@opentelemetry/api";
import { GyreError } from "../errors/index.js";
import { cliResource, exporterOf, sdkLoader, signalAsked, signalWanted } from "./otel-sdk.js";

// The CLI's GenAI metrics (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`,
// `gyre.client.cost`): the SDK's meter provider with a periodic reader, from the standard
// environment, loaded only when metrics are on, flushed before the process exits.

const PACKAGES = ["@opentelemetry/sdk-metrics", "@opentelemetry/resources"];
const EXPORTER_PACKAGES: Readonly<Record<string, string>> = {
  "http/protobuf": "@opentelemetry/exporter-metrics-otlp-proto",
  "http/json": "@opentelemetry/exporter-metrics-otlp-http",
};

interface SdkMetrics {
  MeterProvider: new (config: { resource: unknown; readers: unknown[] }) => Provider;
  PeriodicExportingMetricReader: new (options: { exporter: unknown; exportIntervalMillis?: number }) => unknown;
  ConsoleMetricExporter: new () => unknown;
}
interface Provider {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Sets up the metrics SDK when {@link signalWanted} says so; undefined when off. Returns the flush-and-stop. */
export function startCliMetrics(
  env: NodeJS.ProcessEnv,
  cwd: string,
  warn: (message: string) => void,
): (() => Promise<void>) | undefined {
  if (!signalWanted("METRICS", env)) return undefined;
  const exporter = exporterOf("METRICS", env, EXPORTER_PACKAGES);
  const packages = [...PACKAGES, ...(exporter.kind === "otlp" ? [exporter.package] : [])];
  const load = sdkLoader(cwd, packages, "Metrics");
  let sdk: SdkMetrics;
  let exporterInstance: unknown;
  try {
    sdk = load("@opentelemetry/sdk-metrics") as SdkMetrics;
    exporterInstance =
      exporter.kind === "otlp"
        ? new (load(exporter.package) as { OTLPMetricExporter: new () => unknown }).OTLPMetricExporter()
        : new sdk.ConsoleMetricExporter();
  } catch (error) {
    // An endpoint set for traces alone, without the metrics packages: traces go on, metrics are off.
    if (error instanceof GyreError && error.code === "missing_dependency" && !signalAsked("METRICS", env)) {
      warn(`gyre: metrics are off: ${error.message} (or set OTEL_METRICS_EXPORTER=none)`);
      return undefined;
    }
    throw error;
  }
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const reader = new sdk.PeriodicExportingMetricReader({
    exporter: exporterInstance,
    ...(Number.isFinite(interval) && interval > 0 && { exportIntervalMillis: interval }),
  });
  const provider = new sdk.MeterProvider({ resource: cliResource(load), readers: [reader] });
  metrics.setGlobalMeterProvider(provider as unknown as Parameters<typeof metrics.setGlobalMeterProvider>[0]);
  return async () => {
    try {
      await provider.forceFlush();
    } finally {
      await provider.shutdown();
    }
  };
}
