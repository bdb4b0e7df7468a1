import { ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { contextFromTraceparent, traceparentOf } from "./trace-context.js";

describe("contextFromTraceparent", () => {
  it("names the caller's span, remote, with its sampled flag and tracestate", () => {
    const context = contextFromTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "vendor=opaque");
    expect(trace.getSpanContext(context)).toMatchObject({
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: 1,
      isRemote: true,
    });
    expect(trace.getSpanContext(context)?.traceState?.get("vendor")).toBe("opaque");
  });

  it.each([
    undefined,
    "",
    "garbage",
    "00-00000000000000000000000000000000-b7ad6b7169203331-01",
    "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
  ])("leaves the base context for %j", (header) => {
    expect(contextFromTraceparent(header)).toBe(ROOT_CONTEXT);
  });
});

describe("traceparentOf", () => {
  it("round-trips a context's span as the W3C header, tracestate included", () => {
    const header = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    expect(traceparentOf(contextFromTraceparent(header, "vendor=opaque"))).toEqual({
      traceparent: header,
      tracestate: "vendor=opaque",
    });
  });

  it("is undefined for a context without a span", () => {
    expect(traceparentOf(ROOT_CONTEXT)).toBeUndefined();
  });
});
