import type { ServerResponse } from "node:http";

/** Wait `ms`; resolves `false` early if `signal` aborts (the client went away). */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Send a whole JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
};

/**
 * Stream SSE frames, one every `chunkDelayMs`; stops if the client goes away. Frame i is due
 * at i x chunkDelayMs from the first, as a model's tokens are: a late timer does not push
 * the frames after it later, so the stream's pace does not depend on how busy this process is.
 */
export async function sendStream(
  res: ServerResponse,
  frames: string[],
  chunkDelayMs: number,
  signal: AbortSignal,
): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  const started = performance.now();
  for (const [index, frame] of frames.entries()) {
    const wait = started + index * chunkDelayMs - performance.now();
    if (index > 0 && !(await sleep(wait, signal))) return;
    if (signal.aborted) return;
    res.write(frame);
  }
  res.end();
}

/**
 * Start answering, then destroy the socket: streams get the first `afterChunks` frames,
 * whole answers the first half of their body. Each write is flushed to the socket before
 * the cut, so the client reliably sees the partial answer and then the broken connection.
 */
export async function sendCut(
  res: ServerResponse,
  answer: { frames: string[] } | { json: unknown },
  afterChunks: number | undefined,
): Promise<void> {
  let parts: string[];
  if ("frames" in answer) {
    res.writeHead(200, SSE_HEADERS);
    const count = afterChunks ?? Math.floor(answer.frames.length / 2);
    // An SSE comment (ignored by clients) gets the headers out when no frame is sent.
    parts = count > 0 ? answer.frames.slice(0, count) : [": mock-llm cut\n\n"];
  } else {
    const text = JSON.stringify(answer.json);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    parts = [text.slice(0, Math.floor(text.length / 2))];
  }
  for (const part of parts) await new Promise<void>((resolve) => res.write(part, () => resolve()));
  res.destroy();
}

/**
 * Start streaming, then hold: the first `afterChunks` frames (default 1) go out and the stream
 * stays open, sending nothing more, until the client goes away (a provider that stalls
 * mid-answer). A whole answer is never sent.
 */
export async function sendStall(
  res: ServerResponse,
  frames: string[] | undefined,
  afterChunks: number | undefined,
  signal: AbortSignal,
): Promise<void> {
  if (frames) {
    res.writeHead(200, SSE_HEADERS);
    const count = afterChunks ?? 1;
    const parts = count > 0 ? frames.slice(0, count) : [": mock-llm stall\n\n"];
    for (const part of parts) await new Promise<void>((resolve) => res.write(part, () => resolve()));
  }
  // Until the client leaves (or the mock closes): the longest wait a timer takes, again and again.
  while (await sleep(2 ** 31 - 1, signal));
  res.destroy();
}
