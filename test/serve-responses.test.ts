import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { MemorySessionStore, openSqliteSessionStore } from "../src/sessions/index.js";
import { type MockTurn, mockTurn } from "../src/testing/index.js";
import { upstreamBody, UPSTREAMS, weatherTool, withServer } from "./serve-support.js";

const timeTool = { ...weatherTool, name: "get_time", description: "Time in a city" };

/** A 1x1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe.each(UPSTREAMS)("gyre serve with the $name upstream", (upstream) => {
  it("answers responses.create, and the stored response reads back the same", async () => {
    await withServer({ turns: [mockTurn.text("Hello there.")] }, async ({ client }) => {
      const openai = client();
      const response = await openai.responses.create({ model: upstream.model, input: "Say hello." });
      expect(response.id).toMatch(/^resp_/);
      expect(response.status).toBe("completed");
      expect(response.output_text).toBe("Hello there.");
      expect(response.output).toHaveLength(1);
      expect(response.output[0]).toMatchObject({ type: "message", role: "assistant", status: "completed" });
      expect(response.usage?.input_tokens).toBeGreaterThan(0);
      expect(response.usage?.output_tokens).toBeGreaterThan(0);
      expect(response.usage?.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
      const stored = await openai.responses.retrieve(response.id);
      expect(stored.output).toEqual(response.output);
      const items = await openai.responses.inputItems.list(response.id);
      expect(items.data).toMatchObject([{ type: "message", role: "user", content: "Say hello." }]);
    });
  });

  it("streams the spec's events in order with increasing sequence numbers, ending in [DONE]", async () => {
    await withServer({ turns: [mockTurn.text("Streaming works fine.")] }, async ({ client, server }) => {
      const events: ResponseStreamEvent[] = [];
      const stream = client().responses.stream({ model: upstream.model, input: "Stream please." });
      for await (const event of stream) events.push(event);
      const final = await stream.finalResponse();
      const types = events.map((event) => event.type);
      expect(types.slice(0, 4)).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
      ]);
      expect(types.slice(-4)).toEqual([
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ]);
      const sequence = events.map((event) => event.sequence_number);
      expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
      expect(new Set(sequence).size).toBe(sequence.length);
      const deltas = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : []));
      expect(deltas.join("")).toBe("Streaming works fine.");
      expect(final.output_text).toBe("Streaming works fine.");
      // The raw stream ends with the [DONE] sentinel.
      const raw = await fetch(`${server.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: upstream.model, input: "again", stream: true }),
      });
      expect(raw.headers.get("content-type")).toContain("text/event-stream");
      expect((await raw.text()).trimEnd().endsWith("data: [DONE]")).toBe(true);
    });
  });

  it("returns the client's function call, then continues with its output through previous_response_id", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("get_weather", { city: "Paris" }, { id: "call_w1" }),
        mockTurn.text("It is sunny in Paris."),
      ],
    };
    await withServer(script, async ({ client, mock }) => {
      const openai = client();
      const first = await openai.responses.create({
        model: upstream.model,
        input: "Weather in Paris?",
        tools: [weatherTool],
      });
      expect(first.status).toBe("completed");
      expect(first.output).toHaveLength(1);
      const call = first.output[0];
      expect(call).toMatchObject({
        type: "function_call",
        name: "get_weather",
        call_id: "call_w1",
        status: "completed",
      });
      if (call?.type !== "function_call") throw new Error("expected a function call");
      expect(JSON.parse(call.arguments)).toEqual({ city: "Paris" });
      // The server executed nothing: one upstream request so far.
      expect(mock.requests).toHaveLength(1);

      const second = await openai.responses.create({
        model: upstream.model,
        previous_response_id: first.id,
        input: [{ type: "function_call_output", call_id: call.call_id, output: "sunny, 24 C" }],
        tools: [weatherTool],
      });
      expect(second.output_text).toBe("It is sunny in Paris.");
      expect(second.previous_response_id).toBe(first.id);
      const sent = JSON.stringify(upstreamBody(mock, 1));
      expect(sent).toContain("sunny, 24 C");
      expect(sent).toContain("Weather in Paris?");

      // The same continuation with the full history and nothing stored.
      const stateless = await openai.responses.create({
        model: upstream.model,
        store: false,
        input: [
          { role: "user", content: "Weather in Paris?" },
          { type: "function_call", call_id: "call_w1", name: "get_weather", arguments: '{"city":"Paris"}' },
          { type: "function_call_output", call_id: "call_w1", output: "rainy, 12 C" },
        ],
        tools: [weatherTool],
      });
      expect(stateless.output_text).toBe("It is sunny in Paris.");
      expect(JSON.stringify(upstreamBody(mock, 2))).toContain("rainy, 12 C");
    });
  });

  it("passes a forced tool_choice upstream and returns the forced call", async () => {
    await withServer({ turns: [mockTurn.toolUse("get_time", { city: "Oslo" })] }, async ({ client, mock }) => {
      const response = await client().responses.create({
        model: upstream.model,
        input: "What time is it in Oslo?",
        tools: [weatherTool, timeTool],
        tool_choice: { type: "function", name: "get_time" },
      });
      expect(response.output).toMatchObject([{ type: "function_call", name: "get_time" }]);
      expect(response.tool_choice).toEqual({ type: "function", name: "get_time" });
      const choice = upstreamBody(mock, 0).tool_choice;
      expect(choice).toEqual(
        upstream.name === "anthropic" ? { type: "tool", name: "get_time" } : { type: "function", name: "get_time" },
      );
    });
  });

  it("refuses a call outside allowed_tools without returning it, and the model tries again", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("get_weather", { city: "Rome" }, { id: "call_refused" }),
        mockTurn.toolUse("get_time", { city: "Rome" }, { id: "call_allowed" }),
      ],
    };
    await withServer(script, async ({ client, mock }) => {
      const response = await client().responses.create({
        model: upstream.model,
        input: "Time in Rome?",
        tools: [weatherTool, timeTool],
        tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "get_time" }] },
      });
      expect(response.output.map((item) => item.type === "function_call" && item.call_id)).toEqual(["call_allowed"]);
      // The model was offered only the allowed tool, before it answered; a call to the other one
      // (a model may still try) got an error result, never the client.
      const firstTools = JSON.stringify(upstreamBody(mock, 0).tools);
      expect(firstTools).not.toContain("get_weather");
      expect(firstTools).toContain("get_time");
      const retry = JSON.stringify(upstreamBody(mock, 1));
      expect(retry).toContain("call_refused");
      expect(retry).toContain("No such tool available: get_weather. Available tools: get_time");
    });
  });

  it("asks the upstream for structured output with text.format json_schema", async () => {
    await withServer({ turns: [mockTurn.text('{"city":"Lima","celsius":19}')] }, async ({ client, mock }) => {
      const schema = {
        type: "object",
        properties: { city: { type: "string" }, celsius: { type: "number" } },
        required: ["city", "celsius"],
        additionalProperties: false,
      };
      const response = await client().responses.create({
        model: upstream.model,
        input: "Weather in Lima as JSON.",
        text: { format: { type: "json_schema", name: "weather", schema, strict: true } },
      });
      expect(JSON.parse(response.output_text)).toEqual({ city: "Lima", celsius: 19 });
      expect(response.text?.format).toMatchObject({ type: "json_schema", name: "weather" });
      expect(JSON.stringify(upstreamBody(mock, 0))).toContain('"celsius"');
    });
  });

  it("sends an image input upstream as an image", async () => {
    await withServer({ turns: [mockTurn.text("A single pixel.")] }, async ({ client, mock }) => {
      const response = await client().responses.create({
        model: upstream.model,
        input: [
          {
            role: "user",
            content: [
              { type: "input_text", text: "What is this?" },
              { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "auto" },
            ],
          },
        ],
      });
      expect(response.output_text).toBe("A single pixel.");
      const body = JSON.stringify(upstreamBody(mock, 0));
      expect(body).toContain(PNG);
      expect(body).toContain(upstream.name === "anthropic" ? '"type":"image"' : '"type":"input_image"');
    });
  });
});

describe("gyre serve storage", () => {
  it("keeps nothing with store: false; a stored response is a record, its run a session of the serve project", async () => {
    const store = openSqliteSessionStore({ path: join(mkdtempSync(join(tmpdir(), "gyre-serve-store-")), "s.db") });
    try {
      await withServer(
        { turns: [mockTurn.text("not kept"), mockTurn.text("kept")] },
        async ({ client }) => {
          const openai = client();
          const ephemeral = await openai.responses.create({
            model: "anthropic/claude-sonnet-4-5",
            input: "a",
            store: false,
          });
          expect(await store.listSessions({ project: "gyre-serve:local" })).toEqual([]);
          expect(await store.records.responses.get(ephemeral.id)).toBeUndefined();
          await expect(openai.responses.retrieve(ephemeral.id)).rejects.toMatchObject({ status: 404 });
          await expect(
            openai.responses.create({
              model: "anthropic/claude-sonnet-4-5",
              input: "b",
              previous_response_id: ephemeral.id,
            }),
          ).rejects.toMatchObject({ status: 400, code: "previous_response_not_found", param: "previous_response_id" });

          const kept = await openai.responses.create({ model: "anthropic/claude-sonnet-4-5", input: "c" });
          const sessions = await store.listSessions({ project: "gyre-serve:local" });
          expect(sessions.map((session) => session.id)).toEqual([`${kept.id}-run`]);
          expect(await store.records.responses.get(kept.id)).toMatchObject({ id: kept.id, status: "completed" });
          // The run's own messages are in its session: the prompt and the model's answer.
          const run = await store.getSessionMessages(`${kept.id}-run`);
          expect(run.filter((m) => m.type === "assistant")).toHaveLength(1);

          expect(await openai.responses.delete(kept.id)).toMatchObject({ id: kept.id, deleted: true });
          expect(await store.listSessions({ project: "gyre-serve:local" })).toEqual([]);
          expect(await store.records.responses.get(kept.id)).toBeUndefined();
          await expect(openai.responses.retrieve(kept.id)).rejects.toMatchObject({ status: 404 });
        },
        { sessionStore: store },
      );
    } finally {
      await store.close();
    }
  });

  it("cancels the run when the client disconnects mid-stream, and stores the response as cancelled", async () => {
    const slow: MockTurn = { ...mockTurn.text("word ".repeat(400)), chunkDelayMs: 20 };
    await withServer({ turns: [slow] }, async ({ client, mock }) => {
      const openai = client();
      const controller = new AbortController();
      const stream = await openai.responses.create(
        { model: "openai/gpt-5", input: "Talk for a long time.", stream: true },
        { signal: controller.signal },
      );
      let id = "";
      let deltas = 0;
      let whileRunning = "";
      // The client goes away after the third delta (the SDK ends its stream quietly on abort).
      await (async () => {
        for await (const event of stream) {
          if (event.type === "response.created") id = event.response.id;
          if (event.type !== "response.output_text.delta") continue;
          // Stored from the start: the run is held up by the slow upstream (hundreds of chunks to go).
          if (++deltas === 1) whileRunning = (await openai.responses.retrieve(id)).status ?? "";
          // Events already received may still be handed out after the abort: the client stops reading here.
          if (deltas === 3) {
            controller.abort();
            break;
          }
        }
      })().catch(() => undefined);
      expect(deltas).toBe(3);
      expect(whileRunning).toBe("in_progress");
      expect(id).toMatch(/^resp_/);
      const stored = await until(async () => {
        const response = await openai.responses.retrieve(id).catch(() => undefined);
        return response?.status === "cancelled" ? response : undefined;
      });
      expect(stored.output_text.length).toBeLessThan("word ".repeat(400).length);
      expect(mock.requests).toHaveLength(1);
    });
  });
});

describe("gyre serve without streaming", () => {
  it("cancels the run when the client of a plain request goes away", async () => {
    const slow: MockTurn = { ...mockTurn.text("slow ".repeat(400)), chunkDelayMs: 20 };
    const store = new MemorySessionStore();
    await withServer(
      { turns: [slow] },
      async ({ client, mock }) => {
        const controller = new AbortController();
        const request = client().responses.create(
          { model: "anthropic/claude-sonnet-4-5", input: "Take your time." },
          { signal: controller.signal },
        );
        await until(async () => (mock.requests.length === 1 ? true : undefined));
        controller.abort();
        await expect(request).rejects.toThrow();
        // The only stored response is the cancelled one; its id was never sent, so find it through its run's session.
        const stored = await until(async () => {
          const sessions = await store.listSessions({ project: "gyre-serve:local" });
          const id = sessions.find((session) => session.id.endsWith("-run"))?.id.slice(0, -"-run".length);
          const response = id ? await client().responses.retrieve(id) : undefined;
          return response?.status === "cancelled" ? response : undefined;
        });
        expect(stored.output_text.length).toBeLessThan("slow ".repeat(400).length);
      },
      { sessionStore: store },
    );
  });
});

/** Polls `check` until it gives a value (the stored response is written once the aborted run has ended). */
async function until<T>(check: () => Promise<T | undefined>, attempts = 200): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the condition did not hold in time");
}
