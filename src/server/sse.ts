import type { StreamEventBody } from "./output-projection.js";

const encoder = new TextEncoder();

/**
 * A server-sent event stream of the spec's events: each numbered with a monotonically
 * increasing `sequence_number` and written as one chunk (one write), then `data: [DONE]`.
 * `onCancel` runs when the client goes away before the end. While nothing is sent for
 * `keepAliveMs` (a server-side tool running, a slow upstream), a `: keep-alive` comment keeps
 * proxies and clients from timing the connection out; clients ignore comments.
 */
export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #sequence = 0;
  #closed = false;
  #sentSinceTick = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;

  constructor(onCancel: () => void, keepAliveMs?: number) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#closed = true;
        clearInterval(this.#keepAlive);
        onCancel();
      },
    });
    if (keepAliveMs !== undefined && keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.#tick(), keepAliveMs);
      this.#keepAlive.unref();
    }
  }

  #tick(): void {
    if (this.#closed) return;
    if (!this.#sentSinceTick) this.#controller.enqueue(encoder.encode(": keep-alive\n\n"));
    this.#sentSinceTick = false;
  }

  send(event: StreamEventBody): void {
    if (this.#closed) return;
    this.#sentSinceTick = true;
    const data = JSON.stringify({ ...event, sequence_number: this.#sequence++ });
    this.#controller.enqueue(encoder.encode(`event: ${event.type}\ndata: ${data}\n\n`));
  }

  /** Writes `data: [DONE]` and ends the stream. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.#controller.enqueue(encoder.encode("data: [DONE]\n\n"));
    this.#controller.close();
  }
}
