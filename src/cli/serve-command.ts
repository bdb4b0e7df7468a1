import { parseCommandArgs } from "./parse-command-args.js";
import { GyreError } from "../errors/index.js";
import { providerKeyEnvNames } from "../model/index.js";
import {
  connectQueue,
  loadServerConfig,
  serverConfigOf,
  type RequestLogEntry,
  type ResponseQueue,
  type RunningServer,
  type ServeOptions,
  serve,
} from "../server/index.js";
import { DEFAULT_CONCURRENCY, parseRedisUrl } from "../server/cluster/index.js";
import type { SessionStore } from "../sessions/index.js";
import { providerEnvironment, takeProviderKeys } from "./provider-keys.js";
import { openServeStore, type StoreLocation, storeLocation } from "./serve-store.js";
import { flushTelemetry } from "./tracing-setup.js";
import { nodeFetch } from "../net/index.js";

/**
 * `gyre serve [--host 127.0.0.1] [--port 8080] [--backlog 2048] [--config FILE] [--store URL]
 * [--queue URL [--concurrency N]] [--shutdown-grace S] [--quiet]`: the Open Responses server, until
 * SIGINT/SIGTERM. Responses, conversations and their runs are kept in the store of `--store` (or
 * `GYRE_STORE_URL`): `sqlite:PATH` (default Gyre's own database; `--db FILE` says the same) or
 * `postgres://…`. With `--queue redis://…` (or `GYRE_QUEUE_URL`) every response is a job of the
 * cluster's queue, run by whichever process works it (this one too, `--concurrency` at a time).
 * Prints the URL it listens on, and a line per request on stderr unless `--quiet`.
 */
export async function serveCommand(args: string[]): Promise<number> {
  const flags = serveFlags(args);
  const config = await serverConfigOf(flags.config ? await loadServerConfig(flags.config) : {});
  // The config's own providers' keys leave the environment too, before anything is started.
  if (config.providers) takeProviderKeys(providerKeyEnvNames(config.providers));
  const sessionStore = await openServeStore(flags.store);
  const log = flags.quiet
    ? {}
    : { logRequest: (entry: RequestLogEntry) => process.stderr.write(`${accessLogLine(entry)}\n`) };
  const queue = flags.queue ? await openQueue(flags.queue, sessionStore) : undefined;
  const server = await listen(
    {
      ...config,
      env: providerEnvironment(),
      // Upstream requests over node:http: less CPU per response than undici's fetch (src/net/node-fetch.ts).
      fetch: nodeFetch,
      ...flags.listen,
      ...log,
      ...(queue && { queue, concurrency: flags.concurrency }),
    },
    sessionStore,
  );
  process.stdout.write(`gyre serve listening on ${server.url}/v1\n`);
  if (config.ui !== false && !flags.quiet)
    process.stderr.write(
      `gyre serve: each key's runs at ${server.url}/ui/ (docs/ui.md; config ui: false turns it off)\n`,
    );
  if (!server.requiresApiKey)
    process.stderr.write(
      "gyre serve: no API keys (config apiKeys, GYRE_API_KEYS): only loopback clients are answered\n",
    );
  await untilStopped();
  await closeStore((await server.close(flags.graceMs)).handedBack, sessionStore);
  return 0;
}

/** How long an exit after a hand-back waits for the telemetry to be sent. */
const HAND_BACK_FLUSH_MS = 3000;

/**
 * Closes the store, unless runs go on past the shutdown grace: those were handed back to the
 * queue (another worker takes each over once this process is gone, from what they committed),
 * so the process ends at once, with exit code 0, rather than wait for them.
 */
export async function closeStore(handedBack: number, sessionStore: SessionStore): Promise<void> {
  if (handedBack > 0) {
    process.stderr.write(`gyre: ${handedBack} running response(s) handed back to the queue\n`);
    // What this process traced until now is sent first (the handed-back runs' spans never end here).
    await flushTelemetry(HAND_BACK_FLUSH_MS);
    process.exit(0);
  }
  await sessionStore.close();
}

