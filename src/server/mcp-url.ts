import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { isAllowedHost } from "../sandbox/index.js";
import { RequestError } from "./errors.js";

// Loopback, private, link-local, carrier-grade NAT and unspecified ranges: the operator's own
// network, which a client must not reach through the server (SSRF) unless the operator says so.
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const)
  INTERNAL.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
] as const)
  INTERNAL.addSubnet(network, prefix, "ipv6");

function isInternalAddress(address: string): boolean {
  const mapped = ipv4Mapped(address.toLowerCase()) ?? address;
  return INTERNAL.check(mapped, isIP(mapped) === 6 ? "ipv6" : "ipv4");
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`, `::ffff:7f00:1`). */
function ipv4Mapped(address: string): string | undefined {
  if (!address.startsWith("::ffff:")) return undefined;
  const rest = address.slice(7);
  if (isIP(rest) === 4) return rest;
  const match = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!match?.[1] || !match[2]) return undefined;
  const high = Number.parseInt(match[1], 16);
  const low = Number.parseInt(match[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/**
 * Refuses an `mcp` tool's `server_url` the server must not connect to for a client. With
 * `allowedHosts` (the config's `mcpAllowedHosts`), only those hosts; without, any host whose
 * addresses are all public. (A name that resolves differently at connect time is not caught
 * here: operators who need that guarantee list their hosts.)
 */
export async function checkMcpUrl(
  serverUrl: string,
  allowedHosts: readonly string[] | undefined,
  param: string,
): Promise<void> {
  const url = new URL(serverUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (allowedHosts) {
    if (isAllowedHost(host, port, allowedHosts)) return;
    throw new RequestError(
      400,
      `server_url ${url.host} is not among the MCP hosts this server may reach.`,
      "invalid_value",
      param,
    );
  }
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch (error) {
    throw new RequestError(400, `server_url host ${host} does not resolve.`, "invalid_value", param, error);
  }
  if (addresses.some(isInternalAddress))
    throw new RequestError(
      400,
      `server_url ${url.host} is an internal address; the operator may allow it with mcpAllowedHosts.`,
      "invalid_value",
      param,
    );
}
