import { describe, expect, it } from "vitest";
import { SseStream } from "./sse.js";

const decoder = new TextDecoder();
const nextTurn = () => new Promise((done) => setImmediate(done));

/** The chunks the stream has written so far (each one socket write for the HTTP server). */
function chunksOf(sse: SseStream) {
  const chunks: string[] = [];
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
});
