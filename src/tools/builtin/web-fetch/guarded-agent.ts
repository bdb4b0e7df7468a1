import type * as Dns from "node:dns";
import type { LookupAddress, LookupOptions } from "node:dns";
import { createRequire } from "node:module";
import { isIP } from "node:net";
import type { Agent } from "undici";
import { isRefusedAddress } from "../../../net/index.js";
import { isAllowedHost } from "../../../net/index.js";

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A fetch refused before any byte was sent: the host is this machine or its internal network. */
export class RefusedHostError extends Error {}

/**
 * An undici agent for one request to `url` that connects only to addresses WebFetch may
 * reach. The check happens in the connection's own lookup: the socket goes to the address
 * checked, never to a second DNS answer (DNS rebinding). Loopback, private, link-local and
 * this machine's own addresses are refused unless `allowedLocalHosts` names the host (as
 * written in the URL: a name, or the address itself).
 */
export function guardedAgent(AgentClass: typeof Agent, url: URL, allowedLocalHosts: readonly string[]): Agent {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const named = isAllowedHost(host, port, allowedLocalHosts);
  // Node connects to an IP literal without a lookup: it is checked here instead.
  if (isIP(host) && !named && isRefusedAddress(host)) throw refused(url);
  return new AgentClass({
    connect: {
      lookup: (hostname: string, options: LookupOptions, callback: LookupCallback) => {
        // node:dns loads at WebFetch's first lookup, not with the built-in tools at every start.
        (createRequire(import.meta.url)("node:dns") as typeof Dns).lookup(
          hostname,
          { ...options, all: true },
          (error, addresses) => {
            if (error) return callback(error, []);
            const usable = named ? addresses : addresses.filter(({ address }) => !isRefusedAddress(address));
            if (usable.length === 0) return callback(refused(url), []);
            if (options.all) return callback(null, usable);
            const [first] = usable;
            return callback(null, first!.address, first!.family);
          },
        );
      },
    },
  });
}

function refused(url: URL): NodeJS.ErrnoException {
  return new RefusedHostError(
    `${url.host} is an address of this machine or its internal network (loopback, private or link-local), ` +
      "which WebFetch does not reach unless webFetch.allowedLocalHosts names it.",
  );
}
