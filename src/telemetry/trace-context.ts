import { type Context, createTraceState, ROOT_CONTEXT, type SpanContext, trace, TraceFlags } from "@opentelemetry/api";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The span context a W3C `traceparent` (and `tracestate`) names; undefined when missing or malformed. */
export function spanContextOf(
  traceparent: string | undefined,
  tracestate?: string | undefined,
): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent?.trim().toLowerCase() ?? "");
  if (!match) return undefined;
  const [, traceId = "", spanId = "", flags = "00"] = match;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(tracestate?.trim() && { traceState: createTraceState(tracestate.trim()) }),
  };
}

/**
 * The context a W3C `traceparent` (and `tracestate`) names, over `base`: a run started in it is
 * a child of the caller's span (`gyre serve`'s request headers, the CLI's `TRACEPARENT` as CI
 * systems set it, a queued job's carrier, an MCP request's `_meta`). A missing or malformed
 * header leaves `base` as it is, as the spec says.
 */
export function contextFromTraceparent(
  traceparent: string | undefined,
  tracestate?: string | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  const spanContext = spanContextOf(traceparent, tracestate);
  return spanContext ? trace.setSpanContext(base, spanContext) : base;
}

/** The W3C trace context of `context`'s active span, to carry to another process; none when it has no valid span. */
export function traceparentOf(context: Context): { traceparent: string; tracestate?: string } | undefined {
  const spanContext = trace.getSpanContext(context);
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, "0");
  const state = spanContext.traceState?.serialize();
  return {
    traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
    ...(state && { tracestate: state }),
  };
}
