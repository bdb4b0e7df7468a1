import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { SessionInfo, SessionStore } from "../sessions/index.js";
import { pageFile } from "./assets.js";
import { type UiGuard, uiGuard } from "./guard.js";
import { securityHeaders } from "./headers.js";
import { SessionChanges } from "./live.js";
import { sessionView } from "./session-view.js";
import { stepDiff } from "./step-diff.js";

export interface UiAppOptions {
  store: SessionStore;
  guard: UiGuard;
  /** The Host values to answer (see `loopbackHosts`); a function, since the port is known once listening. */
  hosts: () => Set<string>;
  /** The built page's folder (see `defaultPageFolder`). */
  pageFolder: string;
  /** How many sessions the list holds (default 1000, newest first). */
  listLimit?: number;
}

/** What `/api/sessions` answers: the sessions people started (not subagents'), newest first. */
export interface SessionList {
  sessions: SessionInfo[];
}

/**
 * The page's HTTP side: `GET /api/sessions`, `GET /api/sessions/:id` (a {@link SessionView}),
 * `GET /api/sessions/:id/step-diff?from=SNAPSHOT&to=SNAPSHOT` (what a step changed, see `stepDiff`),
 * `GET /api/events` (server-sent `session` events as sessions change) and the built page;
 * everything behind the token and Host check. Read only: nothing here changes the store.
 */
export function createUiApp(options: UiAppOptions): { app: Hono; close(): void } {
  const { store } = options;
  const changes = new SessionChanges(store);
  const app = new Hono();
  app.use("*", securityHeaders);
  app.use("*", uiGuard(options.guard, options.hosts));
  app.get("/api/sessions", async (c) => {
    const sessions = await store.listSessions({ limit: options.listLimit ?? 1000 });
    return c.json({ sessions } satisfies SessionList);
  });
  app.get("/api/sessions/:id", async (c) => {
    const view = await sessionView(store, c.req.param("id"));
    return view ? c.json(view) : c.json({ error: "session_not_found" }, 404);
  });
  app.get("/api/sessions/:id/step-diff", async (c) => {
    const session = await store.getSession(c.req.param("id"));
    if (!session) return c.json({ error: "session_not_found" }, 404);
    const diff = await stepDiff(session.cwd, c.req.query("from") ?? "", c.req.query("to") ?? "");
    return diff === undefined ? c.json({ error: "snapshots_not_found" }, 404) : c.json({ diff });
  });
  app.get("/api/events", (c) =>
    streamSSE(c, async (stream) => {
      let wake: () => void = () => {};
      const queue: SessionInfo[] = [];
      const unsubscribe = changes.subscribe((session) => {
        queue.push(session);
        wake();
      });
      stream.onAbort(() => {
        unsubscribe();
        wake();
      });
      await stream.writeSSE({ event: "ready", data: "{}" });
      while (!stream.aborted) {
        const session = queue.shift();
        if (session) {
          await stream.writeSSE({ event: "session", data: JSON.stringify(session) });
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 15_000);
        });
        if (queue.length === 0 && !stream.aborted) await stream.write(": keep-alive\n\n");
      }
      unsubscribe();
    }),
  );
  app.all("/api/*", (c) => c.json({ error: "not_found" }, 404));
  app.get("*", async (c) => {
    // The page routes itself in the address's fragment (#/s/ID): only its own files are here.
    const file = await pageFile(options.pageFolder, c.req.path);
    if (!file) return c.text("gyre ui: not found\n", 404);
    const immutable = c.req.path.startsWith("/assets/");
    return c.body(new Uint8Array(file.body), 200, {
      "content-type": file.type,
      "cache-control": immutable ? "private, max-age=31536000, immutable" : "no-store",
    });
  });
  return { app, close: () => changes.close() };
}
