import { Redis } from "ioredis";
import { errorMessage, GyreError } from "../../errors/index.js";
import { parseRedisUrl } from "./redis-url.js";

/**
 * A connection to the queue's Redis, checked with a PING before it is used: unreachable at
 * start is a clear `queue_unavailable` naming where, not a hang. Commands wait for a lost
 * connection to come back (BullMQ's workers need `maxRetriesPerRequest: null`).
 */
export async function connectRedis(url: string, purpose: string): Promise<Redis> {
  const { shown, url: address } = parseRedisUrl(url);
  const redis = new Redis(address, {
    maxRetriesPerRequest: null,
    lazyConnect: true,
    connectionName: `gyre-${purpose}`,
  });
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
