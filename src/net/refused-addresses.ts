import { networkInterfaces } from "node:os";
import { BlockList, isIP } from "node:net";

// Loopback, private, link-local, carrier-grade NAT, unspecified, multicast and broadcast
// ranges: the operator's own network, which a client must not reach through the server (SSRF)
// unless the operator says so. The machine's own addresses are added at each check.
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  INTERNAL.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  INTERNAL.addSubnet(network, prefix, "ipv6");

/**
 * Whether the server must not connect to `address` for a client: an internal range (see
 * above) or any address of one of this machine's interfaces (a service listening on
 * `0.0.0.0` answers on all of them, public ones included). IPv4-mapped IPv6 counts as IPv4.
 */
export function isRefusedAddress(address: string): boolean {
  const plain = canonicalAddress(address);
  if (INTERNAL.check(plain, isIP(plain) === 6 ? "ipv6" : "ipv4")) return true;
  return ownAddresses().has(plain);
}

/** An address as compared: lower case, without an IPv6 zone, an IPv4-mapped one as IPv4. */
export function canonicalAddress(address: string): string {
  const lower = address.toLowerCase().replace(/%.*$/, "");
  return ipv4Mapped(lower) ?? lower;
}

function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? []) own.add(canonicalAddress(entry.address));
  return own;
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
