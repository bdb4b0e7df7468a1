import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeFetch } from "./node-fetch.js";

// nodeFetch against a real HTTP server on 127.0.0.1: what the model providers need of fetch,
// and failures shaped as fetch's are.

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;
const routes = new Map<string, Handler>();
const sockets = new Set<string>();
let server: Server;
let origin: string;
/** Set by the route "/hold": ends the held response. */
let release: (() => void) | undefined;

beforeAll(async () => {
  server = createServer((request, response) => {
    sockets.add(`${request.socket.remotePort}`);
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk));
    request.on("end", () => routes.get(new URL(request.url ?? "/", "http://x").pathname)?.(request, body, response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  routes.set("/echo", (request, body, response) => {
    response.writeHead(201, "Made", { "content-type": "application/json", "x-multi": ["a", "b"] });
    response.end(JSON.stringify({ method: request.method, headers: request.headers, body }));
  });
  routes.set("/gzip", (_request, _body, response) => {
    response.writeHead(200, { "content-encoding": "gzip" });
    response.end(gzipSync("zipped text"));
  });
  routes.set("/br", (_request, _body, response) => {
    response.writeHead(200, { "content-encoding": "br" });
    response.end(brotliCompressSync("brotli text"));
  });
  routes.set("/events", (_request, _body, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write("data: first\n\n");
    release = () => response.end("data: last\n\n");
  });
  routes.set("/cut", (request, _body, response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write("data: partial\n\n", () => setImmediate(() => request.socket.destroy()));
  });
  routes.set("/hold", (_request, _body, response) => {
    response.writeHead(200);
    response.write("started");
  });
  routes.set("/moved", (_request, _body, response) => {
    response.writeHead(307, { location: "/echo" });
    response.end();
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function readFirst(body: ReadableStream<Uint8Array> | null): Promise<string> {
  const reader = body!.getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  return new TextDecoder().decode(value);
}

describe("nodeFetch", () => {
  it("sends a JSON request as fetch does and reads status, headers and body", async () => {
    const response = await nodeFetch(`${origin}/echo`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Api-Key": "k" },
      body: JSON.stringify({ é: 1 }),
    });
    expect(response.ok).toBe(true);
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.headers.get("Content-Type")).toBe("application/json");
    expect(response.headers.get("x-multi")).toBe("a, b");
    expect(Object.fromEntries([...response.headers])).toMatchObject({ "content-type": "application/json" });
    const echoed = (await response.json()) as { method: string; headers: Record<string, string>; body: string };
    expect(echoed.method).toBe("POST");
    expect(echoed.body).toBe('{"é":1}');
    expect(echoed.headers).toMatchObject({
      "content-type": "application/json",
      "x-api-key": "k",
      "content-length": String(Buffer.byteLength('{"é":1}')),
      "accept-encoding": "gzip, deflate, br",
    });
    expect(response.bodyUsed).toBe(true);
  });

  it("takes headers as a Headers object or pairs too", async () => {
    const fromHeaders = await nodeFetch(`${origin}/echo`, { headers: new Headers({ "X-One": "1" }) });
    expect(((await fromHeaders.json()) as { headers: object }).headers).toMatchObject({ "x-one": "1" });
    const fromPairs = await nodeFetch(`${origin}/echo`, { headers: [["X-Two", "2"]] });
    expect(((await fromPairs.json()) as { headers: object }).headers).toMatchObject({ "x-two": "2" });
  });

  it("decompresses gzip and brotli bodies", async () => {
    expect(await (await nodeFetch(`${origin}/gzip`)).text()).toBe("zipped text");
    expect(await (await nodeFetch(`${origin}/br`)).text()).toBe("brotli text");
  });

  it("streams the body as it arrives", async () => {
    const response = await nodeFetch(`${origin}/events`);
    const reader = response.body!.getReader();
    // The server has sent the first event only: it is read before the response ends.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: first\n\n");
    release?.();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += new TextDecoder().decode(chunk.value);
    }
    expect(rest).toBe("data: last\n\n");
  });

  it("reuses a kept-alive connection", async () => {
    sockets.clear();
    for (let i = 0; i < 3; i++) await (await nodeFetch(`${origin}/echo`)).text();
    expect(sockets.size).toBe(1);
  });

  it("fails as fetch does when the server cannot be reached: TypeError fetch failed, the socket error its cause", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await nodeFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("fetch failed");
    expect(((error as Error).cause as { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("a body cut short errors as fetch's does (terminated), a network error", async () => {
    const response = await nodeFetch(`${origin}/cut`);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: partial\n\n");
    const error = await reader.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("terminated");
  });

  it("an abort before the reply rejects with the signal's reason; an abort during the body ends it with it", async () => {
    const early = new AbortController();
    early.abort();
    await expect(nodeFetch(`${origin}/echo`, { signal: early.signal })).rejects.toMatchObject({ name: "AbortError" });

    const late = new AbortController();
    const response = await nodeFetch(`${origin}/hold`, { signal: late.signal });
    expect(await readFirst(response.body)).toBe("started");
    const reason = new Error("the user pressed Esc");
    late.abort(reason);
    await expect(response.body!.getReader().read()).rejects.toBe(reason);
  });

  it("hands a redirect and a body it does not send itself to the global fetch", async () => {
    const moved = await nodeFetch(`${origin}/moved`, { method: "POST", body: "again" });
    expect(moved.status).toBe(201);
    expect(((await moved.json()) as { body: string }).body).toBe("again");
    const form = await nodeFetch(`${origin}/echo`, { method: "POST", body: new URLSearchParams({ a: "1" }) });
    const echoed = (await form.json()) as { body: string; headers: Record<string, string> };
    expect(echoed.body).toBe("a=1");
    expect(echoed.headers["content-type"]).toContain("application/x-www-form-urlencoded");
  });
});
