import {
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type Server,
  type ServerResponse,
  createServer,
} from "node:http";
import { connect, type Socket } from "node:net";
import { isAllowedHost, parseTarget } from "../net/index.js";
import { guardedLookup } from "./guarded-lookup.js";

/** A connection the proxy refused. */
export interface BlockedConnection {
  host: string;
  port: number;
  at: number;
}

/**
 * The sandbox's filtering HTTP/HTTPS proxy, in-process, listening on a unix socket that is
 * mounted into the sandbox (where socat relays 127.0.0.1:3128 to it). CONNECT tunnels and
 * plain HTTP requests go through only to allowed hosts; every refusal is noted.
 */
export class FilteringProxy {
  readonly blocked: BlockedConnection[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor(
    readonly socketPath: string,
    readonly allowedDomains: readonly string[],
  ) {
    this.#server = createServer((req, res) => this.#forward(req, res));
    this.#server.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => this.#tunnel(req, socket, head));
    this.#server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once("close", () => this.#sockets.delete(socket));
    });
  }

  static async listen(socketPath: string, allowedDomains: readonly string[]): Promise<FilteringProxy> {
    const proxy = new FilteringProxy(socketPath, allowedDomains);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once("error", reject);
      proxy.#server.listen(socketPath, () => resolve());
    });
    return proxy;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #allows(host: string, port: number): boolean {
    if (isAllowedHost(host, port, this.allowedDomains)) return true;
    this.blocked.push({ host, port, at: Date.now() });
    return false;
  }

  #tunnel(req: IncomingMessage, client: Socket, head: Buffer): void {
    client.on("error", () => {});
    const target = parseTarget(req.url ?? "", 443);
    if (!target || !this.#allows(target.host, target.port)) {
      client.end(refusal(target, "HTTP/1.1"));
      return;
    }
    const upstream = connect({ port: target.port, host: target.host, lookup: guardedLookup }, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EGYRESANDBOX") this.blocked.push({ ...target, at: Date.now() });
      client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
    });
    client.on("close", () => upstream.destroy());
  }

  #forward(req: IncomingMessage, res: ServerResponse): void {
    const target = parseTarget(req.url ?? "", 80);
    if (!target || !req.url?.startsWith("http://") || !this.#allows(target.host, target.port)) {
      res.writeHead(403, { "content-type": "text/plain", "x-gyre-sandbox": "blocked" });
      res.end(refusalText(target));
      return;
    }
    const url = new URL(req.url);
    const headers: OutgoingHttpHeaders = { ...req.headers };
    for (const name of Object.keys(headers)) if (name.startsWith("proxy-")) delete headers[name];
    const upstream = request(
      {
        host: target.host,
        port: target.port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers,
        lookup: guardedLookup,
      },
      (response) => {
        res.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(res);
      },
    );
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EGYRESANDBOX") this.blocked.push({ ...target, at: Date.now() });
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  }
}

function refusalText(target: { host: string; port: number } | undefined): string {
  const what = target ? `${target.host}:${target.port}` : "that address";
  return `Gyre's sandbox blocked the connection to ${what}: it is not in sandbox.network.allowedDomains.\n`;
}

function refusal(target: { host: string; port: number } | undefined, version: string): string {
  const body = refusalText(target);
  return `${version} 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-gyre-sandbox: blocked\r\n\r\n${body}`;
}
