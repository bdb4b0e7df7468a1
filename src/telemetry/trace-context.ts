import { type Context, createTraceState, ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The context a W3C `traceparent` (and `tracestate`) names, over `base`: a run started in it is
 * a child of the caller's span (`gyre serve`'s request headers, the CLI's `TRACEPARENT` as CI
 * systems set it). A missing or malformed header leaves `base` as it is, as the spec says.
 */
export function contextFromTraceparent(
  traceparent: string | undefined,
  tracestate?: string | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  const match = TRACEPARENT.exec(traceparent?.trim().toLowerCase() ?? "");
  if (!match) return base;
  const [, traceId = "", spanId = "", flags = "00"] = match;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return base;
  return trace.setSpanContext(base, {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    ...(tracestate?.trim() && { traceState: createTraceState(tracestate.trim()) }),
  });
}
