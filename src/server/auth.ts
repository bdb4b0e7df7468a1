import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { RequestError } from "./errors.js";

/** What the auth middleware puts on the context: the owner of the request's responses. */
export type AuthVariables = { owner: string };

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** Whether the request came over a loopback socket (Node's `incoming` binding of @hono/node-server). */
export function socketIsLoopback(c: Context): boolean {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  const address = incoming?.socket?.remoteAddress;
  return address !== undefined && LOOPBACK.test(address);
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
  const digests = keys.map((key) => digest(key));
  return async function auth(c, next) {
    if (digests.length === 0) {
      if (!isLoopback(c))
        throw new RequestError(
          401,
          "This server has no API keys configured and accepts only loopback clients.",
          "invalid_api_key",
        );
      c.set("owner", "local");
      return next();
    }
    const header = c.req.header("authorization") ?? "";
    const key = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    const given = key === undefined ? undefined : digest(key);
    if (!given || !digests.some((known) => timingSafeEqual(known, given)))
      throw new RequestError(401, "Incorrect or missing API key (Authorization: Bearer KEY).", "invalid_api_key");
    c.set("owner", given.toString("hex").slice(0, 24));
    return next();
  };
}

function digest(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}
