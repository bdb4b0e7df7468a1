import {
  type Agent as HttpAgentType,
  Agent as HttpAgent,
  type IncomingMessage,
  request as httpRequest,
} from "node:http";
import type * as Https from "node:https";
import { createRequire } from "node:module";
import { Readable } from "node:stream";
import type * as Zlib from "node:zlib";

type Fetch = typeof globalThis.fetch;

// node:https (with TLS) and node:zlib load at their first use: a start that sends no https
// request or reads no compressed reply before its first model request is spared ~3 ms.
const requireBuiltin = createRequire(import.meta.url);
let httpsModule: typeof Https | undefined;
let zlibModule: typeof Zlib | undefined;
const https = () => (httpsModule ??= requireBuiltin("node:https") as typeof Https);
const zlib = () => (zlibModule ??= requireBuiltin("node:zlib") as typeof Zlib);

/**
 * A `fetch` for model requests over `node:http`/`node:https`. Node's own fetch is undici,
 * loaded on first use: its module and its HTTP parser (WebAssembly, compiled at the first
 * request) cost a short CLI run ~70 ms of CPU (`bench/cli.bench.mjs`), more than the rest of
 * its requests together. The model providers send JSON and read the reply's status, headers and
 * body stream, which this covers; anything else is handed to the global fetch, which then
 * does what fetch does: a body that is not text or bytes (forms, blobs, streams), a `Request`
 * object, a redirect (the request is sent again through it), and Node's proxy support
 * (`NODE_USE_ENV_PROXY`). Failures look as fetch's do — `TypeError: fetch failed` with the
 * socket error as its cause, a body cut short `TypeError: terminated`, an abort the signal's
 * reason — so retries and error messages are the same whichever fetch ran.
 *
 * The library's runs use the global fetch unless given this one (`QueryOptions.fetch`): a
 * program may have set up fetch (a proxy dispatcher, interception in tests) and must keep it.
 * The CLI, whose process is Gyre's own, passes it.
 */
export const nodeFetch: Fetch = (input, init) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
  const body = requestBody(init?.body);
  if (url === undefined || body === UNSUPPORTED || process.env.NODE_USE_ENV_PROXY) {
    return globalThis.fetch(input, init);
  }
  const target = new URL(url);
  if (target.protocol !== "http:" && target.protocol !== "https:") return globalThis.fetch(input, init);
  return send(target, init ?? {}, body).then((reply) => (reply === REDIRECTED ? globalThis.fetch(input, init) : reply));
};

const UNSUPPORTED = Symbol("unsupported body");
const REDIRECTED = Symbol("redirected");
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

let httpAgent: HttpAgentType | undefined;
let httpsAgent: Https.Agent | undefined;

/** Kept-alive connections, one pool per scheme; an idle socket never holds the process open. */
function agentFor(protocol: string): HttpAgentType {
  if (protocol === "https:") return (httpsAgent ??= new (https().Agent)({ keepAlive: true }));
  return (httpAgent ??= new HttpAgent({ keepAlive: true }));
}

function requestBody(body: unknown): Buffer | undefined | typeof UNSUPPORTED {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return UNSUPPORTED;
}

/** The request's headers as fetch sends them: lower-case names, its defaults where the caller set none. */
function requestHeaders(headers: unknown, body: Buffer | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (name: string, value: unknown) => {
    if (value !== undefined && value !== null) out[name.toLowerCase()] = String(value);
  };
  if (Array.isArray(headers)) for (const [name, value] of headers as Array<[string, string]>) add(name, value);
  else if (headers && typeof (headers as { forEach?: unknown }).forEach === "function")
    (headers as { forEach(f: (value: string, name: string) => void): void }).forEach((value, name) => add(name, value));
  else if (headers && typeof headers === "object")
    for (const [name, value] of Object.entries(headers)) add(name, value);
  out.accept ??= "*/*";
  out["accept-encoding"] ??= "gzip, deflate, br";
  if (body) out["content-length"] = String(body.byteLength);
  return out;
}

