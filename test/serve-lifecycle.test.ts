import { ResponsesWS } from "openai/resources/responses/ws";
import type { ResponsesServerEvent, ResponseStreamEvent } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { MemorySessionStore } from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { upstreamBody, withServer } from "./serve-support.js";

const MODEL = "anthropic/claude-sonnet-4-5";

/** Every event of a stream, in order. */
async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("gyre serve background responses", () => {
  it("returns at once, and cancel stops the run: the response ends cancelled for good", async () => {
    // The upstream never answers on its own: only the cancel ends the run.
    await withServer(
      { turns: [mockTurn.text("never", { delayMs: 600_000 })] },
      async ({ client }) => {
        const openai = client("key-one-123");
        const created = await openai.responses.create({ model: MODEL, input: "Work slowly.", background: true });
        expect(created.background).toBe(true);
        expect(created.status).toBe("queued");
        expect(["queued", "in_progress"]).toContain((await openai.responses.retrieve(created.id)).status);
        // Another key cannot see it, so cannot cancel it.
        await expect(client("key-two-456").responses.cancel(created.id)).rejects.toMatchObject({ status: 404 });
        const cancelled = await openai.responses.cancel(created.id);
        expect(cancelled.status).toBe("cancelled");
        expect((await openai.responses.retrieve(created.id)).status).toBe("cancelled");
        // Cancelling again changes nothing.
        expect((await openai.responses.cancel(created.id)).status).toBe("cancelled");
      },
      { apiKeys: ["key-one-123", "key-two-456"] },
    );
  });

  it("deleting a running background response cancels it, and it stays deleted", async () => {
    const sessionStore = new MemorySessionStore();
    let id = "";
    await withServer(
      { turns: [mockTurn.text("never", { delayMs: 600_000 })] },
      async ({ client }) => {
        const openai = client();
        id = (await openai.responses.create({ model: MODEL, input: "Work slowly.", background: true })).id;
        await openai.responses.delete(id);
        await expect(openai.responses.retrieve(id)).rejects.toMatchObject({ status: 404 });
      },
      { sessionStore },
    );
    // Had it kept running, closing the server would have cancelled it and stored it again.
    expect(await sessionStore.records.responses.get(id)).toBeUndefined();
    expect(await sessionStore.getSession(`${id}-run`)).toBeUndefined();
  });

  it("refuses to cancel a response that is not a background one, and background without store", async () => {
    await withServer({ turns: [mockTurn.text("Done.")] }, async ({ client }) => {
      const openai = client();
      const plain = await openai.responses.create({ model: MODEL, input: "Hi." });
      await expect(openai.responses.cancel(plain.id)).rejects.toMatchObject({ status: 400 });
      await expect(
        openai.responses.create({ model: MODEL, input: "Hi.", background: true, store: false }),
      ).rejects.toMatchObject({ status: 400, param: "store" });
    });
  });

  it("keeps running when the streaming client goes away, and replays from starting_after", async () => {
    const script = { turns: [mockTurn.text("A background answer in several words.", { chunkDelayMs: 5 })] };
    await withServer(script, async ({ client }) => {
      const openai = client();
      const stream = await openai.responses.create({ model: MODEL, input: "Go.", background: true, stream: true });
      let first: ResponseStreamEvent | undefined;
      for await (const event of stream) {
        first = event;
        break; // the client goes away after the first event
      }
      expect(first).toMatchObject({ type: "response.created", sequence_number: 0 });
      const id = (first as Extract<ResponseStreamEvent, { type: "response.created" }>).response.id;

      // Follows the run (live or stored) to its end, from the start.
      const all = await collect(await openai.responses.retrieve(id, { stream: true }));
      expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, index) => index));
      expect(all.at(-1)).toMatchObject({ type: "response.completed" });
      const done = all.at(-1) as Extract<ResponseStreamEvent, { type: "response.completed" }>;
      expect(done.response.output[0]).toMatchObject({
        content: [{ type: "output_text", text: "A background answer in several words." }],
      });
      expect((await openai.responses.retrieve(id)).status).toBe("completed");

      // The stored events replay after the run, from any point.
      const tail = await collect(await openai.responses.retrieve(id, { stream: true, starting_after: 3 }));
      expect(tail).toEqual(all.slice(4));
      const deltas = tail.filter((event) => event.type === "response.output_text.delta");
      expect(deltas.length).toBeGreaterThan(0);
    });
  });

  it("streams only background responses again", async () => {
    await withServer({ turns: [mockTurn.text("Done.")] }, async ({ client }) => {
      const openai = client();
      const plain = await openai.responses.create({ model: MODEL, input: "Hi." });
      await expect(openai.responses.retrieve(plain.id, { stream: true })).rejects.toMatchObject({ status: 400 });
    });
  });
});

