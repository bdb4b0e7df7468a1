import type * as Dns from "node:dns";
import type { LookupAddress, LookupOptions } from "node:dns";
import { createRequire } from "node:module";
import { isIP } from "node:net";

// node:dns loads at the first lookup, not with the sandbox's code at every start.
const requireBuiltin = createRequire(import.meta.url);
let dns: typeof Dns | undefined;

type Callback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for the proxy's upstream connections that refuses names resolving to loopback
 * or link-local addresses (127.0.0.0/8, ::1, 169.254.0.0/16 — cloud metadata — fe80::/10): an
 * allowed `*.example.com` must not become a way to a local service or the metadata endpoint
 * by a DNS answer. Allowing such an address takes naming it (`127.0.0.1:8080`, `localhost`).
 */
export const guardedLookup = guardLookup((hostname, options, callback) =>
  (dns ??= requireBuiltin("node:dns") as typeof Dns).lookup(hostname, options, callback),
);

type Resolver = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** {@link guardedLookup} over another resolver (tests give a fake one). */
export function guardLookup(resolver: Resolver) {
  return (hostname: string, options: LookupOptions, callback: Callback): void =>
    guarded(resolver, hostname, options, callback);
}

function guarded(resolver: Resolver, hostname: string, options: LookupOptions, callback: Callback): void {
  resolver(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const internal = hostname !== "localhost" && addresses.some(({ address }) => isInternal(address));
    if (internal) {
      const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to a loopback or link-local address`);
      refused.code = "EGYRESANDBOX";
      return callback(refused, []);
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return first ? callback(null, first.address, first.family) : callback(new Error(`no address for ${hostname}`), []);
  });
}

/** Loopback, link-local or unspecified. */
export function isInternal(address: string): boolean {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith("127.") || v4.startsWith("169.254.") || v4.startsWith("0.");
  const lower = address.toLowerCase();
  return lower === "::1" || lower === "::" || /^fe[89ab]/.test(lower);
}
