import { z } from "zod";

/**
 * How WebFetch fetches and answers (a Gyre addition: the `webFetch` option, or the `webFetch`
 * key of a settings file). Every field is optional; the defaults are Claude Code's limits.
 */
export const WebFetchSettings = z.strictObject({
  /**
   * The model that answers the prompt about a page (`provider/model`, or a model id of the
   * run's provider): default the run's provider's small model (its `smallModel` in
   * `providers`); `false` returns the page itself, cut to `maxChars`.
   */
  smallModel: z.union([z.string().min(1), z.literal(false)]).optional(),
  /**
   * Hosts of this machine or its internal network that WebFetch may reach (`localhost`,
   * `127.0.0.1:8080`, `*.internal`): any other name that resolves to a loopback, private or
   * link-local address is refused. Plain `http://` is kept for them, where it is upgraded to
   * `https://` for every other host.
   */
  allowedLocalHosts: z.array(z.string().min(1)).optional(),
  /** Bytes a response may have (default 10 MB); a larger one is refused. */
  maxBytes: z.number().int().positive().optional(),
  /** Characters of page text one call reads (default 100,000); `offset` reads on. */
  maxChars: z.number().int().positive().optional(),
  /** Milliseconds a fetch may take, redirects included (default 60,000). */
  timeoutMs: z.number().int().positive().optional(),
});
/** WebFetch's settings, as the schema of the same name checks them. */
export type WebFetchSettings = z.infer<typeof WebFetchSettings>;

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_CHARS = 100_000;
export const DEFAULT_TIMEOUT_MS = 60_000;
