import { context, type Context, propagation, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { contextFromTraceparent } from "../telemetry/index.js";
import { startCliMetrics } from "./metrics-setup.js";
import { cliResource, exporterOf, sdkLoader, signalWanted } from "./otel-sdk.js";

// The CLI's telemetry (`gyre run`, `gyre serve`, `gyre worker`, `gyre mcp serve`): the
// OpenTelemetry SDK set up from the standard environment, loaded only when a signal is on.
// The SDK and its exporters are optional peers, never dependencies: they are found beside
// Gyre or in the working folder's project, and a missing one fails at start naming what to install.

/** Whether the environment turns tracing on: an OTLP endpoint, or a traces exporter other than `none`. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return signalWanted("TRACES", env);
}

/** The SDK as the CLI uses it (a structural view: the packages are not dependencies). */
interface SdkTrace {
  TracerProvider: new (config: { resource: unknown; spanProcessors: unknown[] }) => Provider;
  BatchSpanProcessor: new (options: { exporter: unknown }) => unknown;
  ConsoleSpanExporter: new () => unknown;
}
interface Provider {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The packages each exporter needs, to name in the hint when one is missing. */
const BASE_PACKAGES = [
  "@opentelemetry/sdk-trace",
  "@opentelemetry/resources",
  "@opentelemetry/context-async-hooks",
  "@opentelemetry/core",
];
const EXPORTER_PACKAGES: Readonly<Record<string, string>> = {
  "http/protobuf": "@opentelemetry/exporter-trace-otlp-proto",
  "http/json": "@opentelemetry/exporter-trace-otlp-http",
};

/** The telemetry the CLI set up: the parent of its runs, and the flush before it exits. */
export interface CliTracing {
  /** The context runs start in: the span `TRACEPARENT` names, else none. */
  readonly parent: Context;
  /** Sends what is buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Sets up the SDK from the environment: when {@link tracingWanted}, a tracer provider with a
 * batch processor, the exporter `OTEL_TRACES_EXPORTER` names (`otlp`, the default, over
 * `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`: `http/protobuf` or `http/json`; or `console`), an
 * AsyncLocalStorage context manager and the W3C trace-context propagator; when metrics are on
 * (see `startCliMetrics`), a meter provider. The resource from `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` (service name `gyre` by default). Registered globally, where the
 * library's runs find them. Undefined when both are off (nothing is loaded).
 */
export async function startCliTracing(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`),
): Promise<CliTracing | undefined> {
  const stopTraces = tracingWanted(env) ? startTraces(env, cwd) : undefined;
  const stopMetrics = startCliMetrics(env, cwd, warn);
  if (!stopTraces && !stopMetrics) return undefined;
  return {
    parent: stopTraces ? contextFromTraceparent(env.TRACEPARENT, env.TRACESTATE) : ROOT_CONTEXT,
    shutdown: async () => {
      const stopped = await Promise.allSettled([stopTraces?.(), stopMetrics?.()]);
      const failed = stopped.find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
    },
  };
}

function startTraces(env: NodeJS.ProcessEnv, cwd: string): () => Promise<void> {
  const exporter = exporterOf("TRACES", env, EXPORTER_PACKAGES);
  const load = sdkLoader(cwd, [...BASE_PACKAGES, ...(exporter.kind === "otlp" ? [exporter.package] : [])], "Tracing");
  const sdk = load("@opentelemetry/sdk-trace") as SdkTrace;
  const { AsyncLocalStorageContextManager } = load("@opentelemetry/context-async-hooks") as {
    AsyncLocalStorageContextManager: new () => { enable(): unknown };
  };
  // W3C trace context is what MCP calls carry (and what a traced MCP server reads).
  const { W3CTraceContextPropagator } = load("@opentelemetry/core") as {
    W3CTraceContextPropagator: new () => Parameters<typeof propagation.setGlobalPropagator>[0];
  };
  const spanExporter =
    exporter.kind === "otlp"
      ? new (load(exporter.package) as { OTLPTraceExporter: new () => unknown }).OTLPTraceExporter()
      : new sdk.ConsoleSpanExporter();
  const provider = new sdk.TracerProvider({
    resource: cliResource(load),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: spanExporter })],
  });
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager as Parameters<typeof context.setGlobalContextManager>[0]);
  trace.setGlobalTracerProvider(provider as unknown as Parameters<typeof trace.setGlobalTracerProvider>[0]);
  return async () => {
    try {
      await provider.forceFlush();
    } finally {
      await provider.shutdown();
    }
  };
}

/**
 * Runs a command with telemetry when the environment turns it on: its runs start in the
 * `TRACEPARENT` span's context, and what it recorded is sent before it returns.
 */
export async function traced(command: () => Promise<number>): Promise<number> {
  const tracing = await startCliTracing();
  if (!tracing) return command();
  running = tracing;
  try {
    return await context.with(tracing.parent, command);
  } finally {
    await flushTelemetry();
  }
}

/** The telemetry {@link traced} set up, until it is flushed. */
let running: CliTracing | undefined;

/**
 * Sends what the command's telemetry recorded and stops it, once; for a command that must exit
 * before it returns (a server that handed running responses back to the queue), within
 * `withinMs` so an unreachable collector cannot hold the exit.
 */
export async function flushTelemetry(withinMs?: number): Promise<void> {
  const tracing = running;
  running = undefined;
  if (!tracing) return;
  const flushed = tracing.shutdown().catch((error: unknown) => {
    process.stderr.write(`gyre: telemetry: what was recorded could not be sent: ${(error as Error).message}\n`);
  });
  if (withinMs === undefined) return flushed;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([flushed, new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)))]);
  clearTimeout(timer);
}
