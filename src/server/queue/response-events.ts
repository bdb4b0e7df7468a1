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

  /** No more events for this response; the stream expires a while later. */
  async end(responseId: string): Promise<void> {
    const key = this.#key(responseId);
    await this.redis.multi().xadd(key, "*", "end", "1").expire(key, KEEP_ENDED_SECONDS).exec();
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
