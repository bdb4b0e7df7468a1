import type { EventLog } from "./event-log.js";
import type { StreamEventBody } from "./output-projection.js";

const encoder = new TextEncoder();

/**
 * A server-sent event stream of the spec's events: each numbered with a monotonically
 * increasing `sequence_number` and written as one chunk (one write), then `data: [DONE]`.
 * `onCancel` runs when the client goes away before the end.
 */
export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #sequence = 0;
  #closed = false;

  constructor(onCancel: () => void) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#closed = true;
        onCancel();
      },
    });
  }

  /** Writes one event; one that has its `sequence_number` already (a replay) keeps it. */
  send(event: StreamEventBody): void {
    if (this.#closed) return;
    const data = JSON.stringify(
      typeof event.sequence_number === "number" ? event : { ...event, sequence_number: this.#sequence++ },
    );
    this.#controller.enqueue(encoder.encode(`event: ${event.type}\ndata: ${data}\n\n`));
  }

  /** Writes `data: [DONE]` and ends the stream. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#controller.enqueue(encoder.encode("data: [DONE]\n\n"));
    this.#controller.close();
  }
}

/** The events of `log` after `startingAfter`, then the live ones until it ends; leaving only stops following. */
export function followLog(log: EventLog, startingAfter: number): SseStream {
  let stop = () => {};
  const sse = new SseStream(() => stop());
  stop = log.follow(startingAfter, (event) => (event ? sse.send(event) : sse.close()));
  return sse;
}

/** An HTTP response streaming `sse`. */
export function sseResponse(sse: SseStream): Response {
  return new Response(sse.body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    },
  });
}
