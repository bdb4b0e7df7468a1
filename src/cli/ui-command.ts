import { GyreError } from "../errors/index.js";
import { startUi } from "../ui/index.js";
import { parseCommandArgs } from "./parse-command-args.js";
import { openServeStore, storeLocation } from "./serve-store.js";

/**
 * `gyre ui [--port N] [--store URL]`: the page to watch and replay runs (docs/ui.md), served on
 * 127.0.0.1 over the store `gyre run` and `gyre serve` write (`--store`, else `GYRE_STORE_URL`,
 * else Gyre's own SQLite file), until SIGINT/SIGTERM. Prints the address to open: it carries
 * the token without which nothing is answered.
 */
export async function uiCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({
    args,
    options: { port: { type: "string", default: "0" }, store: { type: "string" } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new GyreError("config_error", "--port must be 0-65535");
  const location = storeLocation(values.store === undefined ? {} : { store: values.store }, process.env);
  const store = await openServeStore(location);
  try {
    const ui = await startUi({ store, port });
    process.stdout.write(`gyre ui: open ${ui.url}\n`);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
    await ui.close();
  } finally {
    await store.close();
  }
  return 0;
}
