import type { IncomingHttpHeaders } from "node:http";

/**
 * True when a request comes from a local client, not a web page: its `Host` names this
 * server by a loopback name (a DNS-rebound name does not), and it has no `Origin` or a
 * loopback one (browsers send `Origin` on cross-site requests; MCP clients send none).
 */
export function isLocalRequest(headers: IncomingHttpHeaders, port: number): boolean {
  const local = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
  if (!headers.host || !local.includes(headers.host.toLowerCase())) return false;
  const origin = headers.origin;
  return origin === undefined || local.some((host) => origin.toLowerCase() === `http://${host}`);
}