/** The server events of one response on a socket, up to its terminal event or error. */
async function untilDone(iterator: AsyncIterator<unknown>): Promise<ResponsesServerEvent[]> {
  const events: ResponsesServerEvent[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done) throw new Error("the socket closed before the response ended");
    const message = next.value as { type: string; message?: ResponsesServerEvent; error?: { error?: unknown } };
    if (message.type === "error") {
      events.push(message.error?.error as ResponsesServerEvent);
      return events;
    }
    if (message.type !== "message" || !message.message) continue;
    events.push(message.message);
    if (["response.completed", "response.failed", "response.incomplete", "error"].includes(message.message.type))
      return events;
  }
}

describe("gyre serve WebSocket mode", () => {
  it("runs two sequential responses on one socket, continuing a store:false one there only", async () => {
    const script = { turns: [mockTurn.text("The code word is cobalt."), mockTurn.text("cobalt")] };
    await withServer(script, async ({ client, mock }) => {
      const openai = client();
      const socket = new ResponsesWS(openai);
      const iterator = socket.stream();
      try {
        socket.send({ type: "response.create", model: MODEL, store: false, input: "Remember: cobalt." });
        const first = await untilDone(iterator);
        expect(first.map((event) => event.sequence_number)).toEqual(first.map((_, index) => index));
        const firstDone = first.at(-1) as Extract<ResponsesServerEvent, { type: "response.completed" }>;
        expect(firstDone.type).toBe("response.completed");
        expect(firstDone.response.output[0]).toMatchObject({
          content: [{ type: "output_text", text: "The code word is cobalt." }],
        });

        socket.send({
          type: "response.create",
          model: MODEL,
          store: false,
          previous_response_id: firstDone.response.id,
          input: "What is the code word?",
        });
        const second = await untilDone(iterator);
        expect(second[0]).toMatchObject({ type: "response.created", sequence_number: 0 });
        expect(second.at(-1)).toMatchObject({ type: "response.completed" });
        // The continuation sent the first exchange upstream: the socket kept it.
        expect(JSON.stringify(upstreamBody(mock, 1))).toContain("The code word is cobalt.");
        // store: false: nothing of it is on the server.
        await expect(openai.responses.retrieve(firstDone.response.id)).rejects.toMatchObject({ status: 404 });

        // Another socket does not have it.
        const other = new ResponsesWS(openai);
        const otherIterator = other.stream();
        other.send({
          type: "response.create",
          model: MODEL,
          store: false,
          previous_response_id: firstDone.response.id,
          input: "And now?",
        });
        const refused = await untilDone(otherIterator);
        expect(refused.at(-1)).toMatchObject({ type: "error", error: { code: "previous_response_not_found" } });
        other.close();
      } finally {
        socket.close();
      }
    });
  });

  it("lets at most 8 messages wait on a socket: more are refused with 429, not queued", async () => {
    await withServer({ turns: [mockTurn.text("never", { delayMs: 600_000 })] }, async ({ client }) => {
      const socket = new ResponsesWS(client());
      const iterator = socket.stream();
      try {
        for (let index = 0; index < 10; index++)
          socket.send({ type: "response.create", model: MODEL, store: false, input: `Request ${index}` });
        const refusals: unknown[] = [];
        while (refusals.length < 2) {
          const events = await untilDone(iterator);
          const last = events.at(-1);
          if (last?.type === "error") refusals.push(last);
        }
        expect(refusals).toMatchObject([
          { type: "error", error: { code: "rate_limit_exceeded" } },
          { type: "error", error: { code: "rate_limit_exceeded" } },
        ]);
      } finally {
        socket.close(); // cancels the running response
      }
    });
  });

  it("without keys, refuses sockets that a web page of another site opens", async () => {
    await withServer({ turns: [mockTurn.text("Hi.")] }, async ({ server }) => {
      const url = `${server.url.replace("http", "ws")}/v1/responses`;
      const status = (origin?: string) =>
        new Promise<number>((resolve, reject) => {
          const socket = new WebSocket(url, origin === undefined ? {} : { origin });
          socket.on("open", () => {
            socket.close();
            resolve(101);
          });
          socket.on("unexpected-response", (_, response) => resolve(response.statusCode ?? 0));
          socket.on("error", reject);
        });
      expect(await status("https://evil.example")).toBe(403);
      expect(await status("http://localhost:3000")).toBe(101);
      expect(await status()).toBe(101);
    });
  });

  it("refuses a socket without a valid key", async () => {
    await withServer(
      { turns: [] },
      async ({ client }) => {
        const socket = new ResponsesWS(client("wrong-key-000"));
        const messages = await collect(socket.stream());
        expect(messages.some((message) => message.type === "error")).toBe(true);
        expect(messages.some((message) => message.type === "message")).toBe(false);
      },
      { apiKeys: ["right-key-111"] },
    );
  });
});

