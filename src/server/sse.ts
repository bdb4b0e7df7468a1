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

  send(event: StreamEventBody): void {
    if (this.#closed) return;
    const data = JSON.stringify({ ...event, sequence_number: this.#sequence++ });
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
