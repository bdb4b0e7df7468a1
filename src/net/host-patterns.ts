/**
 * Whether `host:port` is allowed by one of the patterns: `example.com` (that host), `*.example.com`
 * (its subdomains, not itself), either with `:port` to allow that port only.
 */
export function isAllowedHost(host: string, port: number, patterns: readonly string[]): boolean {
  const name = normalHost(host);
  return patterns.some((pattern) => {
    const { host: patternHost, port: patternPort } = splitPattern(pattern);
    if (patternPort !== undefined && patternPort !== port) return false;
    if (patternHost.startsWith("*.")) return name.endsWith(patternHost.slice(1)) && name !== patternHost.slice(2);
    return name === patternHost;
  });
}

function splitPattern(pattern: string): { host: string; port: number | undefined } {
  const text = pattern.trim().toLowerCase();
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(text);
  if (!match) return { host: normalHost(text), port: undefined };
  return { host: normalHost(match[1] ?? ""), port: match[2] === undefined ? undefined : Number(match[2]) };
}

function normalHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/** `host:port` of a CONNECT target or an absolute URL; undefined when it names neither. */
export function parseTarget(target: string, defaultPort: number): { host: string; port: number } | undefined {
  const absolute = target.includes("://");
  // A CONNECT target is `host:port`, nothing more.
  if (!absolute && !/^[^/?#@]+$/.test(target)) return undefined;
  try {
    const url = new URL(absolute ? target : `http://${target}`);
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : defaultPort) : Number(url.port);
    return url.hostname ? { host: normalHost(url.hostname), port } : undefined;
  } catch {
    return undefined;
  }
}
