import { createAdaptorServer } from "@hono/node-server";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { GyreError } from "../errors/index.js";
import type { ServerConfig } from "./config.js";
import { DEFAULT_CONCURRENCY, workQueue } from "./cluster/index.js";
import { createServer } from "./create-server.js";
import { serverParts } from "./server-parts.js";
import { attachWebSocket } from "./websocket.js";

export interface ServeOptions extends ServerConfig {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /**
   * Connections the kernel queues while the server is busy accepting (default 2048, as uvicorn
   * and gunicorn; Node's own is 511). Linux caps it at `net.core.somaxconn`. A burst larger than
   * the queue loses connections before the server sees them.
   */
  backlog?: number;
  /**
   * With a `queue`: how many responses this process runs itself (default 50); 0, it only
   * answers HTTP and leaves the runs to `gyre worker` processes.
   */
  concurrency?: number;
}

const DEFAULT_BACKLOG = 2048;

/** A listening server. */
export interface RunningServer {
  /** `http://HOST:PORT` */
  readonly url: string;
  readonly port: number;
  /**
   * Whether clients must send one of the API keys (the config's `apiKeys`, `GYRE_API_KEYS`);
   * without any, only loopback clients are answered.
   */
  readonly requiresApiKey: boolean;
  /**
   * Stops listening and ends open connections. With a queue, it stops taking jobs: runs still
   * going get `graceMs` (default 0) to end, then are handed back to the queue, and the queue's
   * connections are closed.
   */
  close(graceMs?: number): Promise<{ handedBack: number }>;
}

/** Serves {@link createServer}'s app over HTTP on `host:port` (127.0.0.1:8080 by default). */
export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const app = createServer(options);
  const { queue } = options;
  const parts = serverParts(app);
  if (queue && parts && (options.concurrency ?? DEFAULT_CONCURRENCY) > 0)
    await workQueue(parts.deps, queue, options.concurrency ?? DEFAULT_CONCURRENCY);
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host });
  const websocket = attachWebSocket(server as Server, app);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new GyreError("config_error", `gyre serve: cannot listen on ${host}:${options.port ?? 8080}`, { cause: error }),
      ),
    );
    server.listen({ port: options.port ?? 8080, host, backlog: options.backlog ?? DEFAULT_BACKLOG }, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    requiresApiKey: (serverParts(app)?.apiKeys.length ?? 0) > 0,
    close: async (graceMs?: number) => {
      websocket.close();
      parts?.ui?.close();
      await parts?.runner.close();
      const closed = (await queue?.close(graceMs)) ?? { handedBack: 0 };
      await new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
