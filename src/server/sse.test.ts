import { createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { SseStream } from "./sse.js";

const decoder = new TextDecoder();
const nextTurn = () => new Promise((done) => setImmediate(done));

/** The chunks the stream has written so far (each one socket write for the HTTP server). */
function chunksOf(sse: SseStream) {
  const chunks: string[] = [];
  if (!sse.body) throw new Error("a web stream was expected");
  const reader = sse.body.getReader();
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      chunks.push(decoder.decode(value));
    }
  })();
  return { chunks, reading };
}

describe("SseStream", () => {
  it("writes the first events as soon as the sender waits, later ones together once per turn", async () => {
    const sse = new SseStream(() => {});
    const { chunks, reading } = chunksOf(sse);
    sse.send({ type: "response.created" });
    sse.send({ type: "response.in_progress" });
    await Promise.resolve();
    await Promise.resolve();
    // Before any other turn of the event loop: the time to first byte waits for nothing.
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toContain("event: response.created\n");
    expect(chunks[0]).toContain("event: response.in_progress\n");

    sse.send({ type: "response.output_text.delta", delta: "a" });
    await Promise.resolve();
    sse.send({ type: "response.output_text.delta", delta: "b" });
    await nextTurn();
    expect(chunks).toHaveLength(2);
    expect(chunks[1]?.match(/^event: /gm)).toHaveLength(2);

    sse.close();
    await reading;
    const events = chunks
      .join("")
      .split("\n\n")
      .filter((block) => block.startsWith("event: "))
      .map((block) => JSON.parse(block.slice(block.indexOf("data: ") + 6)) as { sequence_number: number });
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3]);
    expect(chunks.at(-1)).toBe("data: [DONE]\n\n");
  });

  it("writes straight to a Node response: the same events and framing, and a client that leaves cancels it", async () => {
    let streams: { sse: SseStream; res: ServerResponse; cancelled: () => boolean }[] = [];
    const server = createServer((_req, res) => {
      let cancelled = false;
      const sse = new SseStream(() => (cancelled = true), undefined, res);
      expect(sse.body).toBeUndefined();
      expect(sse.response().headers.get("x-hono-already-sent")).toBe("true");
      streams.push({ sse, res, cancelled: () => cancelled });
      sse.send({ type: "response.created" });
      sse.send({ type: "response.in_progress" });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    try {
      // A client that reads to the end.
      const whole = await new Promise<{ headers: Record<string, unknown>; text: string }>((done, fail) => {
        const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
            if (text.includes("response.in_progress") && !text.includes("delta")) {
              streams[0]!.sse.send({ type: "response.output_text.delta", delta: "a" });
              streams[0]!.sse.close();
            }
          });
          res.on("end", () => done({ headers: res.headers, text }));
        });
        req.on("error", fail);
        req.end();
      });
      expect(whole.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
      expect(whole.headers["cache-control"]).toBe("no-cache");
      const events = whole.text.split("\n\n").filter((block) => block.startsWith("event: "));
      expect(events.map((block) => JSON.parse(block.slice(block.indexOf("data: ") + 6)).sequence_number)).toEqual([
        0, 1, 2,
      ]);
      expect(whole.text.endsWith("data: [DONE]\n\n")).toBe(true);
      expect(streams[0]!.cancelled()).toBe(false);

      // A client that goes away after the first events: the stream is cancelled, and sending
      // or closing afterwards writes nothing and throws nothing.
      streams = [];
      await new Promise<void>((done, fail) => {
        const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
          res.once("data", () => req.destroy());
        });
        req.on("error", () => {});
        req.on("close", () => done());
        req.end();
        setTimeout(() => fail(new Error("the client did not close")), 5000).unref();
      });
      const left = streams[0]!;
      await new Promise<void>((done) => (left.res.closed ? done() : left.res.once("close", () => done())));
      expect(left.cancelled()).toBe(true);
      left.sse.send({ type: "response.output_text.delta", delta: "late" });
      left.sse.close();
      await nextTurn();
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
});
