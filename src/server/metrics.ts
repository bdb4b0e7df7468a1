import type { ResponseObject } from "./response-object.js";

/** Latency buckets in seconds: from a fast JSON reply to a long agentic response. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Model and tool names come from clients: past this many distinct values a label reads
 * `other`, so a client cannot grow the metrics without bound.
 */
const MAX_LABEL_VALUES = 100;

type Labels = Record<string, string>;

/** A labelled series family: counter values by their label set. */
class Family {
  readonly #values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: "counter" | "gauge",
  ) {}

  add(labels: Labels, amount = 1): void {
    const key = labelText(labels);
    this.#values.set(key, (this.#values.get(key) ?? 0) + amount);
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    for (const [labels, value] of this.#values) lines.push(`${this.name}${labels} ${value}`);
    return lines.join("\n");
  }
}

/** A histogram by label set: cumulative buckets, sum and count, as Prometheus expects. */
class Histogram {
  readonly #series = new Map<string, { labels: Labels; buckets: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = labelText(labels);
    let series = this.#series.get(key);
    if (!series) {
      series = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    // Each observation lands in its first bucket; render() accumulates.
    const index = this.bounds.findIndex((bound) => value <= bound);
    if (index >= 0) series.buckets[index]!++;
    series.sum += value;
    series.count++;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, buckets, sum, count } of this.#series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += buckets[index]!;
        lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(bound) })} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: "+Inf" })} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${sum}`);
      lines.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines.join("\n");
  }
}

/**
 * The server's Prometheus metrics: HTTP requests by route and status with their latency,
 * responses in flight, tool calls, and tokens and cost per model. Rendered in the text
 * exposition format by `GET /metrics`.
 */
export class ServerMetrics {
  readonly #requests = new Family("gyre_http_requests_total", "HTTP requests by route, method and status.", "counter");
  readonly #latency = new Histogram(
    "gyre_http_request_duration_seconds",
    "Time to the response headers (a streamed response's first byte), by route.",
    LATENCY_BUCKETS,
  );
  readonly #responses = new Family("gyre_responses_total", "Finished responses by model and status.", "counter");
  readonly #toolCalls = new Family("gyre_tool_calls_total", "Tool calls the model made, by tool name.", "counter");
  readonly #tokens = new Family("gyre_tokens_total", "Tokens by model and kind (input, output, cached).", "counter");
  readonly #cost = new Family("gyre_cost_usd_total", "Upstream cost in US dollars, by model.", "counter");
  readonly #seen = { model: new Set<string>(), tool: new Set<string>() };
  #inFlight = 0;

  /** One HTTP request answered; `route` is the matched pattern (never the raw path, which has ids). */
  request(route: string, method: string, status: number, seconds: number): void {
    this.#requests.add({ route, method, status: String(status) });
    this.#latency.observe({ route }, seconds);
  }

  /** A response started running; call the returned function once when it ends. */
  responseStarted(): () => void {
    this.#inFlight++;
    let ended = false;
    return () => {
      if (!ended) this.#inFlight--;
      ended = true;
    };
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  toolCall(name: string): void {
    this.#toolCalls.add({ tool: this.#bounded("tool", name) });
  }

  /** A response ended: its status, and its usage and cost under its public model name. */
  responseFinished(response: ResponseObject): void {
    const model = this.#bounded("model", response.model);
    this.#responses.add({ model, status: response.status });
    const usage = response.usage;
    if (!usage) return;
    const cached = usage.input_tokens_details.cached_tokens;
    this.#tokens.add({ model, kind: "input" }, usage.input_tokens - cached);
    this.#tokens.add({ model, kind: "cached" }, cached);
    this.#tokens.add({ model, kind: "output" }, usage.output_tokens);
    this.#cost.add({ model }, usage.cost_usd);
  }

  /** The text exposition format (version 0.0.4). */
  render(): string {
    const inFlight = [
      "# HELP gyre_responses_in_flight Responses running now.",
      "# TYPE gyre_responses_in_flight gauge",
      `gyre_responses_in_flight ${this.#inFlight}`,
    ].join("\n");
    const families = [this.#requests, this.#latency, this.#responses, this.#toolCalls, this.#tokens, this.#cost];
    return `${[inFlight, ...families.map((family) => family.render())].join("\n")}\n`;
  }

  #bounded(kind: "model" | "tool", value: string): string {
    const seen = this.#seen[kind];
    if (seen.has(value)) return value;
    if (seen.size >= MAX_LABEL_VALUES) return "other";
    seen.add(value);
    return value;
  }
}

function labelText(labels: Labels): string {
  const pairs = Object.entries(labels).map(([name, value]) => `${name}="${escapeLabel(value)}"`);
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
}

/** Label values escape backslash, double quote and newline (the exposition format's rule). */
function escapeLabel(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}
