import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { RequestError } from "./errors.js";

/** What the auth middleware puts on the context: the owner of the request's responses. */
export type AuthVariables = { owner: string };

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** Whether the request came over a loopback socket (Node's `incoming` binding of @hono/node-server). */
export function socketIsLoopback(c: Context): boolean {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return isLoopbackAddress(incoming?.socket?.remoteAddress);
}

/**
 * API keys: with keys configured, `Authorization: Bearer KEY` must be one of them and the
 * key's owner id (a hash, never the key) scopes its responses. Without keys the server is
 * open to loopback clients only, which share the owner `local`.
 */
export function authMiddleware(
  keys: readonly string[],
  isLoopback: (c: Context) => boolean,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  const check = authenticator(keys);
  return async function auth(c, next) {
    c.set(
      "owner",
      check(
        c.req.header("authorization"),
        () => isLoopback(c) && namesThisMachine(c.req.header("host"), c.req.header("origin")),
      ),
    );
    return next();
  };
}

/**
 * The check behind {@link authMiddleware}, for any transport (the WebSocket upgrade too):
 * the owner id of an `Authorization` header, or a 401 `RequestError`.
 */
export function authenticator(
  keys: readonly string[],
): (authorization: string | undefined, isLoopback: () => boolean) => string {
  const digests = keys.map((key) => digest(key));
  return (authorization, isLoopback) => {
    if (digests.length === 0) {
      if (!isLoopback())
        throw new RequestError(
          401,
          "This server has no API keys configured and accepts only loopback clients.",
          "invalid_api_key",
        );
      return "local";
    }
    const key = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim();
    const given = key === undefined ? undefined : digest(key);
    if (!given || !digests.some((known) => timingSafeEqual(known, given)))
      throw new RequestError(401, "Incorrect or missing API key (Authorization: Bearer KEY).", "invalid_api_key");
    return ownerIdOf(given);
  };
}

/** The owner id of an API key: the start of its SHA-256, never the key. */
export function ownerOfKey(key: string): string {
  return ownerIdOf(digest(key));
}

function ownerIdOf(keyDigest: Buffer): string {
  return keyDigest.toString("hex").slice(0, 24);
}

const LOCAL_HOSTNAMES = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

/**
 * Whether a request's `Host` (and its `Origin`, when a browser sent one) name this machine.
 * A keyless server trusts loopback clients, and a web page can reach loopback too: through a
 * DNS name it rebinds to 127.0.0.1 (its `Host` is that name) or by a cross-site request
 * (its `Origin` is the other site). Both are refused.
 */
export function namesThisMachine(host: string | undefined, origin: string | undefined): boolean {
  if (host === undefined || !LOCAL_HOSTNAMES.test(host.replace(/:\d+$/, ""))) return false;
  if (origin === undefined) return true;
  try {
    return LOCAL_HOSTNAMES.test(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** Whether a socket address is this machine's. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && LOOPBACK.test(address);
}

function digest(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}
