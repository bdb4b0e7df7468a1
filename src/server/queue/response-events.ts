import type { Redis } from "ioredis";
import type { NumberedEvent } from "../stream-event.js";

/** How long a finished response's events stay in Redis for late readers (the store keeps them for good). */
const KEEP_ENDED_SECONDS = 3600;
/** How long one blocking read waits before it looks again (a follower that stopped is let go by then). */
const BLOCK_MS = 1000;

/**
 * The events of responses run anywhere in the cluster, as one Redis stream per response:
 * the worker running it appends, any instance replays from `starting_after` and follows to
 * the end. An `end` entry closes a stream; each follower reads on a connection of its own.
 */
export class ResponseEvents {
  constructor(
    /** For appends and replays. */
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  #key(responseId: string): string {
    return `${this.prefix}:events:${responseId}`;
  }

  async append(responseId: string, event: NumberedEvent): Promise<void> {
    await this.redis.xadd(this.#key(responseId), "*", "event", JSON.stringify(event));
  }

  /**
   * Keeps why a response failed upstream, as its worker would have answered it (a status and
   * an error body), for the instance answering the client; expires with the events.
   */
  async keepFailure(responseId: string, failure: unknown): Promise<void> {
    await this.redis.set(`${this.#key(responseId)}:failure`, JSON.stringify(failure), "EX", KEEP_ENDED_SECONDS);
  }

  async failure(responseId: string): Promise<unknown> {
    const text = await this.redis.get(`${this.#key(responseId)}:failure`);
    return text === null ? undefined : (JSON.parse(text) as unknown);
  }

  /** Whether anything was written for this response (an event, or its end). */
  async exists(responseId: string): Promise<boolean> {
    return (await this.redis.exists(this.#key(responseId))) === 1;
  }

  /** No more events for this response; the stream expires a while later. Those waiting for its end hear it. */
  async end(responseId: string): Promise<void> {
    const key = this.#key(responseId);
    await this.redis
      .multi()
      .xadd(key, "*", "end", "1")
      .expire(key, KEEP_ENDED_SECONDS)
      .publish(this.#endedChannel(), responseId)
      .exec();
  }

  /**
   * Resolves when the response's stream has ended (at once if it has). One connection of this
   * instance hears the ends of every response, however many are waited for.
   */
  async ended(responseId: string): Promise<void> {
    const waiting = await this.#endWatch();
    const heard = new Promise<void>((resolve) => {
      const listeners = waiting.get(responseId) ?? [];
      listeners.push(resolve);
      waiting.set(responseId, listeners);
    });
    // Subscribed first, then looked: an end between the two is heard either way.
    if ((await this.read(responseId)).ended) this.#heard(responseId);
    return heard;
  }

  /** Stops hearing ends (the instance is closing); those still waited for are let go. */
  close(): void {
    this.#subscriber?.disconnect();
    this.#subscriber = undefined;
    for (const id of [...this.#waiting.keys()]) this.#heard(id);
  }

  readonly #waiting = new Map<string, Array<() => void>>();
  #subscriber: Redis | undefined;
  #subscribing: Promise<Map<string, Array<() => void>>> | undefined;

  #endWatch(): Promise<Map<string, Array<() => void>>> {
    this.#subscribing ??= (async () => {
      const subscriber = this.redis.duplicate();
      subscriber.on("error", () => {});
      subscriber.on("message", (_channel: string, responseId: string) => this.#heard(responseId));
      await subscriber.subscribe(this.#endedChannel());
      this.#subscriber = subscriber;
      return this.#waiting;
    })();
    return this.#subscribing;
  }

  #heard(responseId: string): void {
    const listeners = this.#waiting.get(responseId);
    this.#waiting.delete(responseId);
    for (const listener of listeners ?? []) listener();
  }

  #endedChannel(): string {
    return `${this.prefix}:ended`;
  }

  /** The events stored so far, in order (a run taken over numbers its events after them). */
  async read(responseId: string): Promise<{ events: NumberedEvent[]; ended: boolean }> {
    const entries = await this.redis.xrange(this.#key(responseId), "-", "+");
    const { events, ended } = decode(entries);
    return { events, ended };
  }

  /**
   * The events after `startingAfter`, then each new one until the end (`undefined` then).
   * Returns a function that stops following.
   */
  follow(responseId: string, startingAfter: number, listener: (event: NumberedEvent | undefined) => void): () => void {
    const reader = this.redis.duplicate();
    reader.on("error", () => {});
    let stopped = false;
    const key = this.#key(responseId);
    const loop = async () => {
      let cursor = "0";
      while (!stopped) {
        const reply = await reader.xread("BLOCK", BLOCK_MS, "STREAMS", key, cursor);
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        cursor = entries.at(-1)?.[0] ?? cursor;
        const { events, ended } = decode(entries);
        for (const event of events) if (!stopped && event.sequence_number > startingAfter) listener(event);
        if (ended) break;
      }
      if (!stopped) listener(undefined);
    };
    const done = loop()
      .catch(() => {
        if (!stopped) listener(undefined);
      })
      .finally(() => reader.disconnect());
    void done;
    return () => {
      stopped = true;
    };
  }
}

function decode(entries: [id: string, fields: string[]][]): { events: NumberedEvent[]; ended: boolean } {
  const events: NumberedEvent[] = [];
  let ended = false;
  for (const [, fields] of entries) {
    if (fields[0] === "end") ended = true;
    else if (fields[0] === "event" && fields[1] !== undefined) events.push(JSON.parse(fields[1]) as NumberedEvent);
  }
  return { events, ended };
}