describe("gyre serve compaction", () => {
  it("compacts a conversation into a compaction item that a new response takes as input", async () => {
    await withServer(
      { turns: [mockTurn.text("SUMMARY: launch on Tuesday, tell support first.")] },
      async ({ client, mock }) => {
        const openai = client();
        const compacted = await openai.responses.compact({
          model: MODEL,
          input: [
            { role: "user", content: "We agreed to launch on Tuesday and notify support first." },
            { role: "assistant", content: "Understood: Tuesday, support first." },
          ],
        });
        expect(compacted.object).toBe("response.compaction");
        expect(compacted.output).toHaveLength(1);
        const item = compacted.output[0] as { type: string; encrypted_content: string };
        expect(item.type).toBe("compaction");
        expect(item.encrypted_content).not.toContain("Tuesday"); // opaque to the client
        expect(compacted.usage.output_tokens).toBeGreaterThan(0);
        // The summary call went to the model with the turns after the first request.
        expect(JSON.stringify(upstreamBody(mock, 0))).toContain("Understood: Tuesday, support first.");

        const next = await openai.responses.create({
          model: MODEL,
          input: [...(compacted.output as never[]), { role: "user", content: "When do we launch?" }],
        });
        expect(next.status).toBe("completed");
        const sent = JSON.stringify(upstreamBody(mock, 1));
        expect(sent).toContain("SUMMARY: launch on Tuesday");
        expect(sent).toContain("We agreed to launch on Tuesday"); // the first request is kept as it was
        expect(sent).toContain("We agreed to launch on Tuesday"); // the first request is kept as it was
        expect(sent).toContain("When do we launch?");

        // A compaction item the server did not make is refused.
        await expect(
          openai.responses.create({
            model: MODEL,
            input: [{ type: "compaction", encrypted_content: "forged" } as never, { role: "user", content: "Hi." }],
          }),
        ).rejects.toMatchObject({ status: 400, param: "input[0].encrypted_content" });
        await expect(openai.responses.compact({ input: "Hi." } as never)).rejects.toMatchObject({
          status: 400,
          param: "model",
        });
      },
    );
  });
});
