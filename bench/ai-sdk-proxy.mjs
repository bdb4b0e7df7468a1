// The serve bench's second floor: a server that does only what DESIGN.md has every Gyre model call
// do on the wire. Per POST /v1/responses it streams the request's `input` through the AI SDK's
// OpenAI Responses model (`doStream`, with the AI SDK's own fetch) from UPSTREAM_URL, and writes
// each stream part back as one SSE event, then `data: [DONE]`. No loop, no sessions, no storage:
// what it adds to a stream is the least any server built on the AI SDK's provider packages adds.
import { createServer } from "node:http";
import { createOpenAI } from "@ai-sdk/openai";

const model = createOpenAI({ baseURL: `${process.env.UPSTREAM_URL}/v1`, apiKey: "mock" }).responses("gpt-5");

/** The spec's event type for an AI SDK stream part (only the ones the bench reads need to be right). */
function eventType(part) {
  if (part.type === "text-delta") return "response.output_text.delta";
  if (part.type === "finish") return "response.completed";
  return `ai-sdk.${part.type}`;
}

async function answer(input, res) {
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  const { stream } = await model.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: String(input) }] }],
    abortSignal: abort.signal,
  });
  let sequence = 0;
  for await (const part of stream) {
    const type = eventType(part);
    const event = { type, sequence_number: sequence++, ...(part.type === "text-delta" && { delta: part.delta }) };
    res.write(`event: ${type}\ndata: ${JSON.stringify(event)}\n\n`);
  }
  res.end("data: [DONE]\n\n");
}

const server = createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    answer(JSON.parse(Buffer.concat(chunks).toString("utf8")).input, res).catch(() => res.destroy());
  });
});

server.listen(0, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
