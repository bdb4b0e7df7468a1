import { describe, expect, it } from "vitest";
import { ServerMetrics } from "./metrics.js";

describe("ServerMetrics", async () => {
  it("caps client-chosen label values, so a client cannot grow the exposition without bound", async () => {
    const metrics = new ServerMetrics();
    for (let index = 0; index < 150; index++) metrics.toolCall(`tool_${index}`);
    metrics.toolCall("tool_0");
    const text = await metrics.render();
    expect(text).toContain('gyre_tool_calls_total{tool="tool_0"} 2');
    expect(text).toContain('gyre_tool_calls_total{tool="tool_99"} 1');
    expect(text).not.toContain('tool="tool_100"');
    expect(text).toContain('gyre_tool_calls_total{tool="other"} 50');
  });

  it("escapes label values so a name cannot forge another series", async () => {
    const metrics = new ServerMetrics();
    metrics.toolCall('x"} 99\ngyre_fake{a="\\');
    const lines = (await metrics.render()).split("\n");
    expect(lines.some((line) => line.startsWith("gyre_fake"))).toBe(false);
    expect(lines).toContain('gyre_tool_calls_total{tool="x\\"} 99\\ngyre_fake{a=\\"\\\\"} 1');
  });

  it("keeps histogram buckets cumulative and the in-flight gauge balanced on double release", async () => {
    const metrics = new ServerMetrics();
    metrics.request("/v1/responses", "POST", 200, 0.003);
    metrics.request("/v1/responses", "POST", 200, 0.2);
    const end = metrics.responseStarted();
    end();
    end();
    const text = await metrics.render();
    expect(text).toContain('gyre_http_request_duration_seconds_bucket{le="0.005",route="/v1/responses"} 1');
    expect(text).toContain('gyre_http_request_duration_seconds_bucket{le="0.1",route="/v1/responses"} 1');
    expect(text).toContain('gyre_http_request_duration_seconds_bucket{le="0.25",route="/v1/responses"} 2');
    expect(text).toContain('gyre_http_request_duration_seconds_bucket{le="+Inf",route="/v1/responses"} 2');
    expect(text).toContain("gyre_responses_in_flight 0");
  });

  it("counts a queue's starts, retries and takeovers, times the wait, and reads its depth when scraped", async () => {
    const metrics = new ServerMetrics();
    let reads = 0;
    metrics.watchQueue(async () => ({ waiting: 3 + reads++, active: 2 }));
    metrics.queueStarted(40, false);
    metrics.queueStarted(2_000, true);
    metrics.queueTakeover();
    const text = await metrics.render();
    expect(text).toContain('gyre_queue_depth{state="waiting"} 3');
    expect(text).toContain('gyre_queue_depth{state="active"} 2');
    expect(text).toContain('gyre_queue_starts_total{attempt="first"} 1');
    expect(text).toContain('gyre_queue_starts_total{attempt="retry"} 1');
    expect(text).toContain("gyre_queue_takeovers_total 1");
    expect(text).toContain('gyre_queue_wait_seconds_bucket{le="0.05"} 1');
    expect(text).toContain("gyre_queue_wait_seconds_count 2");
    // Read again on each scrape.
    expect(await metrics.render()).toContain('gyre_queue_depth{state="waiting"} 4');
  });

  it("adds the process's own metrics (event-loop delay, GC pauses, heap), collected once for every server", async () => {
    const [first, second] = [new ServerMetrics(), new ServerMetrics()];
    for (const text of [await first.render(), await second.render()]) {
      expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
      expect(text).toContain("# TYPE nodejs_gc_duration_seconds histogram");
      expect(text).toMatch(/^process_cpu_seconds_total \d/m);
      // One collector: each process series appears once per exposition.
      expect(text.match(/^# TYPE nodejs_heap_size_used_bytes /gm)).toHaveLength(1);
    }
  });
});
