import { parseCommandArgs } from "./parse-command-args.js";
import { GyreError } from "../errors/index.js";
import { providerKeyEnvNames } from "../model/index.js";
import {
  loadServerConfig,
  type RequestLogEntry,
  type RunningServer,
  type ServeOptions,
  serve,
} from "../server/index.js";
import type { SessionStore } from "../sessions/index.js";
import { providerEnvironment, takeProviderKeys } from "./provider-keys.js";
import { openServeStore, type StoreLocation, storeLocation } from "./serve-store.js";

/**
 * `gyre serve [--host 127.0.0.1] [--port 8080] [--backlog 2048] [--config FILE] [--store URL] [--quiet]`:
 * the Open Responses server, until SIGINT/SIGTERM. Responses, conversations and their runs are kept in the
 * store of `--store` (or `GYRE_STORE_URL`): `sqlite:PATH` (default Gyre's own database; `--db FILE`
 * says the same) or `postgres://…`. Prints the URL it listens on, and a line per request on stderr
 * unless `--quiet`.
 */
export async function serveCommand(args: string[]): Promise<number> {
  const flags = serveFlags(args);
  const config = flags.config ? await loadServerConfig(flags.config) : {};
  // The config's own providers' keys leave the environment too, before anything is started.
  if (config.providers) takeProviderKeys(providerKeyEnvNames(config.providers));
  const sessionStore = await openServeStore(flags.store);
  const log = flags.quiet
    ? {}
    : { logRequest: (entry: RequestLogEntry) => process.stderr.write(`${accessLogLine(entry)}\n`) };
  const server = await listen({ ...config, env: providerEnvironment(), ...flags.listen, ...log }, sessionStore);
  process.stdout.write(`gyre serve listening on ${server.url}/v1\n`);
  if (!server.requiresApiKey)
    process.stderr.write(
      "gyre serve: no API keys (config apiKeys, GYRE_API_KEYS): only loopback clients are answered\n",
    );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
  });
  await server.close();
  await sessionStore.close();
  return 0;
}

/** The command's flags, checked before anything is read or opened. */
function serveFlags(args: string[]): {
  listen: Pick<ServeOptions, "host" | "port" | "backlog">;
  config: string | undefined;
  store: StoreLocation;
  quiet: boolean;
} {
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
  };
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