function send(target: URL, init: RequestInit, body: Buffer | undefined): Promise<Response | typeof REDIRECTED> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const request = (target.protocol === "https:" ? https().request : httpRequest)(target, {
      method: init.method ?? "GET",
      headers: requestHeaders(init.headers, body),
      agent: agentFor(target.protocol),
    });
    let replied = false;
    const onAbort = () => {
      request.destroy();
      if (!replied) reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.once("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      if (!replied && !signal?.aborted) reject(new TypeError("fetch failed", { cause: error }));
    });
    request.once("response", (message) => {
      replied = true;
      // From here an abort ends the body (replyOf), which closes the connection.
      signal?.removeEventListener("abort", onAbort);
      if (REDIRECTS.has(message.statusCode ?? 0) && message.headers.location) {
        message.resume();
        resolve(REDIRECTED);
        return;
      }
      resolve(replyOf(target, message, init.method === "HEAD", signal) as unknown as Response);
    });
    request.end(body);
  });
}

/** The reply as a fetch `Response` reads for what the providers use of it. */
function replyOf(target: URL, message: IncomingMessage, head: boolean, signal: AbortSignal | undefined): NodeResponse {
  const status = message.statusCode ?? 0;
  const hasBody = !head && status !== 204 && status !== 304;
  const decoded = hasBody ? decode(message) : undefined;
  if (signal && decoded) {
    const onAbort = () => decoded.destroy(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    decoded.once("close", () => signal.removeEventListener("abort", onAbort));
  }
  return new NodeResponse(target.href, status, message.statusMessage ?? "", new ReplyHeaders(message), decoded);
}

/** The body as sent, decompressed as fetch does it; a connection cut short is fetch's `terminated`. */
function decode(message: IncomingMessage): Readable {
  const encoding = String(message.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib().createGunzip()
      : encoding === "deflate"
        ? zlib().createInflate()
        : encoding === "br"
          ? zlib().createBrotliDecompress()
          : undefined;
  const terminated = (error: Error) => new TypeError("terminated", { cause: error });
  if (!decoder) {
    const body = new Readable({ read: () => message.resume() });
    message.on("data", (chunk: Buffer) => {
      if (!body.push(chunk)) message.pause();
    });
    message.once("end", () => body.push(null));
    message.once("error", (error) => body.destroy(terminated(error)));
    message.once("aborted", () => body.destroy(terminated(new Error("other side closed"))));
    body.once("close", () => message.destroy());
    return body;
  }
  message.once("error", (error) => decoder.destroy(terminated(error)));
  message.once("aborted", () => decoder.destroy(terminated(new Error("other side closed"))));
  decoder.once("close", () => message.destroy());
  return message.pipe(decoder);
}

/** Response headers with fetch's `Headers` reading methods (names lower-case, repeated values joined). */
class ReplyHeaders {
  readonly #values = new Map<string, string>();
  readonly #cookies: string[];

  constructor(message: IncomingMessage) {
    for (const [name, value] of Object.entries(message.headers)) {
      if (value !== undefined) this.#values.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const cookies = message.headers["set-cookie"];
    this.#cookies = cookies ?? [];
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }
  getSetCookie(): string[] {
    return [...this.#cookies];
  }
  forEach(callback: (value: string, name: string, headers: ReplyHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }
  *entries(): IterableIterator<[string, string]> {
    yield* [...this.#values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }
  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** What the providers read of a `Response`: status, headers, the body as a web stream or read whole. */
class NodeResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = "basic";
  readonly body: ReadableStream<Uint8Array> | null;
  #used = false;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly headers: ReplyHeaders,
    stream: Readable | undefined,
  ) {
    this.ok = status >= 200 && status < 300;
    this.body = stream ? (Readable.toWeb(stream) as ReadableStream<Uint8Array>) : null;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    if (!this.body) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}
