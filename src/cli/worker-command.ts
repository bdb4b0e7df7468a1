import { GyreError } from "../errors/index.js";
import { providerKeyEnvNames } from "../model/index.js";
import { createWorker, loadServerConfig, serverConfigOf } from "../server/index.js";
import { parseCommandArgs } from "./parse-command-args.js";
import { providerEnvironment, takeProviderKeys } from "./provider-keys.js";
import { closeStore, QUEUE_OPTIONS, queueFlags, untilStopped } from "./serve-command.js";
import { openServeStore, storeLocation } from "./serve-store.js";
import { nodeFetch } from "../net/index.js";

/**
 * `gyre worker --queue URL [--store URL] [--config FILE] [--concurrency N] [--shutdown-grace S]`:
 * a process that only runs responses, taken from the cluster's queue (`gyre serve --queue`
 * instances take the requests). Same config file and store as `gyre serve`. On SIGTERM it stops
 * taking jobs, gives running ones the grace to end, and hands the rest back.
 */
export async function workerCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({
    args,
    options: { config: { type: "string" }, db: { type: "string" }, store: { type: "string" }, ...QUEUE_OPTIONS },
  });
  const flags = queueFlags(values, process.env);
  if (!flags.queue)
    throw new GyreError("config_error", "gyre worker: --queue redis://HOST:PORT[/DB] (or GYRE_QUEUE_URL) is required");
  const store = storeLocation(values, process.env);
  const config = await serverConfigOf(values.config ? await loadServerConfig(values.config) : {});
  if (config.providers) takeProviderKeys(providerKeyEnvNames(config.providers));
  const sessionStore = await openServeStore(store);
  let worker;
  try {
    worker = await createWorker({
      ...config,
      env: providerEnvironment(),
      // Upstream requests over node:http: less CPU per response than undici's fetch (src/net/node-fetch.ts).
      fetch: nodeFetch,
      sessionStore,
      queue: flags.queue,
      concurrency: flags.concurrency,
    });
  } catch (error) {
    await sessionStore.close();
    throw error;
  }
  process.stdout.write(`gyre worker running ${flags.concurrency} at a time\n`);
  await untilStopped();
  await closeStore((await worker.close(flags.graceMs)).handedBack, sessionStore);
  return 0;
}
