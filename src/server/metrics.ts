import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ResponseObject } from "./response-object.js";

/** Latency buckets in seconds: from a fast JSON reply to a long agentic response. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Garbage-collection pause buckets in seconds: a young-generation scavenge is a few ms. */
const GC_BUCKETS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1];

/**
 * Model and tool names come from clients: past this many distinct values a label reads
 * `other`, so a client cannot grow the metrics without bound.
 */
const MAX_LABEL_VALUES = 100;

let processRegistry: Registry | undefined;

/**
 * The process's own metrics (prom-client's defaults: CPU, memory, heap spaces, event-loop delay
 * percentiles, GC pauses by kind), collected once per process however many servers it runs:
 * each collector observes the whole process, and one per server would never be released.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    // 1 ms precision: the event-loop delay is what a stream's chunks wait, and it is a few ms.
    // Node's histogram counts the sampling interval into every value (sampled every 10 ms, an
    // idle loop reads 10 ms), so a coarser interval would hide it; docs/benchmarks.md has
    // what sampling this often costs.
    collectDefaultMetrics({
      register: processRegistry,
      eventLoopMonitoringPrecision: 1,
      gcDurationBuckets: GC_BUCKETS,
    });
  }
  return processRegistry;
}

/**
 * The server's Prometheus metrics: HTTP requests by route and status with their latency,
 * responses in flight, tool calls, and tokens and cost per model, then the process's own
 * (see {@link processMetrics}). Rendered in the text exposition format by `GET /metrics`.
 */
export class ServerMetrics {
  readonly #registry = new Registry();
  readonly #requests = new Counter({
    name: "gyre_http_requests_total",
    help: "HTTP requests by route, method and status.",
    labelNames: ["route", "method", "status"],
    registers: [this.#registry],
  });
  readonly #latency = new Histogram({
    name: "gyre_http_request_duration_seconds",
    help: "Time to the response headers (a streamed response's first byte), by route.",
    labelNames: ["route"],
    buckets: LATENCY_BUCKETS,
    registers: [this.#registry],
  });
  readonly #inFlightGauge = new Gauge({
    name: "gyre_responses_in_flight",
    help: "Responses running now.",
    registers: [this.#registry],
  });
  readonly #responses = new Counter({
    name: "gyre_responses_total",
    help: "Finished responses by model and status.",
    labelNames: ["model", "status"],
    registers: [this.#registry],
  });
  readonly #toolCalls = new Counter({
    name: "gyre_tool_calls_total",
    help: "Tool calls the model made, by tool name.",
    labelNames: ["tool"],
    registers: [this.#registry],
  });
  readonly #tokens = new Counter({
    name: "gyre_tokens_total",
    help: "Tokens by model and kind (input, output, cached).",
    labelNames: ["model", "kind"],
    registers: [this.#registry],
  });
  readonly #cost = new Counter({
    name: "gyre_cost_usd_total",
    help: "Upstream cost in US dollars, by model.",
    labelNames: ["model"],
    registers: [this.#registry],
  });
  readonly #queueDepth = new Gauge({
    name: "gyre_queue_depth",
    help: "Responses on the cluster's queue (gyre serve --queue), by state: waiting for a worker, or running on one.",
    labelNames: ["state"],
    registers: [this.#registry],
    collect: async () => {
      const depth = await this.#depthOf?.().catch(() => undefined);
      if (!depth) return;
      this.#queueDepth.set({ state: "waiting" }, depth.waiting);
      this.#queueDepth.set({ state: "active" }, depth.active);
    },
  });
  readonly #queueStarts = new Counter({
    name: "gyre_queue_starts_total",
    help: "Queued responses this worker started: first starts, and starts again after a lost worker (retries).",
    labelNames: ["attempt"],
    registers: [this.#registry],
  });
  readonly #takeovers = new Counter({
    name: "gyre_queue_takeovers_total",
    help: "Runs a lost worker left that this worker took over from their last checkpoint.",
    registers: [this.#registry],
  });
  readonly #queueWait = new Histogram({
    name: "gyre_queue_wait_seconds",
    help: "How long a queued response waited for a worker to start it.",
    buckets: LATENCY_BUCKETS,
    registers: [this.#registry],
  });
  #depthOf: (() => Promise<{ waiting: number; active: number }>) | undefined;
  readonly #seen = { model: new Set<string>(), tool: new Set<string>() };
  #inFlight = 0;

  constructor() {
    processMetrics();
  }

  /** One HTTP request answered; `route` is the matched pattern (never the raw path, which has ids). */
  request(route: string, method: string, status: number, seconds: number): void {
    this.#requests.inc({ route, method, status: String(status) });
    this.#latency.observe({ route }, seconds);
  }

  /** A response started running; call the returned function once when it ends. */
  responseStarted(): () => void {
    this.#inFlight++;
    this.#inFlightGauge.set(this.#inFlight);
    let ended = false;
    return () => {
      if (!ended) {
        this.#inFlight--;
        this.#inFlightGauge.set(this.#inFlight);
      }
      ended = true;
    };
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Where `gyre_queue_depth` is read from, when this process serves or works a queue. */
  watchQueue(depth: () => Promise<{ waiting: number; active: number }>): void {
    this.#depthOf = depth;
  }

  /** This worker started a queued response, after `waitedMs` on the queue; `again`: after a lost worker. */
  queueStarted(waitedMs: number, again: boolean): void {
    this.#queueStarts.inc({ attempt: again ? "retry" : "first" });
    this.#queueWait.observe(waitedMs / 1000);
  }

  queueTakeover(): void {
    this.#takeovers.inc();
  }

  toolCall(name: string): void {
    this.#toolCalls.inc({ tool: this.#bounded("tool", name) });
  }

  /** A response ended: its status, and its usage and cost under its public model name. */
  responseFinished(response: ResponseObject): void {
    const model = this.#bounded("model", response.model);
    this.#responses.inc({ model, status: response.status });
    const usage = response.usage;
    if (!usage) return;
    const cached = usage.input_tokens_details.cached_tokens;
    this.#tokens.inc({ model, kind: "input" }, usage.input_tokens - cached);
    this.#tokens.inc({ model, kind: "cached" }, cached);
    this.#tokens.inc({ model, kind: "output" }, usage.output_tokens);
    this.#cost.inc({ model }, usage.cost_usd);
  }

  /** The text exposition format (version 0.0.4): the server's series, then the process's. */
  async render(): Promise<string> {
    return `${await this.#registry.metrics()}\n${await processMetrics().metrics()}`;
  }

  /** The exposition's content type. */
  get contentType(): string {
    return this.#registry.contentType;
  }

  #bounded(kind: "model" | "tool", value: string): string {
    const seen = this.#seen[kind];
    if (seen.has(value)) return value;
    if (seen.size >= MAX_LABEL_VALUES) return "other";
    seen.add(value);
    return value;
  }
}
