import type { LookupAddress, LookupOptions } from "node:dns";
import { isIP } from "node:net";
import { Agent, fetch as undiciFetch } from "undici";
import { GyreError } from "../../errors/index.js";
import type { McpHostGuard } from "./host-guard.js";

/** As browsers and undici: a chain longer than this is an error. */
const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `fetch` for one response's MCP connections, and what closes its connections. */
export interface PinnedFetch {
  fetch: typeof globalThis.fetch;
  close(): Promise<void>;
}

/**
 * A `fetch` that connects only where `guard` allows: each request's host is checked and
 * resolved by the guard, and the socket goes to that address (the agent's lookup answers from
 * the guard, never from DNS), while TLS still verifies the URL's name. Redirects are followed
 * here, hop by hop, each target checked again; a caller that handles them itself (`redirect:
 * "manual"`, as the MCP SDK does) gets the redirect response and calls again for the target.
 */
export function pinnedFetch(guard: McpHostGuard): PinnedFetch {
  const agent = new Agent({
    connect: {
      lookup: (hostname: string, options: LookupOptions, callback: LookupCallback) => {
        const address = guard.pinnedAddress(hostname);
        if (address === undefined) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} was not checked before connecting`);
          error.code = "ENOTFOUND";
          return callback(error, []);
        }
        const family = isIP(address);
        return options.all ? callback(null, [{ address, family }]) : callback(null, address, family);
      },
    },
  });
  const fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    let url = new URL(input instanceof Request ? input.url : input);
    let request: RequestInit = input instanceof Request ? { ...requestInitOf(input), ...init } : init;
    const follow = request.redirect === undefined || request.redirect === "follow";
    for (let hop = 0; ; hop++) {
      await guard.addressOf(url);
      const response = (await undiciFetch(url, {
        ...(request as object),
        redirect: "manual",
        dispatcher: agent,
      } as never)) as unknown as Response;
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null || !follow) return response;
      if (hop >= MAX_REDIRECTS) throw new GyreError("mcp_connection_failed", `Too many redirects from ${url.host}.`);
      await response.body?.cancel();
      const next = new URL(location, url);
      request = redirected(request, response.status, next.origin !== url.origin);
      url = next;
    }
  };
  return { fetch: fetch as typeof globalThis.fetch, close: () => agent.close() };
}

/**
 * The request repeated at a redirect's target, as fetch does: a 303, and a 301/302 after a
 * POST, become a GET without a body; another origin does not get the `Authorization` header.
 */
function redirected(request: RequestInit, status: number, crossOrigin: boolean): RequestInit {
  const method = (request.method ?? "GET").toUpperCase();
  const headers = new Headers(request.headers);
  if (crossOrigin) headers.delete("authorization");
  if (status === 303 ? method === "HEAD" : !((status === 301 || status === 302) && method === "POST"))
    return { ...request, headers };
  for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"])
    headers.delete(name);
  const { body: _body, ...rest } = request;
  return { ...rest, method: "GET", headers };
}

function requestInitOf(request: Request): RequestInit {
  return { method: request.method, headers: request.headers, body: request.body, signal: request.signal };
}
