/**
 * A streaming event of the Open Responses spec without its `sequence_number`: what the output
 * projection emits and the event log numbers.
 */
export type StreamEventBody = { type: string } & Record<string, unknown>;

/** A streaming event with its place in the response's stream, as a client receives it. */
export type NumberedEvent = StreamEventBody & { sequence_number: number };

/**
 * The event as a sink that keeps it must hold it (an event log, a queue's sink, a test's list):
 * its `response` and `item` copied. The run goes on changing both after it emitted the event
 * (status, output and usage; an item's text and status), and it does not copy them itself:
 * the SSE stream and the WebSocket serialise each event when they are given it, which is how
 * most responses go (copying for them was 0.15 ms of CPU a response in the serve bench).
 */
export function keptEvent<T extends StreamEventBody>(event: T): T {
  if (event.response === undefined && event.item === undefined) return event;
  return {
    ...event,
    ...(event.response !== undefined && { response: structuredClone(event.response) }),
    ...(event.item !== undefined && { item: structuredClone(event.item) }),
  };
}
