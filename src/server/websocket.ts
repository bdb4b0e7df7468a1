import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { GyreError } from "../errors/index.js";
import { authenticator, isLoopbackAddress, namesThisMachine } from "./auth.js";
import { serverParts, type ServerParts } from "./server-parts.js";
import { RequestError, toErrorResponse } from "./errors.js";
import { chainItems } from "./input-items.js";
import { parseCreateRequest } from "./parse-request.js";
import type { ResponseStore, StoredResponse } from "./response-store.js";
import { prepareResponse } from "./prepare-response.js";
import { runResponse } from "./run-response.js";

const PATH = "/v1/responses";
const DEFAULT_MAX_MESSAGE = 16 * 1024 * 1024;
/** Messages a socket may have waiting behind its running response; more is a 429, not memory. */
const MAX_WAITING = 8;

/**
 * The Open Responses WebSocket mode on `/v1/responses` of a Node HTTP server serving
 * `app` (made by `createServer`): each `response.create` message runs one response, whose
 * events come back as JSON messages; a socket runs its responses one after another. A
 * `store: false` response can be continued (`previous_response_id`) on the same socket only:
 * the socket keeps the latest one, and a failed continuation forgets it.
 */
export function attachWebSocket(server: Server, app: object): { close(): void } {
  const parts = serverParts(app);
  if (!parts) throw new GyreError("config_error", "attachWebSocket needs an app made by createServer");
  const authenticate = authenticator(parts.apiKeys);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: parts.maxBodyBytes ?? DEFAULT_MAX_MESSAGE });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? "/", "http://localhost").pathname !== PATH) return refuse(socket, 404, "No such route.");
    // A web page may open a WebSocket to any host, with the user's network position: an open
    // (keyless, loopback-only) server takes no socket that a page of another site opened, nor
    // one addressed to a name that is not this machine's (DNS rebinding).
    if (parts.apiKeys.length === 0 && !namesThisMachine(request.headers.host, request.headers.origin))
      return refuse(socket, 403, "WebSocket connections from web pages of other sites are refused.");
    let owner: string;
    try {
      owner = authenticate(request.headers.authorization, () => isLoopbackAddress(request.socket.remoteAddress));
    } catch (error) {
      return refuse(socket, 401, error instanceof Error ? error.message : "Unauthorized");
    }
    sockets.handleUpgrade(request, socket, head, (ws) => new Connection(ws, parts, owner));
  });
  const close = () => {
    for (const client of sockets.clients) client.terminate();
    sockets.close();
  };
  server.on("close", close);
  return { close };
}

const STATUS_TEXT: Record<number, string> = { 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" };

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code: null } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** One socket: its queue of responses, and the latest `store: false` response it may continue. */
class Connection {
  #queue: Promise<void> = Promise.resolve();
  #waiting = 0;
  #latest: StoredResponse | undefined;
  readonly #closed = new AbortController();

  constructor(
    private readonly ws: WebSocket,
    private readonly parts: ServerParts,
    private readonly owner: string,
  ) {
    ws.on("message", (data, isBinary) => {
      if (this.#waiting >= MAX_WAITING) {
        const message = `At most ${MAX_WAITING} response.create messages may wait on one socket.`;
        return this.#send({
          type: "error",
          status: 429,
          sequence_number: 0,
          error: { type: "rate_limit_error", code: "rate_limit_exceeded", message, param: null },
        });
      }
      this.#waiting++;
      const text = isBinary ? undefined : String(data);
      this.#queue = this.#queue.then(() => this.#handle(text)).finally(() => this.#waiting--);
    });
    // The client went away: its running response is cancelled (WebSocket responses are not background ones).
    ws.on("close", () => this.#closed.abort());
    ws.on("error", () => this.#closed.abort());
  }

  async #handle(text: string | undefined): Promise<void> {
    if (this.#closed.signal.aborted) return;
    let previousId: string | undefined;
    try {
      const request = parseCreateRequest(createBody(text));
      previousId = request.previous_response_id ?? undefined;
      if (request.background)
        throw new RequestError(400, "background is not available in WebSocket mode.", "invalid_value", "background");
      const responses = this.#responses();
      const prepared = await prepareResponse({ ...this.parts.deps, responses }, request, this.owner);
      let sequence = 0;
      const response = await runResponse(
        this.parts.deps,
        prepared,
        (event) => this.#send({ ...event, sequence_number: sequence++ }),
        this.#closed.signal,
      );
      if (response.status === "failed") return this.#forget(previousId);
      if (response.store) return;
      // Kept flat (the whole chain as its input), so that the socket holds one response only.
      const earlier = previousId ? await chainItems(responses, (await responses.get(previousId))!) : [];
      this.#latest = {
        owner: this.owner,
        response: { ...response, previous_response_id: null },
        inputItems: [...earlier, ...prepared.inputItems],
        runSessionId: `${response.id}-run`,
      };
    } catch (error) {
      this.#forget(previousId);
      const { status, body } = toErrorResponse(error);
      const code = body.error.code ?? (status >= 500 ? "server_error" : "invalid_request");
      this.#send({ type: "error", status, sequence_number: 0, error: { ...body.error, code } });
    }
  }

  /** The server's stored responses, with this socket's latest `store: false` one in front. */
  #responses(): ResponseStore {
    const store = this.parts.deps.responses;
    return {
      get: async (id) => (this.#latest?.response.id === id ? this.#latest : store.get(id)),
      save: (record, options) => store.save(record, options),
      delete: (id) => store.delete(id),
      appendEvents: (id, events) => store.appendEvents(id, events),
      events: (id, after) => store.events(id, after),
    };
  }

  #forget(id: string | undefined): void {
    if (id !== undefined && this.#latest?.response.id === id) this.#latest = undefined;
  }

  #send(message: object): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }
}

/** A message's create request: `{ type: "response.create", ...fields }`. */
function createBody(text: string | undefined): unknown {
  let message: unknown;
  try {
    message = text === undefined ? undefined : JSON.parse(text);
  } catch (error) {
    throw new RequestError(400, "The message is not valid JSON.", "invalid_json", null, error);
  }
  if (typeof message !== "object" || message === null || (message as { type?: unknown }).type !== "response.create")
    throw new RequestError(400, 'Send {"type": "response.create", ...} messages.', "invalid_value", "type");
  const { type: _type, stream: _stream, ...body } = message as Record<string, unknown>;
  return body;
}
