import type { MiddlewareHandler } from "hono";

/**
 * Which sessions a reader of the page may see: all of the store's (`gyre ui`, whose token holder
 * is the store's owner), or one project's and its subagents' (`gyre serve`'s `/ui`: an API key's
 * own responses, see `serveProject`).
 */
export interface UiScope {
  /** Only this project's sessions; absent, every session. */
  project?: string;
}

/** What the page's access check puts on the context once it let a request in. */
export type UiVariables = { uiScope: UiScope };

/**
 * Who may read the page: a middleware that answers a refused request itself (401, 403, a login
 * form) and, for one it lets in, sets `uiScope` before calling `next`.
 */
export type UiAccess = MiddlewareHandler<{ Variables: UiVariables }>;

/** Whether `scope` lets its reader see a session of `project`. */
export function inScope(scope: UiScope, project: string): boolean {
  return scope.project === undefined || scope.project === project;
}
