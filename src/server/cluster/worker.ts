import { checkServerTools, type ServerConfig } from "../config.js";
import type { QueueSettings, ResponseQueue } from "../queue/index.js";
import { type RunDependencies, runDependencies } from "../run-dependencies.js";
import { giveUpResponse, runQueuedResponse } from "./run-queued.js";

/** Runs a worker takes at a time unless told otherwise. */
export const DEFAULT_CONCURRENCY = 50;

/** What {@link createWorker} takes: a server's config (models, providers, tools, store) and the queue. */
export interface WorkerConfig extends Omit<ServerConfig, "queue"> {
  /** The cluster's queue: `redis://HOST:PORT[/DB]`, or its settings. */
  queue: string | QueueSettings;
  /** Responses this worker runs at a time (default 50). */
  concurrency?: number;
}

/** A process's share of the cluster's runs. */
export interface ResponseWorker {
  /** This worker's metrics (runs in flight, starts, takeovers, the queue's depth) in Prometheus' text format. */
  metrics(): Promise<string>;
  /**
   * Stops taking jobs; runs still going get `graceMs` (default 0) to end, and those that do not
   * are handed back: once this process exits, their leases lapse and another worker takes each
   * over from its last checkpoint.
   */
  close(graceMs?: number): Promise<{ handedBack: number }>;
}

/** Connects to the cluster's queue (`queue_unavailable`, naming where, when Redis does not answer). */
export async function connectQueue(settings: string | QueueSettings): Promise<ResponseQueue> {
  // Loaded only by a process that uses the queue: BullMQ and ioredis cost a server without one nothing.
  const { ResponseQueue } = await import("../queue/index.js");
  return ResponseQueue.connect(typeof settings === "string" ? { url: settings } : settings);
}

/**
 * A worker of the cluster (what `gyre worker` runs): it takes queued responses from the queue
 * and runs them over the store every instance shares, its events streamed back through Redis.
 * Start as many as you like, on as many machines; `gyre serve --queue` instances take the requests.
 */
export async function createWorker(config: WorkerConfig): Promise<ResponseWorker> {
  const { queue: settings, ...server } = config;
  checkServerTools(server);
  const deps = runDependencies(server, config.env ?? process.env);
  const queue = await connectQueue(settings);
  await workQueue(deps, queue, config.concurrency ?? DEFAULT_CONCURRENCY);
  return { metrics: () => deps.metrics.render(), close: (graceMs) => queue.close(graceMs) };
}

/** Runs the queue's jobs in this process, `concurrency` at a time, with `deps`. */
export async function workQueue(deps: RunDependencies, queue: ResponseQueue, concurrency: number): Promise<void> {
  deps.metrics.watchQueue(() => queue.depth());
  await queue.work(
    (run) => runQueuedResponse(deps, queue, run),
    concurrency,
    (responseId, reason) => giveUpResponse(deps, queue, responseId, reason),
  );
}
