import type { fetch as undiciFetch } from "undici";
import { guardedAgent, RefusedHostError } from "./guarded-agent.js";

/** Same-host redirects followed before giving up, as Claude Code does. */
const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A response read whole. */
export interface FetchedPage {
  /** The URL the content came from (after same-host redirects). */
  url: string;
  code: number;
  codeText: string;
  contentType: string;
  body: Buffer;
}

/** What fetching a URL came to: its page, or a redirect to another host, reported and not followed. */
export type FetchOutcome =
  { kind: "page"; page: FetchedPage } | { kind: "redirect"; from: string; to: string; code: number; codeText: string };

/** Why a fetch failed, in words the model can act on. */
export class FetchFailed extends Error {}

export interface FetchPageOptions {
  allowedLocalHosts: readonly string[];
  maxBytes: number;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * GETs `url` within the limits: each hop's connection checked by {@link guardedAgent},
 * redirects to the same host (or its `www.` twin) followed, a redirect elsewhere returned,
 * a body past `maxBytes` or a fetch past `timeoutMs` refused.
 */
export async function fetchPage(url: URL, options: FetchPageOptions): Promise<FetchOutcome> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  let current = url;
  // undici (its fetch and its agents) is loaded by the first fetch, not with the tools.
  const undici = await import("undici");
  try {
    for (let hop = 0; ; hop++) {
      const agent = guardedAgent(undici.Agent, current, options.allowedLocalHosts);
      try {
        const response = await undici.fetch(current, {
          redirect: "manual",
          signal,
          dispatcher: agent,
          headers: { accept: "text/markdown, text/html, */*", "user-agent": "Gyre-WebFetch/1 (+https://github.com/)" },
        });
        const location = response.headers.get("location");
        if (REDIRECTS.has(response.status) && location !== null) {
          await response.body?.cancel();
          const next = new URL(location, current);
          if (!sameSite(current, next)) {
            return {
              kind: "redirect",
              from: current.href,
              to: next.href,
              code: response.status,
              codeText: response.statusText,
            };
          }
          if (hop >= MAX_REDIRECTS)
            throw new FetchFailed(`Too many redirects (more than ${MAX_REDIRECTS}) from ${url.href}.`);
          current = next;
          continue;
        }
        const body = await readLimited(response, options.maxBytes);
        const page = {
          url: current.href,
          code: response.status,
          codeText: response.statusText,
          contentType: response.headers.get("content-type") ?? "",
          body,
        };
        return { kind: "page", page };
      } finally {
        void agent.close().catch(() => {});
      }
    }
  } catch (error) {
    if (error instanceof FetchFailed || error instanceof RefusedHostError) throw error;
    const refusal = causeOf(error, RefusedHostError);
    if (refusal) throw refusal;
    if (timeout.aborted && !options.signal.aborted) {
      throw new FetchFailed(`Fetching ${url.href} took longer than ${options.timeoutMs / 1000} s and was stopped.`);
    }
    if (options.signal.aborted) throw error;
    throw new FetchFailed(`Fetching ${url.href} failed: ${describe(error)}`);
  }
}

/**
 * Redirects WebFetch follows by itself: same scheme, port and host, the host with or without
 * `www.`, and no credentials in the target. Anything else is the model's to decide.
 */
export function sameSite(from: URL, to: URL): boolean {
  if (from.protocol !== to.protocol || from.port !== to.port || to.username !== "" || to.password !== "") return false;
  const bare = (host: string) => host.replace(/^www\./, "");
  return bare(from.hostname) === bare(to.hostname);
}

async function readLimited(
  response: Response | Awaited<ReturnType<typeof undiciFetch>>,
  maxBytes: number,
): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  const tooLarge = () =>
    new FetchFailed(`The response is larger than ${maxBytes} bytes, more than WebFetch reads (webFetch.maxBytes).`);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

function causeOf<T extends Error>(error: unknown, kind: new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current !== undefined && depth < 5; depth++) {
    if (current instanceof kind) return current;
    current = typeof current === "object" && current !== null ? (current as { cause?: unknown }).cause : undefined;
  }
  return undefined;
}

function describe(error: unknown): string {
  const cause = typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined;
  const inner = cause instanceof Error ? cause.message : undefined;
  const outer = error instanceof Error ? error.message : String(error);
  return inner ? `${outer} (${inner})` : outer;
}
