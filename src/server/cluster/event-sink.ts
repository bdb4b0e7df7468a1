import type { ResponseEvents } from "../queue/index.js";
import { keptEvent, type NumberedEvent, type StreamEventBody } from "../stream-event.js";

/**
 * A queued response's events as its worker produces them: numbered after those its stream
 * carried already (a run taken over goes on where the lost worker's stream stopped) and
 * appended to the response's Redis stream in order, for whichever instance holds the client.
 */
export class EventSink {
  readonly events: NumberedEvent[];
  #writing: Promise<void> = Promise.resolve();
  #failed: unknown;

  constructor(
    private readonly stream: ResponseEvents,
    private readonly responseId: string,
    before: readonly NumberedEvent[],
  ) {
    this.events = [...before];
  }

  emit(event: StreamEventBody): void {
    const numbered = { ...keptEvent(event), sequence_number: this.#next() } as NumberedEvent;
    this.events.push(numbered);
    // Sent at once: one connection keeps commands in the order they are given, so the stream
    // does, without a round trip's wait between one event and the next.
    const sent = this.stream.append(this.responseId, numbered).catch((error: unknown) => {
      this.#failed ??= error;
    });
    this.#writing = this.#writing.then(() => sent);
  }

  /** Every event written (it throws the first append that failed), then the stream closed. */
  async end(): Promise<void> {
    await this.#writing;
    await this.stream.end(this.responseId);
    if (this.#failed !== undefined) throw this.#failed;
  }

  #next(): number {
    return (this.events.at(-1)?.sequence_number ?? -1) + 1;
  }
}
