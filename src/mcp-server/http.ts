import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { errorMessage } from "../errors/index.js";
import { setUpBuiltinTools } from "./builtin-tool-setup.js";
import { createGyreServer, type GyreServer } from "./gyre-server.js";
import { isLocalRequest } from "./local-origin.js";
import type { ServeConfig } from "./serve-config.js";

export interface HttpServeOptions {
  /** 0 picks a free port. */
  port: number;
  /** Aborting it shuts the server down: calls in flight are aborted, sessions closed. */
  signal: AbortSignal;
  /** Called once listening, with the endpoint's URL (`http://127.0.0.1:PORT/mcp`). */
  onListening: (url: string) => void;
}

const HOST = "127.0.0.1";
const PATH = "/mcp";

/**
 * Serves MCP's streamable HTTP transport on 127.0.0.1 only, at `/mcp`, with a session per
 * client (`mcp-session-id`), each with its own server and built-in tool state. Resolves once
 * `signal` aborted and everything has closed.
 */
export async function serveHttp(config: ServeConfig, options: HttpServeOptions): Promise<void> {
  const builtin = config.builtinTools ? await setUpBuiltinTools(config) : undefined;
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; connection: GyreServer }>();
  let port = options.port;
  let stopping = false;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (new URL(request.url ?? "/", `http://${HOST}`).pathname !== PATH) return reply(response, 404, "Not found");
    // A web page the person visits must not drive the agent (DNS rebinding, cross-site POSTs).
    if (!isLocalRequest(request.headers, port)) return reply(response, 403, "Forbidden: not a local client");
    if (stopping) return reply(response, 503, "Shutting down");
    const sessionId = request.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      if (!session) return reply(response, 404, "Session not found");
      return session.transport.handleRequest(request, response);
    }
    if (request.method !== "POST") return reply(response, 400, "Bad Request: no mcp-session-id header");
    // A new client: the transport answers anything but `initialize` with an error.
    const connection = await createGyreServer(config, builtin);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, { transport, connection }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void connection.close();
    };
    await connection.connect(transport);
    await transport.handleRequest(request, response);
    if (!transport.sessionId) await connection.close();
  };

  // Responses still being written: shutdown lets them finish (the calls' last answers are in them).
  const responses = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    responses.add(response);
    response.once("close", () => responses.delete(response));
    handle(request, response).catch((error: unknown) => {
      config.log(`request failed: ${errorMessage(error)}`);
      if (!response.headersSent) reply(response, 500, "Internal error");
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, HOST, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  options.onListening(`http://${HOST}:${port}${PATH}`);
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    options.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  stopping = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.allSettled([...sessions.values()].map((session) => session.connection.close()));
  // Closing the sessions ended their streams; what is left is flushing them to the clients.
  await Promise.all([...responses].map((response) => new Promise((resolve) => response.once("close", resolve))));
  server.closeAllConnections();
  await closed;
}

/** A JSON-RPC error body, as MCP clients expect from the transport's endpoint. */
function reply(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
