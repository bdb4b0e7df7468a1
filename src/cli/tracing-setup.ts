import { createRequire } from "node:module";
import { join } from "node:path";
import { context, type Context, propagation, trace } from "@opentelemetry/api";
import { GyreError } from "../errors/index.js";
import { contextFromTraceparent } from "../telemetry/index.js";
import { GYRE_VERSION } from "../version.js";

// The CLI's tracing (`gyre run`, `gyre serve`, `gyre worker`): the OpenTelemetry SDK set up from
// the standard environment, loaded only when tracing is on. The SDK and its exporters are
// optional peers, never dependencies: they are found beside Gyre or in the working folder's
// project, and a missing one fails at start naming what to install.

/** Whether the environment turns tracing on: an OTLP endpoint, or a traces exporter other than `none`. */
export function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter !== "none";
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
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
interface Resources {
  defaultResource(): Resource;
  resourceFromAttributes(attributes: Record<string, string>): Resource;
  detectResources(config: { detectors: unknown[] }): Resource;
  envDetector: unknown;
}
interface Resource {
  merge(other: Resource): Resource;
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

/** The tracing the CLI set up: the parent of its runs, and the flush before it exits. */
export interface CliTracing {
  /** The context runs start in: the span `TRACEPARENT` names, else none. */
  readonly parent: Context;
  /** Sends what is buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

/**
 * Sets up the SDK from the environment when {@link tracingWanted}: a tracer provider with a
 * batch processor, the exporter `OTEL_TRACES_EXPORTER` names (`otlp`, the default, over
 * `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`: `http/protobuf` or `http/json`; or `console`), the
 * resource from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (service name `gyre` by
 * default), an AsyncLocalStorage context manager, the W3C trace-context propagator; registered globally, where the library's
 * runs find it. Undefined when tracing is off (nothing is loaded).
 */
export async function startCliTracing(
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<CliTracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const kind = (env.OTEL_TRACES_EXPORTER?.split(",")[0] ?? "otlp").trim() || "otlp";
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    "http/protobuf"
  ).trim();
  if (kind !== "otlp" && kind !== "console")
    throw new GyreError(
      "config_error",
      `OTEL_TRACES_EXPORTER=${kind} is not supported by gyre: use otlp, console or none.`,
    );
  const exporterPackage = kind === "otlp" ? EXPORTER_PACKAGES[protocol] : undefined;
  if (kind === "otlp" && !exporterPackage)
    throw new GyreError(
      "config_error",
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported by gyre: use http/protobuf or http/json.`,
    );
  const load = loader(cwd, [...BASE_PACKAGES, ...(exporterPackage ? [exporterPackage] : [])]);
  const sdk = load("@opentelemetry/sdk-trace") as SdkTrace;
  const resources = load("@opentelemetry/resources") as Resources;
  const { AsyncLocalStorageContextManager } = load("@opentelemetry/context-async-hooks") as {
    AsyncLocalStorageContextManager: new () => { enable(): unknown };
  };
  const exporter = exporterPackage
    ? new (load(exporterPackage) as { OTLPTraceExporter: new () => unknown }).OTLPTraceExporter()
    : new sdk.ConsoleSpanExporter();
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": "gyre", "service.version": GYRE_VERSION }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.TracerProvider({ resource, spanProcessors: [new sdk.BatchSpanProcessor({ exporter })] });
  // W3C trace context is what MCP calls carry (and what a traced MCP server reads).
  const { W3CTraceContextPropagator } = load("@opentelemetry/core") as {
    W3CTraceContextPropagator: new () => Parameters<typeof propagation.setGlobalPropagator>[0];
  };
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager as Parameters<typeof context.setGlobalContextManager>[0]);
  trace.setGlobalTracerProvider(provider as unknown as Parameters<typeof trace.setGlobalTracerProvider>[0]);
  return {
    parent: contextFromTraceparent(env.TRACEPARENT, env.TRACESTATE),
    shutdown: async () => {
      try {
        await provider.forceFlush();
      } finally {
        await provider.shutdown();
      }
    },
  };
}

/**
 * Loads the SDK's packages as `require` would from Gyre's own folder, else from the working
 * folder's project (a global or npx gyre, the SDK installed in the project it works in).
 */
function loader(cwd: string, packages: readonly string[]): (name: string) => unknown {
  const requires = [createRequire(import.meta.url), createRequire(join(cwd, "package.json"))];
  return (name) => {
    for (const require of requires) {
      try {
        return require(name);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") throw error;
      }
    }
    throw new GyreError(
      "missing_dependency",
      `Tracing is on (OTEL_* environment) and needs the OpenTelemetry SDK, which is not installed (${name} is missing): ` +
        `npm install ${packages.join(" ")}`,
    );
  };
}

/**
 * Runs a command with tracing when the environment turns it on: its runs start in the
 * `TRACEPARENT` span's context, and what it traced is sent before it returns.
 */
export async function traced(command: () => Promise<number>): Promise<number> {
  const tracing = await startCliTracing();
  if (!tracing) return command();
  try {
    return await context.with(tracing.parent, command);
  } finally {
    await tracing.shutdown().catch((error: unknown) => {
      process.stderr.write(`gyre: tracing: the spans could not be sent: ${(error as Error).message}\n`);
    });
  }
}
