export { parseRedisUrl } from "./redis-connection.js";
export { ResponseEvents } from "./response-events.js";
export { type QueueSettings, queueError, ResponseQueue, type RunJob, unrunnable } from "./response-queue.js";
