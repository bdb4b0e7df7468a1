import { describe, expect, it } from "vitest";
import { ServerMetrics } from "./metrics.js";

describe("ServerMetrics", () => {
  it("caps client-chosen label values, so a client cannot grow the exposition without bound", () => {
    const metrics = new ServerMetrics();
    for (let index = 0; index < 150; index++) metrics.toolCall(`tool_${index}`);
    metrics.toolCall("tool_0");
    const text = metrics.render();
    expect(text).toContain('gyre_tool_calls_total{tool="tool_0"} 2');
    expect(text).toContain('gyre_tool_calls_total{tool="tool_99"} 1');
    expect(text).not.toContain('tool="tool_100"');
    expect(text).toContain('gyre_tool_calls_total{tool="other"} 50');
  });

  it("escapes label values so a name cannot forge another series", () => {
    const metrics = new ServerMetrics();
    metrics.toolCall('x"} 99\ngyre_fake{a="\\');
    const lines = metrics.render().split("\n");
    expect(lines.some((line) => line.startsWith("gyre_fake"))).toBe(false);
    expect(lines).toContain('gyre_tool_calls_total{tool="x\\"} 99\\ngyre_fake{a=\\"\\\\"} 1');
  });

  it("keeps histogram buckets cumulative and the in-flight gauge balanced on double release", () => {
    const metrics = new ServerMetrics();
    metrics.request("/v1/responses", "POST", 200, 0.003);
    metrics.request("/v1/responses", "POST", 200, 0.2);
    const end = metrics.responseStarted();
    end();
    end();
    const text = metrics.render();
    expect(text).toContain('gyre_http_request_duration_seconds_bucket{route="/v1/responses",le="0.005"} 1');
    expect(text).toContain('gyre_http_request_duration_seconds_bucket{route="/v1/responses",le="0.1"} 1');
    expect(text).toContain('gyre_http_request_duration_seconds_bucket{route="/v1/responses",le="0.25"} 2');
    expect(text).toContain('gyre_http_request_duration_seconds_bucket{route="/v1/responses",le="+Inf"} 2');
    expect(text).toContain("gyre_responses_in_flight 0");
  });
});
