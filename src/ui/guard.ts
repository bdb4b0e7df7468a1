import { timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { UiAccess } from "./scope.js";

/**
 * Who may read the page: whoever holds the token `gyre ui` printed (the URL's `?token=`, then a
 * cookie the first visit sets, or `Authorization: Bearer`), as Jupyter does, so that other
 * local users cannot read the sessions. A request whose Host is not the loopback address the
 * page is served on is refused too: a site that rebinds its DNS name to 127.0.0.1 gets its own
 * name as Host, and never the cookie (SameSite=Strict, HttpOnly, per port).
 */
export interface UiGuard {
  readonly token: string;
  /** The cookie's name: per port, since browsers share one host's cookies across its ports. */
  readonly cookie: string;
}

/** The Host values the page answers to on `port`. */
export function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** True when `given` is the token, compared in constant time. */
export function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function bearer(c: Context): string | undefined {
  const header = c.req.header("authorization");
  return header?.toLowerCase().startsWith("bearer ") ? header.slice("bearer ".length).trim() : undefined;
}

/**
 * Refuses requests with another Host (403) or without the token (401); whoever holds the token
 * reads every session of the store. A page visit with a valid `?token=` gets the cookie and is
 * sent to the same address without it, so the token leaves the address bar and the history.
 */
export function uiGuard(guard: UiGuard, hosts: () => Set<string>): UiAccess {
  return async function guardUi(c, next) {
    c.set("uiScope", {});
    if (!hosts().has(c.req.header("host") ?? "")) return c.text("gyre ui: unknown Host\n", 403);
    const fromQuery = c.req.query("token");
    if (fromQuery !== undefined && sameToken(fromQuery, guard.token)) {
      setCookie(c, guard.cookie, guard.token, { httpOnly: true, sameSite: "Strict", path: "/" });
      if (c.req.method === "GET" && !c.req.path.startsWith("/api/")) {
        const url = new URL(c.req.url);
        url.searchParams.delete("token");
        return c.redirect(`${url.pathname}${url.search}`, 302);
      }
      return next();
    }
    if (sameToken(getCookie(c, guard.cookie), guard.token) || sameToken(bearer(c), guard.token)) return next();
    return c.text("gyre ui: open the address gyre ui printed (with its token)\n", 401);
  };
}
