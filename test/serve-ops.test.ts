import { describe, expect, it } from "vitest";
import type { RequestLogEntry } from "../src/server/index.js";
import { type MockTurn, mockTurn } from "../src/testing/index.js";
import { weatherTool, withServer } from "./serve-support.js";

/** A series' value in a Prometheus text exposition, or undefined when it is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function metricsOf(url: string, key?: string): Promise<string> {
  const response = await fetch(`${url}/metrics`, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  return response.text();
}

/** Polls `check` until it gives a value (a disconnected run ends asynchronously). */
async function until<T>(check: () => Promise<T | undefined>, attempts = 200): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the condition did not hold in time");
}

/** A turn that holds its stream open until the client goes away (the mock ends the wait on abort). */
const held: MockTurn = { ...mockTurn.text("never mind"), delayMs: 600_000 };

describe("gyre serve GET /metrics", () => {
  it("counts requests by route pattern and status, tool calls, tokens and cost per model", async () => {
    const script = { turns: [mockTurn.toolUse("get_weather", { city: "Paris" }), mockTurn.text("Sunny.")] };
    await withServer(script, async ({ client, server }) => {
      const openai = client();
      const first = await openai.responses.create({ model: "openai/gpt-5", input: "Weather?", tools: [weatherTool] });
      const call = first.output[0];
      if (call?.type !== "function_call") throw new Error("expected a function call");
      const stream = openai.responses.stream({
        model: "openai/gpt-5",
        previous_response_id: first.id,
        input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny" }],
        tools: [weatherTool],
      });
      const second = await stream.finalResponse();
      await expect(openai.responses.retrieve("resp_nope")).rejects.toThrow();

      const text = await metricsOf(server.url);
      const route = 'route="/v1/responses",method="POST"';
      expect(sample(text, `gyre_http_requests_total{${route},status="200"}`)).toBe(2);
      // The id stays out of the label: the pattern is counted, with its 404.
      expect(sample(text, 'gyre_http_requests_total{route="/v1/responses/:id",method="GET",status="404"}')).toBe(1);
      expect(text).not.toContain("resp_nope");
      expect(sample(text, 'gyre_http_request_duration_seconds_count{route="/v1/responses"}')).toBe(2);
      expect(sample(text, 'gyre_http_request_duration_seconds_bucket{le="+Inf",route="/v1/responses"}')).toBe(2);
      expect(sample(text, 'gyre_tool_calls_total{tool="get_weather"}')).toBe(1);
      expect(sample(text, 'gyre_responses_total{model="openai/gpt-5",status="completed"}')).toBe(2);
      const usage = [first.usage!, second.usage!];
      const input = usage.reduce((sum, each) => sum + each.input_tokens - each.input_tokens_details.cached_tokens, 0);
      const output = usage.reduce((sum, each) => sum + each.output_tokens, 0);
      expect(input).toBeGreaterThan(0);
      expect(sample(text, 'gyre_tokens_total{model="openai/gpt-5",kind="input"}')).toBe(input);
      expect(sample(text, 'gyre_tokens_total{model="openai/gpt-5",kind="output"}')).toBe(output);
      const cost = (first.usage as { cost_usd?: number }).cost_usd! + (second.usage as { cost_usd?: number }).cost_usd!;
      expect(cost).toBeGreaterThan(0);
      expect(sample(text, 'gyre_cost_usd_total{model="openai/gpt-5"}')).toBeCloseTo(cost, 10);
      expect(sample(text, "gyre_responses_in_flight")).toBe(0);
    });
  });

  it("shows a held streaming response in flight, and not after its client went away", async () => {
    await withServer({ turns: [held] }, async ({ client, server }) => {
      const controller = new AbortController();
      const stream = await client().responses.create(
        { model: "openai/gpt-5", input: "Wait.", stream: true },
        { signal: controller.signal },
      );
      const iterator = stream[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toMatchObject({ type: "response.created" });
      expect(sample(await metricsOf(server.url), "gyre_responses_in_flight")).toBe(1);
      controller.abort();
      await until(
        async () => (sample(await metricsOf(server.url), "gyre_responses_in_flight") ?? 1) === 0 || undefined,
      );
    });
  });

  it("needs a key when keys are configured", async () => {
    await withServer(
      { turns: [mockTurn.text("hi")] },
      async ({ server }) => {
        expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
        expect(
          (await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer not-a-key-at-all" } })).status,
        ).toBe(401);
        expect(await metricsOf(server.url, "key-one-123456")).toContain("gyre_responses_in_flight 0");
      },
      { apiKeys: ["key-one-123456"] },
    );
  });
});

describe("gyre serve per-key limits", () => {
  it("refuses a key's response over its concurrency limit with 429 and Retry-After, other keys unaffected", async () => {
    const keys = ["key-alpha-123456", "key-bravo-123456"];
    await withServer(
      { turns: [held] },
      async ({ client, server }) => {
        const controller = new AbortController();
        const stream = await client(keys[0]).responses.create(
          { model: "openai/gpt-5", input: "Hold on.", stream: true },
          { signal: controller.signal },
        );
        const iterator = stream[Symbol.asyncIterator]();
        await iterator.next();
        const refused = await post(server.url, keys[0]!, { model: "openai/gpt-5", input: "Another." });
        expect(refused.status).toBe(429);
        expect(refused.headers.get("retry-after")).toBe("1");
        expect(await refused.json()).toEqual({
          error: {
            message: expect.stringContaining("concurrent"),
            type: "rate_limit_error",
            param: null,
            code: "rate_limit_exceeded",
          },
        });
        // The other key has its own slot (its request is held too; it is refused by nothing).
        const other = new AbortController();
        const otherStream = await client(keys[1]).responses.create(
          { model: "openai/gpt-5", input: "Me too.", stream: true },
          { signal: other.signal },
        );
        expect((await otherStream[Symbol.asyncIterator]().next()).value).toMatchObject({ type: "response.created" });
        other.abort();
        // The slot comes back when the first client goes away.
        controller.abort();
        const admitted = await until(async () => {
          const response = await post(server.url, keys[0]!, { model: "openai/gpt-5", input: "Now?", stream: true });
          if (response.status === 429) return undefined;
          return response;
        });
        expect(admitted.status).toBe(200);
        await admitted.body?.cancel();
        const text = await metricsOf(server.url, keys[0]);
        // The refusal above and any while the slot was coming back.
        expect(
          sample(text, 'gyre_http_requests_total{route="/v1/responses",method="POST",status="429"}'),
        ).toBeGreaterThan(0);
      },
      { apiKeys: keys, limits: { concurrentResponses: 1 } },
    );
  });

  it("refuses over the rate per minute with the seconds until the next slot, and admits again after them", async () => {
    let now = 1_000_000;
    await withServer(
      { turns: [mockTurn.text("ok")] },
      async ({ server }) => {
        const ask = () => post(server.url, "key-rate-12345678", { model: "openai/gpt-5", input: "hi" });
        expect((await ask()).status).toBe(200);
        expect((await ask()).status).toBe(200);
        const refused = await ask();
        expect(refused.status).toBe(429);
        // Two per minute: one slot every 30 s.
        expect(refused.headers.get("retry-after")).toBe("30");
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
        now += 29_000;
        expect((await ask()).status).toBe(429);
        now += 1_000;
        expect((await ask()).status).toBe(200);
        expect((await ask()).status).toBe(429);
      },
      { apiKeys: ["key-rate-12345678"], limits: { requestsPerMinute: 2 }, now: () => now },
    );
  });

  it("gives the slot back when a request is refused after admission (unknown previous response)", async () => {
    await withServer(
      { turns: [mockTurn.text("ok")] },
      async ({ server }) => {
        const key = "key-slot-12345678";
        const missing = await post(server.url, key, {
          model: "openai/gpt-5",
          input: "x",
          previous_response_id: "resp_x",
        });
        expect(missing.status).toBe(400);
        expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("previous_response_not_found");
        expect((await post(server.url, key, { model: "openai/gpt-5", input: "hi" })).status).toBe(200);
        expect((await post(server.url, key, { model: "openai/gpt-5", input: "again" })).status).toBe(200);
      },
      { apiKeys: ["key-slot-12345678"], limits: { concurrentResponses: 1 } },
    );
  });
});

function post(url: string, key: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
}

describe("gyre serve request log", () => {
  it("reports each request once its response has ended (a stream at its last event), with the response's id", async () => {
    const entries: RequestLogEntry[] = [];
    const script = { turns: [mockTurn.text("one two three four five six", { chunkDelayMs: 40 })] };
    await withServer(
      script,
      async ({ client, server }) => {
        const stream = await client().responses.create({ model: "openai/gpt-5", input: "count", stream: true });
        let id = "";
        for await (const event of stream) if (event.type === "response.completed") id = event.response.id;
        expect((await fetch(`${server.url}/v1/nowhere`)).status).toBe(404);
        const [streamed, missing] = await until(async () => (entries.length === 2 ? entries : undefined));
        expect(streamed).toMatchObject({ method: "POST", path: "/v1/responses", status: 200, responseId: id });
        // Timed to the stream's end, not its headers: the mock spaced its events 40 ms apart.
        expect(streamed?.durationMs).toBeGreaterThan(150);
        expect(missing).toEqual({ method: "GET", path: "/v1/nowhere", status: 404, durationMs: expect.any(Number) });
      },
      { logRequest: (entry) => entries.push(entry) },
    );
  });
});
