import { type Context, type Span, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import type { Usage } from "../protocol/index.js";
import { ATTR } from "./attributes.js";
import type { GenAiInstruments } from "./metrics.js";

/** Token counts exactly as the provider reported them. */
export function setUsage(span: Span, usage: Usage): void {
  span.setAttribute(ATTR.inputTokens, usage.input_tokens);
  span.setAttribute(ATTR.outputTokens, usage.output_tokens);
  span.setAttribute(ATTR.cacheCreationInputTokens, usage.cache_creation_input_tokens);
  span.setAttribute(ATTR.cacheReadInputTokens, usage.cache_read_input_tokens);
}

/** Marks a span failed: status ERROR with the message, `error.type`, and the exception as an event. */
export function failSpan(span: Span, error: unknown, type: string): void {
  const message = error instanceof Error ? error.message : String(error);
  span.setAttribute(ATTR.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  if (error instanceof Error) span.recordException(error);
}

/** A GyreError's code, else the error's class name. */
export function errorType(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") return error.code;
  return error instanceof Error ? error.name : "_OTHER";
}

/** Where a run's spans go and hang: its tracer, the content opt-in, and the run's span's context; its metrics' instruments. */
export interface TraceScope {
  readonly tracer: Tracer;
  readonly instruments: GenAiInstruments;
  /** Values content attributes leave out (provider keys and other secrets of the run's environment). */
  readonly secrets: readonly string[];
  readonly captureContent: boolean;
  readonly context: Context;
}
