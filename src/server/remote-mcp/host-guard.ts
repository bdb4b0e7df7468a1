import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { GyreError } from "../../errors/index.js";
import { isAllowedHost } from "../../sandbox/index.js";
import { canonicalAddress, isRefusedAddress } from "../../net/index.js";

/** Resolves a host name to its addresses (`dns.lookup` with `all`; tests give their own). */
export type McpLookup = (hostname: string) => Promise<string[]>;

const systemLookup: McpLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true })).map((entry) => entry.address);

/**
 * Which hosts one response's `mcp` tools may reach, and at which address. Each name is
 * resolved once; the first of its addresses the server may reach is kept, and every
 * connection to that name goes there (see pinned-fetch.ts), so a second DNS answer cannot
 * move it to a refused one (DNS rebinding). With `allowedHosts` (the config's
 * `mcpAllowedHosts`) only a listed name, or a listed address, may be reached; without, any
 * address but this machine's own and the internal ranges (src/net).
 */
export class McpHostGuard {
  readonly #allowedHosts: readonly string[] | undefined;
  readonly #lookup: McpLookup;
  readonly #pins = new Map<string, Promise<string[]>>();
  readonly #chosen = new Map<string, string>();

  constructor(allowedHosts: readonly string[] | undefined, lookup: McpLookup = systemLookup) {
    this.#allowedHosts = allowedHosts;
    this.#lookup = lookup;
  }

  /**
   * The address a connection to `url` goes to. Throws `mcp_url_refused` when the server may
   * not reach it, and `mcp_connection_failed` when the name does not resolve.
   */
  async addressOf(url: URL): Promise<string> {
    const host = hostOf(url);
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    const allowed = this.#allowedHosts;
    const named = allowed !== undefined && isAllowedHost(host, port, allowed);
    const reachable = (address: string) =>
      allowed === undefined ? !isRefusedAddress(address) : named || isAllowedHost(address, port, allowed);
    const pinned = this.#chosen.get(host);
    const address = pinned ?? (await this.#resolve(host)).find(reachable);
    if (address === undefined || !reachable(address)) throw refused(url);
    this.#chosen.set(host, address);
    return address;
  }

  /** The address kept for `hostname`, for a connection's lookup; never a new resolution. */
  pinnedAddress(hostname: string): string | undefined {
    return this.#chosen.get(
      hostname
        .toLowerCase()
        .replace(/^\[|\]$/g, "")
        .replace(/\.$/, ""),
    );
  }

  #resolve(host: string): Promise<string[]> {
    if (isIP(host)) return Promise.resolve([canonicalAddress(host)]);
    let addresses = this.#pins.get(host);
    if (!addresses) {
      addresses = this.#lookup(host).catch((error: unknown) => {
        throw new GyreError("mcp_connection_failed", `The MCP server's host ${host} does not resolve.`, {
          cause: error,
        });
      });
      this.#pins.set(host, addresses);
    }
    return addresses;
  }
}

function hostOf(url: URL): string {
  return url.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

function refused(url: URL): GyreError {
  return new GyreError(
    "mcp_url_refused",
    `${url.host} is not an MCP server this server may reach: an address of this machine or its internal network, ` +
      "or not among mcpAllowedHosts.",
  );
}
