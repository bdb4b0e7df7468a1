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
    // No second try at start: unreachable then is an answer, not a wait.
    retryStrategy: () => null,
  });
  // The first error says why (ECONNREFUSED …); later ones reach the commands that wait on the
  // connection (unhandled, ioredis would print them).
  let first: unknown;
  redis.on("error", (error: unknown) => (first ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    // One that ended by itself is let be: disconnecting it would hold the process 2 s more.
    if (redis.status !== "end") redis.disconnect();
    throw new GyreError("queue_unavailable", `Redis at ${shown} cannot be reached: ${errorMessage(first ?? error)}`);
  }
  // Connected: a connection lost from now on is made again, waiting longer each time up to 2 s.
  redis.options.retryStrategy = (times) => Math.min(times * 50, 2000);
  return redis;
}
