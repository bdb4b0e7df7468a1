import type { MiddlewareHandler } from "hono";

/**
 * The page shows what models wrote, which is hostile: besides escaping everything it renders,
 * it may run only its own scripts (no inline script, no eval), load nothing from elsewhere,
 * and never be framed.
 */
export const securityHeaders: MiddlewareHandler = async function securityHeaders(c, next) {
  await next();
  // A page of its own (the login form of `gyre serve`'s /ui) may say its own policy; never a looser frame one.
  if (!c.res.headers.has("content-security-policy"))
    c.header(
      "content-security-policy",
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  c.header("x-content-type-options", "nosniff");
  if (!c.res.headers.has("referrer-policy")) c.header("referrer-policy", "no-referrer");
  c.header("x-frame-options", "DENY");
  c.header("cache-control", c.res.headers.get("cache-control") ?? "no-store");
};
