import { type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { connectRedis } from "./redis-connection.js";
import { ResponseEvents } from "./response-events.js";

/** How the cluster's queue of responses behaves; the defaults suit one machine's tests and small clusters. */
export interface QueueSettings {
  /** `redis://HOST:PORT[/DB]`. */
  url: string;
  /** Prefix of every key Gyre writes in Redis (queues, event streams, the cancel channel). Default `gyre`. */
  prefix?: string;
  /**
   * How long a worker's hold on a running response lasts unless renewed (it renews it at half
   * that). A dead worker's runs are taken over once it lapses: about this plus `stalledIntervalMs`.
   */
  lockDurationMs?: number;
  /** How often workers look for runs whose worker died. */
  stalledIntervalMs?: number;
  /** Starts a response may have (a worker dying with it counts): past them it fails, as a run that keeps killing its workers. */
  maxStarts?: number;
}

/** What a worker runs for one job: the response, how many times it was started before, and its cancel signal. */
export type RunJob = (job: { responseId: string; startsBefore: number; signal: AbortSignal }) => Promise<void>;

const QUEUE_NAME = "responses";
const CANCEL_CHANNEL = "cancel";

/**
 * Responses as jobs of a BullMQ queue on Redis: any `gyre serve` instance enqueues, any worker
 * runs (holding a renewed lock; when its process dies the lock lapses and another worker takes
 * the response over), a cancel published on any instance stops the run wherever it runs, and
 * its events reach every instance through {@link ResponseEvents}.
 */
export class ResponseQueue {
  readonly events: ResponseEvents;
  readonly #workers: Worker[] = [];
  readonly #subscribers: Redis[] = [];

  private constructor(
    private readonly settings: Required<QueueSettings>,
    private readonly redis: Redis,
    private readonly queue: Queue,
  ) {
    this.events = new ResponseEvents(redis, settings.prefix);
  }

  /** Connects, checking Redis answers first (`queue_unavailable` naming where, otherwise). */
  static async connect(settings: QueueSettings): Promise<ResponseQueue> {
    const full: Required<QueueSettings> = {
      prefix: "gyre",
      lockDurationMs: 4000,
      stalledIntervalMs: 1000,
      maxStarts: 3,
      ...settings,
    };
    const redis = await connectRedis(full.url, "queue");
    const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: full.prefix });
    queue.on("error", () => {});
    return new ResponseQueue(full, redis, queue);
  }

  /** Puts a response on the queue; enqueuing one twice is one job (its id is the response's). */
  async enqueue(responseId: string): Promise<void> {
    await this.queue.add("response", { responseId }, { jobId: responseId, removeOnComplete: 1000, removeOnFail: 1000 });
  }

  /** Runs jobs in this process, `concurrency` at a time, until {@link close}. */
  async work(run: RunJob, concurrency: number): Promise<void> {
    const { settings } = this;
    const connection = this.redis.duplicate();
    connection.on("error", () => {});
    const worker = new Worker(
      QUEUE_NAME,
      async (job: Job<{ responseId: string }>, _token, signal) => {
        // Counted each time a worker took the job, also when a dead worker's run was taken over.
        const startsBefore = Math.max(0, job.attemptsStarted - 1);
        if (startsBefore >= settings.maxStarts) {
          throw new UnrecoverableError(`The response was started ${startsBefore} times without finishing.`);
        }
        await run({ responseId: job.data.responseId, startsBefore, signal: signal ?? new AbortController().signal });
      },
      {
        connection,
        prefix: settings.prefix,
        concurrency,
        autorun: false,
        lockDuration: settings.lockDurationMs,
        stalledInterval: settings.stalledIntervalMs,
        // Taken over as often as the run may start; the processor fails it past that.
        maxStalledCount: settings.maxStarts,
      },
    );
    worker.on("error", () => {});
    this.#workers.push(worker);
    // A cancel published anywhere stops the run here if it runs here: subscribed before the
    // worker takes a job, so no cancel of a run it started goes unheard.
    const subscriber = this.redis.duplicate();
    subscriber.on("error", () => {});
    this.#subscribers.push(subscriber);
    await subscriber.subscribe(this.#channel());
    subscriber.on("message", (_channel, responseId: string) => worker.cancelJob(responseId, "cancelled"));
    void worker.run().catch(() => {});
    await worker.waitUntilReady();
  }

  /** Asks whichever worker runs the response to stop it. */
  async cancel(responseId: string): Promise<void> {
    await this.redis.publish(this.#channel(), responseId);
  }

  /**
   * Stops taking jobs; runs still going get `graceMs` to end, then are handed back to the
   * queue for another worker (their locks lapse) — the process may then exit.
   */
  async close(graceMs = 0): Promise<void> {
    const closing = this.#workers.map(async (worker) => {
      const ended = worker.close();
      if (graceMs <= 0) return worker.close(true);
      const timer = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), graceMs).unref());
      if ((await Promise.race([ended, timer])) === "late") await worker.close(true);
    });
    await Promise.allSettled(closing);
    for (const subscriber of this.#subscribers) subscriber.disconnect();
    await this.queue.close().catch(() => {});
    this.redis.disconnect();
  }

  #channel(): string {
    return `${this.settings.prefix}:${CANCEL_CHANNEL}`;
  }
}
