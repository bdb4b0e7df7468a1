import { context, propagation } from "@opentelemetry/api";

// MCP calls carry the caller's trace context, so a traced MCP server's work joins the agent's
// trace: in `params._meta` on every transport (as the MCP trace-context proposal does), and as
// HTTP headers on the remote ones. The fields come from the registered propagator (W3C
// `traceparent`/`tracestate` by default in OpenTelemetry's SDK and in Gyre's CLI); without one,
// or without an active span, nothing is added.

/** The active context's trace fields (`traceparent`, `tracestate`), or undefined when there are none. */
export function traceFields(): Record<string, string> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : undefined;
}

/** `fetch` with the active context's trace fields added as headers to each request. */
export function tracedFetch(base: typeof fetch = fetch): typeof fetch {
  return (input, init) => {
    const fields = traceFields();
    if (!fields) return base(input, init);
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(fields)) headers.set(name, value);
    return base(input, { ...init, headers });
  };
}
