export { connectRedis } from "./redis-connection.js";
export { parseRedisUrl } from "./redis-url.js";
export { ResponseEvents } from "./response-events.js";
export {
  type GiveUp,
  type QueueDepth,
  type QueuedRun,
  type QueueSettings,
  ResponseQueue,
  type RunJob,
} from "./response-queue.js";
