import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { GyreError } from "../errors/index.js";
import type { SessionStore } from "../sessions/index.js";
import { createUiApp } from "./app.js";
import { defaultPageFolder, pageBuilt } from "./assets.js";
import { loopbackHosts, uiGuard } from "./guard.js";

export interface StartUiOptions {
  store: SessionStore;
  /** Default 0: a free port. */
  port?: number;
  /** Default a new random one (32 bytes, hex). */
  token?: string;
  /** Default the built page next to this file (dist/ui-page). */
  pageFolder?: string;
}

/** A listening `gyre ui`. */
export interface RunningUi {
  /** `http://127.0.0.1:PORT/?token=…`: what to open. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  /** Stops listening and ends open connections (the store is the caller's to close). */
  close(): Promise<void>;
}

/** Serves the page over `store` on 127.0.0.1 only, behind a token (see `uiGuard`). */
export async function startUi(options: StartUiOptions): Promise<RunningUi> {
  const pageFolder = options.pageFolder ?? defaultPageFolder();
  if (!pageBuilt(pageFolder))
    throw new GyreError("config_error", `gyre ui: the page is not built (no ${pageFolder}index.html): npm run build`);
  const token = options.token ?? randomBytes(32).toString("hex");
  let port = options.port ?? 0;
  let hosts = loopbackHosts(port);
  // Named once the port is known: browsers share a host's cookies across its ports.
  const guard = { token, cookie: "gyre-ui" };
  const { app, close } = createUiApp({
    store: options.store,
    access: uiGuard(guard, () => hosts),
    pageFolder,
  });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: "127.0.0.1" });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(new GyreError("config_error", `gyre ui: cannot listen on 127.0.0.1:${port}`, { cause: error })),
    );
    server.listen({ port, host: "127.0.0.1" }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  hosts = loopbackHosts(port);
  guard.cookie = `gyre-ui-${port}`;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      close();
      await new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      });
    },
  };
}
