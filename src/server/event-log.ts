import { keptEvent, type NumberedEvent, type StreamEventBody } from "./stream-event.js";

/**
 * The events of one response, numbered from 0 as they happen, kept so that a client can read
 * them again from any point (`starting_after`) and then follow the live ones until the end.
 */
export class EventLog {
  readonly events: NumberedEvent[] = [];
  #listeners = new Set<(event: NumberedEvent | undefined) => void>();
  #ended = false;

  get ended(): boolean {
    return this.#ended;
  }

  append(event: StreamEventBody): void {
    if (this.#ended) return;
    const numbered = { ...keptEvent(event), sequence_number: this.events.length } as NumberedEvent;
    this.events.push(numbered);
    for (const listener of this.#listeners) listener(numbered);
  }

  /** No more events: followers are told (with `undefined`) and let go. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const listener of this.#listeners) listener(undefined);
    this.#listeners.clear();
  }

  /**
   * The events after `startingAfter` (-1: all), then each new one as it comes; `undefined`
   * once the log ends. Returns a function that stops following.
   */
  follow(startingAfter: number, listener: (event: NumberedEvent | undefined) => void): () => void {
    for (const event of this.events.slice(startingAfter + 1)) listener(event);
    if (this.#ended) {
      listener(undefined);
      return () => {};
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
