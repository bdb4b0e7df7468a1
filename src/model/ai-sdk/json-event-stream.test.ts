import { EventSourceParserStream } from "eventsource-parser/stream";
import { describe, expect, it } from "vitest";
import { jsonEventStream } from "./json-event-stream.js";

/** What the AI SDK's providers do: three stages (provider-utils' parseJsonEventStream). */
function threeStages<T>(stream: ReadableStream<Uint8Array>, parse: (data: string) => Promise<T>) {
  return stream
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .pipeThrough(
      new TransformStream<{ data: string }, T>({
        async transform({ data }, controller) {
          if (data === "[DONE]") return;
          controller.enqueue(await parse(data));
        },
      }),
    );
}

/** As provider-utils' safeParseJSON answers: never throws, and awaits (its schema check is async). */
async function parse(data: string): Promise<{ ok: true; value: unknown } | { ok: false; text: string }> {
  await Promise.resolve();
  try {
    return { ok: true, value: JSON.parse(data) as unknown };
  } catch {
    return { ok: false, text: data };
  }
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream as unknown as AsyncIterable<T>) out.push(item);
  return out;
}

/** `bytes` cut at `cuts` random places (seeded, so a failure can be replayed). */
function chunked(bytes: Uint8Array, cuts: number, seed: number): Uint8Array[] {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const at = [...new Set(Array.from({ length: cuts }, () => Math.floor(random() * bytes.length)))].sort(
    (a, b) => a - b,
  );
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  return chunks;
}

const encoder = new TextEncoder();
const anthropicReply = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","content":[],"usage":{"input_tokens":9}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Grüße, 世界 🌍"}}\n\n',
  ": a comment line\n\n",
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join("");

const replies: Record<string, Uint8Array> = {
  "an Anthropic reply with multi-byte characters": encoder.encode(anthropicReply),
  "CRLF and CR line ends, ids, retry, multi-line data": encoder.encode(
    'id: 1\r\ndata: {"a":\r\ndata: 1}\r\n\r\nretry: 100\rdata: {"b":2}\r\rdata: [DONE]\n\n',
  ),
  "a byte order mark, [DONE], data that is not JSON": encoder.encode(
    '\uFEFFdata: {"first":true}\n\ndata: not json\n\ndata: [DONE]\n\n',
  ),
  "an event the stream ends in the middle of": encoder.encode('data: {"whole":1}\n\ndata: {"cut":'),
  "bytes that are not UTF-8": Uint8Array.from([
    ...encoder.encode('data: {"t":"'),
    0xff,
    0xc3,
    ...encoder.encode('"}\n\n'),
  ]),
  "a multi-byte character at the very end": Uint8Array.from([
    ...encoder.encode('data: {"x":1}\n\ndata: "'),
    0xe4,
    0xb8,
  ]),
};

describe("jsonEventStream", () => {
  for (const [name, bytes] of Object.entries(replies)) {
    it(`reads ${name} as the three stages do, however the bytes are cut`, async () => {
      const expected = await readAll(threeStages(streamOf([bytes]), parse));
      expect(expected.length).toBeGreaterThan(0);
      for (let seed = 1; seed <= 40; seed++) {
        const chunks = chunked(bytes, 1 + (seed % 12), seed);
        const [three, one] = await Promise.all([
          readAll(threeStages(streamOf(chunks), parse)),
          readAll(streamOf(chunks).pipeThrough(jsonEventStream(parse))),
        ]);
        expect(three).toEqual(expected);
        expect(one).toEqual(expected);
      }
    });
  }

  it("hands on the source's error", async () => {
    const failure = new TypeError("terminated");
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: {"n":1}\n\n'));
        controller.error(failure);
      },
    });
    await expect(readAll(source.pipeThrough(jsonEventStream(parse)))).rejects.toBe(failure);
  });

  it("parses a chunk's events one at a time, in order, though the parse is slow", async () => {
    let parsing = 0;
    let mostAtOnce = 0;
    const slowParse = async (data: string) => {
      mostAtOnce = Math.max(mostAtOnce, ++parsing);
      await new Promise((resolve) => setImmediate(resolve));
      parsing -= 1;
      return data;
    };
    const bytes = encoder.encode("data: 1\n\ndata: 2\n\ndata: 3\n\n");
    const out = await readAll(streamOf(chunked(bytes, 2, 7)).pipeThrough(jsonEventStream(slowParse)));
    expect(out).toEqual(["1", "2", "3"]);
    expect(mostAtOnce).toBe(1);
  });
});
