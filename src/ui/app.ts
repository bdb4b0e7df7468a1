import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { SessionInfo, SessionStore } from "../sessions/index.js";
import { pageFile } from "./assets.js";
import { securityHeaders } from "./headers.js";
import { SessionChanges } from "./live.js";
import { inScope, type UiAccess, type UiScope, type UiVariables } from "./scope.js";
import { sessionView } from "./session-view.js";
import { stepDiff } from "./step-diff.js";

export interface UiAppOptions {
  store: SessionStore;
  /** Who may read the page, and which sessions (`uiGuard`: `gyre ui`'s token, every session). */
  access: UiAccess;
  /** The built page's folder (see `defaultPageFolder`). */
  pageFolder: string;
  /** Where the app is mounted (`/ui` in `gyre serve`); default the root. */
  basePath?: string;
  /** How many sessions the list holds (default 1000, newest first). */
  listLimit?: number;
  /**
   * Whether the page may show files' contents the run's messages do not hold: the content a
   * Write replaced (from the session's checkpoints, taken before the call's own checks) and
   * step diffs (from the folder's snapshots, which other sessions share). Default true: the
   * store's owner reads it; `gyre serve` turns it off for its keys.
   */
  fileHistory?: boolean;
}

/** What `/api/sessions` answers: the sessions people started (not subagents'), newest first. */
export interface SessionList {
  sessions: SessionInfo[];
}

/**
 * The page's HTTP side: `GET /api/sessions`, `GET /api/sessions/:id` (a {@link SessionView}),
 * `GET /api/sessions/:id/step-diff?from=SNAPSHOT&to=SNAPSHOT` (what a step changed, see `stepDiff`),
 * `GET /api/events` (server-sent `session` events as sessions change) and the built page;
 * everything behind `access`, and only the sessions of the scope it set (another's is a 404).
 * Read only: nothing here changes the store.
 */
export function createUiApp(options: UiAppOptions): { app: Hono<{ Variables: UiVariables }>; close(): void } {
  const { store } = options;
  const base = options.basePath ?? "";
  const fileHistory = options.fileHistory ?? true;
  // One poller per scope (a key's project, or all): each listener hears only its own sessions.
  const changes = new Map<string, SessionChanges>();
  const changesOf = (scope: UiScope) => {
    const key = scope.project ?? "";
    let found = changes.get(key);
    if (!found) changes.set(key, (found = new SessionChanges(store, scope)));
    return found;
  };
  const owned = async (scope: UiScope, id: string) => {
    const session = await store.getSession(id);
    return session && inScope(scope, session.project) ? session : undefined;
  };
  const app = new Hono<{ Variables: UiVariables }>();
  app.use("*", securityHeaders);
  app.use("*", options.access);
  app.get("/api/sessions", async (c) => {
    const { project } = c.get("uiScope");
    const sessions = await store.listSessions({
      limit: options.listLimit ?? 1000,
      ...(project !== undefined && { project }),
    });
    return c.json({ sessions } satisfies SessionList);
  });
  app.get("/api/sessions/:id", async (c) => {
    const scope = c.get("uiScope");
    if (!(await owned(scope, c.req.param("id")))) return c.json({ error: "session_not_found" }, 404);
    const view = await sessionView(store, c.req.param("id"), { writes: fileHistory });
    if (!view) return c.json({ error: "session_not_found" }, 404);
    return c.json({ ...view, subagents: view.subagents.filter((s) => inScope(scope, s.project)) });
  });
  app.get("/api/sessions/:id/step-diff", async (c) => {
    const session = await owned(c.get("uiScope"), c.req.param("id"));
    if (!session) return c.json({ error: "session_not_found" }, 404);
    if (!fileHistory) return c.json({ error: "snapshots_not_found" }, 404);
    const diff = await stepDiff(session.cwd, c.req.query("from") ?? "", c.req.query("to") ?? "");
    return diff === undefined ? c.json({ error: "snapshots_not_found" }, 404) : c.json({ diff });
  });
  app.get("/api/events", (c) =>
    streamSSE(c, async (stream) => {
      let wake: () => void = () => {};
      const queue: SessionInfo[] = [];
      const unsubscribe = changesOf(c.get("uiScope")).subscribe((session) => {
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
    const path = c.req.path.slice(base.length) || "/";
    const file = await pageFile(options.pageFolder, path);
    if (!file) return c.text("gyre ui: not found\n", 404);
    const immutable = path.startsWith("/assets/");
    return c.body(new Uint8Array(file.body), 200, {
      "content-type": file.type,
      "cache-control": immutable ? "private, max-age=31536000, immutable" : "no-store",
    });
  });
  return {
    app,
    close: () => {
      for (const each of changes.values()) each.close();
    },
  };
}
