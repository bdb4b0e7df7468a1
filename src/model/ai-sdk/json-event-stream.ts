import { createParser, type EventSourceMessage } from "eventsource-parser";

/**
 * A streamed model reply (server-sent events whose data is JSON) read in one stage: bytes in,
 * each event's data parsed by `parse` out, in order. The AI SDK's providers read it through
 * three (`TextDecoderStream`, eventsource-parser's `EventSourceParserStream`, a
 * `TransformStream` that parses each event), and Node's web streams cost time per stage and per
 * chunk: a fifth of a short turn's CPU went to them (`bench/cli.bench.mjs`). The bundled CLI's
 * provider-utils read through this instead (scripts/bundle-cli.mjs), which does what the three
 * do, with the same parser: UTF-8 decoded as `TextDecoder` does it (a leading BOM dropped, bad
 * bytes replaced, a character split across chunks joined), events as eventsource-parser finds
 * them (its errors ignored, an event the stream ends in the middle of dropped), and the data
 * `[DONE]` (OpenAI's end marker) skipped.
 */
export function jsonEventStream<T>(parse: (data: string) => T | PromiseLike<T>): TransformStream<Uint8Array, T> {
  const decoder = new TextDecoder();
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => void events.push(event) });
  const parseEvents = async (text: string, controller: TransformStreamDefaultController<T>) => {
    if (text === "") return;
    parser.feed(text);
    // Taken before the first await: a chunk's events are parsed in order, one at a time.
    const found = events.splice(0);
    for (const { data } of found) {
      if (data !== "[DONE]") controller.enqueue(await parse(data));
    }
  };
  return new TransformStream({
    transform: (chunk, controller) => parseEvents(decoder.decode(chunk, { stream: true }), controller),
    flush: (controller) => parseEvents(decoder.decode(), controller),
  });
}
