import { Redis } from "ioredis";
import { errorMessage, GyreError } from "../../errors/index.js";

/** `redis://[user:password@]host:port[/db]` (or `rediss://`) checked, with its password hidden for messages. */
export function parseRedisUrl(url: string): { url: string; shown: string } {
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
  if (parsed.password) parsed.password = "***";
  return { url, shown: parsed.toString() };
}

/**
 * A connection to the queue's Redis, checked with a PING before it is used: unreachable at
 * start is a clear `queue_unavailable` naming where, not a hang. Commands wait for a lost
 * connection to come back (BullMQ's workers need `maxRetriesPerRequest: null`).
 */
export async function connectRedis(url: string, purpose: string): Promise<Redis> {
  const { shown } = parseRedisUrl(url);
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, connectionName: `gyre-${purpose}` });
  // Errors reach the commands that wait on the connection; unhandled, ioredis would print them.
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new GyreError("queue_unavailable", `Redis at ${shown} cannot be reached: ${errorMessage(error)}`);
  }
  return redis;
}
