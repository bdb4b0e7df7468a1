import { createRequire } from "node:module";
import { join } from "node:path";
import { GyreError } from "../errors/index.js";
import { GYRE_VERSION } from "../version.js";

// The OpenTelemetry SDK as the CLI loads it: optional peers, never dependencies, found beside
// Gyre or in the working folder's project; a missing one fails naming what to install.

/** Which signal a setting is for: its own variable (`…_TRACES_…`, `…_METRICS_…`) before the common one. */
export type Signal = "TRACES" | "METRICS";

/** Whether the environment turns a signal on: an OTLP endpoint, or the signal's exporter set to other than `none`. */
export function signalWanted(signal: Signal, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporter = env[`OTEL_${signal}_EXPORTER`]?.trim();
  if (exporter) return exporter !== "none";
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim());
}

/** Whether the signal's exporter was named outright (not only implied by an endpoint). */
export function signalAsked(signal: Signal, env: NodeJS.ProcessEnv = process.env): boolean {
  const exporter = env[`OTEL_${signal}_EXPORTER`]?.trim();
  return Boolean(exporter && exporter !== "none");
}

/** The signal's exporter: `otlp` over `http/protobuf` or `http/json`, or `console`; `config_error` for others. */
export function exporterOf(
  signal: Signal,
  env: NodeJS.ProcessEnv,
  packages: Readonly<Record<string, string>>,
): { kind: "otlp"; package: string } | { kind: "console" } {
  const kind = (env[`OTEL_${signal}_EXPORTER`]?.split(",")[0] ?? "otlp").trim() || "otlp";
  if (kind === "console") return { kind };
  if (kind !== "otlp")
    throw new GyreError(
      "config_error",
      `OTEL_${signal}_EXPORTER=${kind} is not supported by gyre: use otlp, console or none.`,
    );
  const protocol = (
    env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    "http/protobuf"
  ).trim();
  const found = packages[protocol];
  if (!found)
    throw new GyreError(
      "config_error",
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported by gyre: use http/protobuf or http/json.`,
    );
  return { kind, package: found };
}

/**
 * Loads the SDK's packages as `require` would from Gyre's own folder, else from the working
 * folder's project (a global or npx gyre, the SDK installed in the project it works in).
 * `packages` are named in the error when one is missing.
 */
export function sdkLoader(cwd: string, packages: readonly string[], what: string): (name: string) => unknown {
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
      `${what} is on (OTEL_* environment) and needs the OpenTelemetry SDK, which is not installed (${name} is missing): ` +
        `npm install ${packages.join(" ")}`,
    );
  };
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

/** The resource: `service.name` `gyre` (and its version) unless `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` say otherwise. */
export function cliResource(load: (name: string) => unknown): unknown {
  const resources = load("@opentelemetry/resources") as Resources;
  return resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ "service.name": "gyre", "service.version": GYRE_VERSION }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
}
