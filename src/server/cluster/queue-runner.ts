import type { BackgroundRunner, EventListener } from "../background.js";
import { type ErrorBody, RelayedError, UNAVAILABLE_RETRY_SECONDS, UnavailableError } from "../errors.js";
import type { PreparedResponse } from "../prepare-response.js";
import type { ResponseQueue } from "../queue/index.js";
import type { ResponseObject } from "../response-object.js";
import { hasEnded, terminalEvent } from "../response-status.js";
import type { RunDependencies } from "../run-dependencies.js";
import type { NumberedEvent, StreamEventBody } from "../stream-event.js";
import { EventSink } from "./event-sink.js";
import { responseJob } from "./response-job.js";

/** How long a cancel waits for the worker running the response to end it. */
const CANCEL_WAIT_MS = 10_000;

/**
 * Every response as a job on the cluster's queue (`gyre serve --queue`): this instance stores
 * it `queued` and enqueues it, and whichever worker takes it runs it; its events come back
 * through Redis, so this instance streams them to its client, and any instance can follow or
 * cancel any response.
 */
export class QueueRunner implements BackgroundRunner {
  readonly #following = new Set<() => void>();

  constructor(
    private readonly deps: RunDependencies,
    private readonly queue: ResponseQueue,
  ) {}

  async start(prepared: PreparedResponse, finished?: () => void): Promise<void> {
    await this.#enqueue(prepared);
    if (finished) this.queue.events.ended(prepared.response.id).then(finished, finished);
  }

  async run(
    prepared: PreparedResponse,
    emit: (event: StreamEventBody) => void,
    signal: AbortSignal,
  ): Promise<ResponseObject> {
    const { id } = prepared.response;
    await this.#enqueue(prepared);
    const cancel = () => void this.queue.cancel(id).catch(() => {});
    signal.addEventListener("abort", cancel, { once: true });
    let last: NumberedEvent | undefined;
    try {
      await this.#untilEnd(id, -1, (event) => {
        last = event;
        emit(event);
      });
    } finally {
      signal.removeEventListener("abort", cancel);
    }
    const failure = (await this.queue.events.failure(id)) as { status: number; body: ErrorBody } | undefined;
    if (failure) prepared.failures.last = new RelayedError(failure.status, failure.body);
    return finalResponse(prepared.response, last);
  }

  async follow(id: string, startingAfter: number, listener: EventListener): Promise<(() => void) | undefined> {
    if (!(await this.queue.events.exists(id))) {
      const stored = await this.deps.responses.get(id);
      if (!stored || hasEnded(stored.response)) return undefined;
    }
    return this.#follow(id, startingAfter, listener);
  }

  async cancel(id: string): Promise<boolean> {
    const stored = await this.deps.responses.get(id);
    if (!stored || hasEnded(stored.response)) return false;
    const ended = this.queue.events.ended(id);
    if ((await this.queue.cancel(id)) === "removed") await this.#cancelQueued(id);
    const late = new Promise<void>((resolve) => setTimeout(resolve, CANCEL_WAIT_MS).unref());
    await Promise.race([ended, late]);
    return true;
  }

  async close(): Promise<void> {
    for (const stop of this.#following) stop();
    this.#following.clear();
    this.queue.events.close();
  }

  async #enqueue(prepared: PreparedResponse): Promise<void> {
    const { response } = prepared;
    // Out of reach, the queue would hold the request until Redis is back: the client is told to retry instead.
    if (!this.queue.ready)
      throw new UnavailableError(
        `The cluster's queue (Redis at ${this.queue.shown}) cannot be reached just now.`,
        UNAVAILABLE_RETRY_SECONDS,
      );
    if (response.store) {
      const queued: ResponseObject = { ...structuredClone(response), status: "queued" };
      const record = { owner: prepared.owner, response: queued, inputItems: prepared.inputItems };
      await this.deps.responses.save({ ...record, runSessionId: `${response.id}-run` }, { first: true });
    }
    await this.queue.enqueue(response.id, responseJob(prepared));
  }

  /** A job taken off the queue before any worker ran it: its response ends here, cancelled. */
  async #cancelQueued(id: string): Promise<void> {
    const stored = await this.deps.responses.get(id);
    if (!stored) return;
    const response: ResponseObject = {
      ...stored.response,
      status: "cancelled",
      completed_at: Math.floor(Date.now() / 1000),
    };
    await this.deps.responses.save({ ...stored, response });
    const sink = new EventSink(this.queue.events, id, (await this.queue.events.read(id)).events);
    sink.emit({ type: terminalEvent(response), response: structuredClone(response) });
    if (response.background) await this.deps.responses.appendEvents(id, sink.events);
    await sink.end();
  }

  /** Resolves when the response's stream ends, each event after `startingAfter` given to `onEvent` on the way. */
  #untilEnd(id: string, startingAfter: number, onEvent: (event: NumberedEvent) => void) {
    return new Promise<void>((resolve) => {
      this.#follow(id, startingAfter, (event) => {
        if (event) onEvent(event);
        else resolve();
      });
    });
  }

  #follow(id: string, startingAfter: number, listener: EventListener): () => void {
    const stop = this.queue.events.follow(id, startingAfter, (event) => {
      if (!event) this.#following.delete(stop);
      listener(event);
    });
    this.#following.add(stop);
    return () => {
      this.#following.delete(stop);
      stop();
    };
  }
}

/** The response as its stream's terminal event has it; one whose stream ended on an error, failed with it. */
function finalResponse(response: ResponseObject, last: NumberedEvent | undefined): ResponseObject {
  if (last && typeof last.response === "object" && last.response !== null) return last.response as ResponseObject;
  const error = (last?.error ?? {}) as { code?: string; message?: string };
  return {
    ...response,
    status: "failed",
    error: { code: error.code ?? "server_error", message: error.message ?? "The run ended without a response." },
  };
}