/** Resolves on SIGINT or SIGTERM: the process is asked to stop. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
}

/** Connects to the queue; the store is closed when Redis cannot be reached (the process then exits). */
export async function openQueue(url: string, sessionStore: SessionStore): Promise<ResponseQueue> {
  try {
    return await connectQueue(url);
  } catch (error) {
    await sessionStore.close();
    throw error;
  }
}

/** The command's flags, checked before anything is read or opened. */
function serveFlags(args: string[]): {
  listen: Pick<ServeOptions, "host" | "port" | "backlog">;
  config: string | undefined;
  store: StoreLocation;
  quiet: boolean;
} & QueueFlags {
  const { values } = parseCommandArgs({
    args,
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "8080" },
      backlog: { type: "string" },
      config: { type: "string" },
      db: { type: "string" },
      store: { type: "string" },
      quiet: { type: "boolean", short: "q", default: false },
      ...QUEUE_OPTIONS,
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new GyreError("config_error", "--port must be 0-65535");
  const backlog = values.backlog === undefined ? undefined : Number(values.backlog);
  if (backlog !== undefined && !(Number.isInteger(backlog) && backlog >= 1 && backlog <= 65535))
    throw new GyreError("config_error", "--backlog must be 1-65535");
  return {
    listen: { host: values.host, port, ...(backlog !== undefined && { backlog }) },
    config: values.config,
    store: storeLocation(values, process.env),
    quiet: values.quiet,
    ...queueFlags(values, process.env),
  };
}

/** The flags of the cluster's queue, shared by `gyre serve` and `gyre worker`. */
export const QUEUE_OPTIONS = {
  queue: { type: "string" },
  concurrency: { type: "string" },
  "shutdown-grace": { type: "string" },
} as const;

export interface QueueFlags {
  /** The queue's Redis URL (`--queue`, `GYRE_QUEUE_URL`). */
  queue: string | undefined;
  concurrency: number;
  /** How long running responses get to end on SIGTERM before they are handed back (`--shutdown-grace` seconds, default 10). */
  graceMs: number;
}

/** The queue's flags checked: a number of runs, a grace in seconds, a redis:// URL. */
export function queueFlags(
  values: { queue?: string; concurrency?: string; "shutdown-grace"?: string },
  env: NodeJS.ProcessEnv,
): QueueFlags {
  const queue = values.queue ?? (env.GYRE_QUEUE_URL || undefined);
  if (queue !== undefined) parseRedisUrl(queue);
  const concurrency = values.concurrency === undefined ? DEFAULT_CONCURRENCY : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 0 || concurrency > 10_000)
    throw new GyreError("config_error", "--concurrency must be a whole number 0-10000");
  if (values.concurrency !== undefined && queue === undefined)
    throw new GyreError(
      "config_error",
      "--concurrency needs --queue (or GYRE_QUEUE_URL): without a queue every response runs here",
    );
  const grace = values["shutdown-grace"] === undefined ? 10 : Number(values["shutdown-grace"]);
  if (!Number.isFinite(grace) || grace < 0)
    throw new GyreError("config_error", "--shutdown-grace is seconds, 0 or more");
  return { queue, concurrency, graceMs: grace * 1000 };
}

/** Serves on `sessionStore`; when it cannot listen, the store is closed (an open PostgreSQL pool would keep the process alive). */
async function listen(options: ServeOptions, sessionStore: SessionStore): Promise<RunningServer> {
  try {
    return await serve({ ...options, sessionStore });
  } catch (error) {
    await sessionStore.close();
    throw error;
  }
}

/** A request as `gyre serve` logs it: `2025-01-01T12:00:00.000Z POST /v1/responses 200 812ms resp_…`. */
export function accessLogLine(entry: RequestLogEntry, now = new Date()): string {
  const id = entry.responseId === undefined ? "" : ` ${entry.responseId}`;
  return `${now.toISOString()} ${entry.method} ${entry.path} ${entry.status} ${Math.round(entry.durationMs)}ms${id}`;
}
