/**
 * A streaming event of the Open Responses spec without its `sequence_number`: what the output
 * projection emits and the event log numbers.
 */
export type StreamEventBody = { type: string } & Record<string, unknown>;

/** A streaming event with its place in the response's stream, as a client receives it. */
export type NumberedEvent = StreamEventBody & { sequence_number: number };
