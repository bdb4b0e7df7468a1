export { QueueRunner } from "./queue-runner.js";
// Only the URL check: the queue itself (BullMQ, ioredis) loads when a process connects (connectQueue).
export { parseRedisUrl } from "../queue/redis-url.js";
export {
  connectQueue,
  createWorker,
  DEFAULT_CONCURRENCY,
  type ResponseWorker,
  type WorkerConfig,
  workQueue,
} from "./worker.js";
