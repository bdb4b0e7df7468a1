import { Job, Queue, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { connectRedis } from "./redis-connection.js";
import { parseRedisUrl } from "./redis-url.js";
import { ResponseEvents } from "./response-events.js";

/** How the cluster's queue of responses behaves; the defaults suit one machine's tests and small clusters. */
export interface QueueSettings {
  /** `redis://HOST:PORT[/DB]`. */
  url: string;
  /**
   * Prefix of every key Gyre writes in Redis (queues, event streams, the cancel channel). Default
   * the URL's `?prefix=`, else `gyre`.
   */
  prefix?: string;
  /**
   * How long a worker's hold on a running response lasts unless renewed (it renews it about every
   * quarter of that). A dead worker's runs are taken over once it lapses: about this plus
   * `stalledIntervalMs`. Default 3000.
   */
  lockDurationMs?: number;
  /** How often workers look for runs whose worker died. Default 500. */
  stalledIntervalMs?: number;
  /** Starts a response may have (a worker dying with it counts): past them it fails, as a run that keeps killing its workers. */
  maxStarts?: number;
}

/** One job as a worker runs it. */
export interface QueuedRun {
  responseId: string;
  /** What the enqueuing instance put with it (a response's request); checked by whoever runs it. */
  data: unknown;
  /** How many times a worker took it before (a dead worker's run taken over counts). */
  startsBefore: number;
  /** How long it waited on the queue before this start, in milliseconds. */
  waitedMs: number;
  /** Aborted when the response is cancelled anywhere, or this worker is closing past its grace. */
  signal: AbortSignal;
}

/** What a worker runs for one job. */
export type RunJob = (job: QueuedRun) => Promise<void>;

/**
 * Called when the queue gives a response up (started `maxStarts` times without finishing, its
 * workers dying each time; or its run threw): whoever called it ends the response with `reason`.
 */
export type GiveUp = (responseId: string, reason: string) => Promise<void>;

/** Jobs on the queue by state: waiting to start, and running on some worker. */
export interface QueueDepth {
  waiting: number;
  active: number;
}

/**
 * The lease and the stalled check, chosen so that a run whose worker died resumes within 5 s of
 * the death (bench/cluster.bench.mjs measures it). BullMQ renews a lease about every quarter of
 * its duration, so a kill leaves most of one to run out: with 4 s and a check every second the
 * bench measured 4.5 s from kill -9 to the resumed run's model request at the median and 5.1 s
 * at worst (the resume itself takes about 0.1 s once the check finds the job). 3 s and 0.5 s
 * bound it near 3.5 s. Shorter would let a live worker whose event loop or Redis stalls for a
 * couple of seconds lose its runs to another worker.
 */
export const QUEUE_TIMING = { lockDurationMs: 3000, stalledIntervalMs: 500 } as const;

const QUEUE_NAME = "responses";
const CANCEL_CHANNEL = "cancel";
/** How long a cancel is remembered for a job no worker has taken yet. */
const CANCEL_KEEP_SECONDS = 24 * 3600;

/**
 * Responses as jobs of a BullMQ queue on Redis: any `gyre serve` instance enqueues, any worker
 * runs (holding a renewed lock; when its process dies the lock lapses and another worker takes
 * the response over), a cancel published on any instance stops the run wherever it runs, and
 * its events reach every instance through {@link ResponseEvents}.
 */
export class ResponseQueue {
  readonly events: ResponseEvents;
  readonly #workers: Worker[] = [];
  /** Connections of this queue's own besides `redis`: the workers' and the cancel subscribers'. */
  readonly #subscribers: Redis[] = [];
  /** Runs of this process's workers going on now. */
  #running = 0;
  /** Called when the last of them ends (a closing queue waits for that, up to its grace). */
  readonly #idle: Array<() => void> = [];

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
      prefix: parseRedisUrl(settings.url).prefix ?? "gyre",
      ...QUEUE_TIMING,
      maxStarts: 3,
      ...settings,
    };
    const redis = await connectRedis(full.url, "queue");
    const queue = new Queue(QUEUE_NAME, { connection: redis, prefix: full.prefix });
    queue.on("error", () => {});
    return new ResponseQueue(full, redis, queue);
  }

  /** Whether Redis answers now (false while its connection is lost and being made again). */
  get ready(): boolean {
    return this.redis.status === "ready";
  }

  /** Where the queue is, for messages (the password hidden). */
  get shown(): string {
    return parseRedisUrl(this.settings.url).shown;
  }

  /** Puts a response on the queue; enqueuing one twice is one job (its id is the response's). */
  async enqueue(responseId: string, data: unknown = null): Promise<void> {
    await this.queue.add(
      "response",
      { responseId, data },
      { jobId: responseId, removeOnComplete: 1000, removeOnFail: 1000 },
    );
  }

  /** How many jobs wait and run, cluster-wide. */
  async depth(): Promise<QueueDepth> {
    const counts = await this.queue.getJobCounts("waiting", "prioritized", "delayed", "active");
    return {
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0),
      active: counts.active ?? 0,
    };
  }

  /** Runs jobs in this process, `concurrency` at a time, until {@link ResponseQueue.close}. */
  async work(run: RunJob, concurrency: number, giveUp?: GiveUp): Promise<void> {
    const { settings } = this;
    const connection = this.redis.duplicate();
    connection.on("error", () => {});
    // BullMQ leaves a connection it was given open: closed with the subscribers, in close().
    this.#subscribers.push(connection);
    const worker = new Worker(
      QUEUE_NAME,
      async (job: Job<{ responseId: string; data?: unknown }>, _token, signal) => {
        // Counted each time a worker took the job, also when a dead worker's run was taken over.
        const startsBefore = Math.max(0, job.attemptsStarted - 1);
        if (startsBefore >= settings.maxStarts) {
          throw new UnrecoverableError(`The response was started ${startsBefore} times without finishing.`);
        }
        this.#running++;
        try {
          await run({
            responseId: job.data.responseId,
            data: job.data.data ?? null,
            startsBefore,
            waitedMs: Math.max(0, (job.processedOn ?? Date.now()) - job.timestamp),
            signal: signal ?? new AbortController().signal,
          });
        } finally {
          if (--this.#running === 0) for (const idle of this.#idle.splice(0)) idle();
        }
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
    // A job fails once (no retries): past its starts (here, or BullMQ's stalled check), or its run threw.
    worker.on("failed", (job, error) => {
      if (job && giveUp) void giveUp(job.data.responseId, error.message).catch(() => {});
    });
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

  /**
   * Cancels a response wherever it is: a job no worker took yet is taken off the queue
   * (`removed`: nobody will run it, the caller ends it); a running one is asked to stop on the
   * worker that runs it (`signalled`). Either way the cancel is remembered, so a worker that takes
   * the job in between starts it cancelled ({@link ResponseQueue.wasCancelled}).
   */
  async cancel(responseId: string): Promise<"removed" | "signalled"> {
    await this.redis.set(this.#cancelKey(responseId), "1", "EX", CANCEL_KEEP_SECONDS);
    await this.redis.publish(this.#channel(), responseId);
    const job = await Job.fromId(this.queue, responseId);
    if (job && (await job.isWaiting())) {
      // Fails when a worker took it meanwhile: then that worker sees the cancel.
      const removed = await job.remove().then(
        () => true,
        () => false,
      );
      if (removed) return "removed";
    }
    return "signalled";
  }

  /** Whether the response was cancelled before or while a worker took it. */
  async wasCancelled(responseId: string): Promise<boolean> {
    return (await this.redis.exists(this.#cancelKey(responseId))) === 1;
  }

  #cancelKey(responseId: string): string {
    return `${this.settings.prefix}:cancelled:${responseId}`;
  }

  /**
   * Stops taking jobs; runs still going get `graceMs` to end, then are handed back to the
   * queue for another worker (their locks lapse) — the process may then exit. Resolves to how
   * many were handed back (still running here: the process should exit without waiting for them).
   */
  async close(graceMs = 0): Promise<{ handedBack: number }> {
    // Paused, a worker takes no more jobs; closed (forced), it stops renewing the locks of
    // runs still going. BullMQ's unforced close would wait for them however long they take.
    await Promise.allSettled(this.#workers.map((worker) => worker.pause(true)));
    if (graceMs > 0 && this.#running > 0) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([new Promise<void>((resolve) => this.#idle.push(resolve)), late]);
      clearTimeout(timer);
    }
    await Promise.allSettled(this.#workers.map((worker) => worker.close(true)));
    for (const subscriber of this.#subscribers) subscriber.disconnect();
    this.events.close();
    await this.queue.close().catch(() => {});
    this.redis.disconnect();
    return { handedBack: this.#running };
  }

  #channel(): string {
    return `${this.settings.prefix}:${CANCEL_CHANNEL}`;
  }
}
