export { parseRedisUrl } from "./redis-connection.js";
export { ResponseEvents } from "./response-events.js";
export { type QueueSettings, ResponseQueue, type RunJob } from "./response-queue.js";
