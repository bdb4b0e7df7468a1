import { GyreError } from "../../errors/index.js";

/** The query parameters a queue URL may carry, besides Redis' own address. */
const QUEUE_PARAMS = new Set(["prefix"]);

/**
 * `redis://[user:password@]host:port[/db][?prefix=NAME]` (or `rediss://`) checked: `url` is the
 * address for Redis (without Gyre's parameters), `shown` the URL with its password hidden for
 * messages, and `prefix` the key prefix of the cluster (several clusters can share one Redis).
 */
export function parseRedisUrl(url: string): { url: string; shown: string; prefix?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GyreError("config_error", `The queue URL "${url}" is not a URL: use redis://HOST:PORT[/DB].`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:")
    throw new GyreError(
      "config_error",
      `The queue URL must start with redis:// or rediss://, not ${parsed.protocol}//.`,
    );
  const db = parsed.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db))
    throw new GyreError(
      "config_error",
      `The queue URL's database must be a number (redis://HOST:PORT/DB), not "${db}".`,
    );
  const unknown = [...parsed.searchParams.keys()].find((key) => !QUEUE_PARAMS.has(key));
  if (unknown !== undefined)
    throw new GyreError("config_error", `The queue URL's parameter "${unknown}" is unknown: only ?prefix=NAME is.`);
  const prefix = parsed.searchParams.get("prefix") ?? undefined;
  if (prefix !== undefined && !/^[\w.-]{1,100}$/.test(prefix))
    throw new GyreError("config_error", "The queue URL's prefix is 1-100 letters, digits, '_', '.' or '-'.");
  parsed.search = "";
  const address = parsed.toString();
  if (parsed.password) parsed.password = "***";
  return { url: address, shown: parsed.toString(), ...(prefix && { prefix }) };
}
