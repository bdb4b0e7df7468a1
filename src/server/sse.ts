import { ServerResponse } from "node:http";
import type { Context } from "hono";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { NumberedEvent, StreamEventBody } from "./stream-event.js";

const encoder = new TextEncoder();

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/** Where a stream's text goes: a web stream for any host, or straight to a Node response. */
interface SseOutput {
  write(text: string): void;
  end(): void;
}

/**
 * A server-sent event stream of the spec's events: each numbered with a monotonically
 * increasing `sequence_number`, then `data: [DONE]`. An event is never split across writes;
 * the events sent within one turn of the event loop (a model chunk often yields several) go out
 * together in one write, since a socket write per event is most of a short stream's cost. The
 * first events (`response.created`, `response.in_progress`) go out as soon as the code that sent
 * them waits: the time to first byte does not wait for the run's set-up to yield.
 * `onCancel` runs when the client goes away before the end. While nothing is sent for
 * `keepAliveMs` (a server-side tool running, a slow upstream), a `: keep-alive` comment keeps
 * proxies and clients from timing the connection out; clients ignore comments.
 *
 * Given the Node response (`@hono/node-server`'s `c.env.outgoing`), it writes there directly:
 * a web stream between the two costs a read and a write per event (docs/benchmarks.md says
 * how much). Anywhere else its `body` is a web stream.
 */
export class SseStream {
  /** The stream's bytes, unless it writes to a Node response. */
  readonly body: ReadableStream<Uint8Array> | undefined;
  readonly #output: SseOutput;
  #sequence = 0;
  #closed = false;
  #sentSinceTick = false;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  /** Events not written yet: flushed once the current turn of the event loop is over. */
  #pending = "";
  #flushScheduled = false;
  #wroteFirst = false;

  constructor(onCancel: () => void, keepAliveMs?: number, target?: ServerResponse) {
    const cancel = () => {
      if (this.#closed) return;
      this.#closed = true;
      clearInterval(this.#keepAlive);
      onCancel();
    };
    if (target) {
      this.#output = nodeOutput(target, cancel);
    } else {
      const web = webOutput(cancel);
      this.body = web.body;
      this.#output = web;
    }
    if (keepAliveMs !== undefined && keepAliveMs > 0) {
      this.#keepAlive = setInterval(() => this.#tick(), keepAliveMs);
      this.#keepAlive.unref();
    }
  }

  #tick(): void {
    if (this.#closed) return;
    if (!this.#sentSinceTick) this.#write(": keep-alive\n\n");
    this.#sentSinceTick = false;
  }

  #write(text: string): void {
    this.#pending += text;
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    if (this.#wroteFirst) setImmediate(() => this.#flush());
    else queueMicrotask(() => this.#flush());
    this.#wroteFirst = true;
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#pending === "") return;
    const text = this.#pending;
    this.#pending = "";
    this.#output.write(text);
  }

  /** Writes one event; one that has its `sequence_number` already (a replay) keeps it. */
  send(event: StreamEventBody): void {
    if (this.#closed) return;
    this.#sentSinceTick = true;
    const data = JSON.stringify(
      typeof event.sequence_number === "number" ? event : { ...event, sequence_number: this.#sequence++ },
    );
    this.#write(`event: ${event.type}\ndata: ${data}\n\n`);
  }

  /** Writes `data: [DONE]` and ends the stream. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.#pending += "data: [DONE]\n\n";
    this.#flush();
    this.#output.end();
  }

  /** The HTTP response to return: the web stream's, or Hono's marker that it was written already. */
  response(): Response {
    return this.body ? new Response(this.body, { headers: SSE_HEADERS }) : RESPONSE_ALREADY_SENT;
  }
}

function webOutput(cancel: () => void): SseOutput & { body: ReadableStream<Uint8Array> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start: (started) => {
      controller = started;
    },
    cancel,
  });
  return {
    body,
    write(text) {
      try {
        controller.enqueue(encoder.encode(text));
      } catch {
        // The client went away meanwhile: nobody reads the stream any more.
      }
    },
    end() {
      controller.close(); // SseStream.close does not end a stream its reader cancelled
    },
  };
}

function nodeOutput(res: ServerResponse, cancel: () => void): SseOutput {
  res.writeHead(200, SSE_HEADERS);
  res.on("close", () => {
    if (!res.writableEnded) cancel();
  });
  const open = () => !res.destroyed && !res.writableEnded;
  return {
    write(text) {
      if (open()) res.write(text);
    },
    end() {
      if (open()) res.end();
    },
  };
}

/** Follows a response's events, given where to send them; resolves to how to stop, or undefined when there are none to follow. */
export type FollowEvents = (
  listener: (event: NumberedEvent | undefined) => void,
) => Promise<(() => void) | undefined> | (() => void) | undefined;

/**
 * The events `follow` gives (those after a point, then the live ones until the end), as a
 * stream; leaving only stops following. Undefined when there is nothing to follow.
 */
export async function followEvents(
  follow: FollowEvents,
  keepAliveMs?: number,
  target?: ServerResponse,
): Promise<SseStream | undefined> {
  // Events may come before the stream exists (a replay, given at once): kept until it does.
  const sink: { sse?: SseStream; early: (NumberedEvent | undefined)[] } = { early: [] };
  const send = (sse: SseStream, event: NumberedEvent | undefined) => (event ? sse.send(event) : sse.close());
  const stop = await follow((event) => (sink.sse ? send(sink.sse, event) : sink.early.push(event)));
  if (!stop) return undefined;
  const sse = new SseStream(stop, keepAliveMs, target);
  sink.sse = sse;
  for (const event of sink.early.splice(0)) send(sse, event);
  return sse;
}

/** Stored events, as a finished stream. */
export function replay(events: readonly NumberedEvent[], target?: ServerResponse): SseStream {
  const sse = new SseStream(() => {}, undefined, target);
  for (const event of events) sse.send(event);
  sse.close();
  return sse;
}

/** The Node response behind a request, when the app runs on `@hono/node-server` (HTTP/1): where a stream writes. */
export function nodeResponseOf(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}
