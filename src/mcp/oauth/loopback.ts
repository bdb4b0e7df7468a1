import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { GyreError } from "../../errors/index.js";

export interface CallbackListenerOptions {
  /** The `state` the authorization request carries; a redirect without it is refused. */
  state: string;
  /** Default 0: any free port. */
  port?: number;
  /** How long to wait for the redirect. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A loopback HTTP listener waiting for the authorization server's redirect. */
export interface CallbackListener {
  /** `http://127.0.0.1:<port>/callback`: the redirect URI to register. */
  redirectUrl: string;
  /** The authorization code of the one valid redirect; rejects on timeout, abort or refusal. */
  code: Promise<string>;
  /** Stops listening; safe to call twice. */
  close(): Promise<void>;
}

const PAGE_DONE = "Gyre is authorized. You can close this tab.\n";

/**
 * Listens on 127.0.0.1 only (never on other interfaces) for the redirect that ends the browser
 * step of an OAuth authorization. Exactly one callback is accepted: the first whose `state`
 * matches; the listener then stops. A callback with another state is answered 400 and ignored,
 * so a stray or forged request cannot end the wait; an `error` with the right state ends it.
 */
export async function listenForCallback(options: CallbackListenerOptions): Promise<CallbackListener> {
  let settle: { resolve(code: string): void; reject(error: Error): void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // The caller may stop waiting before the code is read (a failed connect): no unhandled rejection.
  code.catch(() => {});
  let done = false;
  let stopped: Promise<void> | undefined;
  // Stops accepting; the answered connection ends by itself (`connection: close`).
  const stop = () =>
    (stopped ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    }));
  const finish = (outcome: { code: string } | { error: Error }) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    if ("code" in outcome) settle?.resolve(outcome.code);
    else settle?.reject(outcome.error);
    void stop();
  };

  const server = createServer((request, response) => {
    const outcome = readCallback(request, response, options.state, done);
    if (outcome) finish(outcome);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new GyreError("mcp_auth_failed", `Cannot listen for the OAuth redirect on 127.0.0.1:${options.port ?? 0}`, {
          cause: error,
        }),
      ),
    );
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  // Set before any request can arrive: `finish` runs only from events after this point.
  const timer = setTimeout(() => {
    const seconds = Math.round(options.timeoutMs / 100) / 10;
    finish({
      error: new GyreError(
        "mcp_auth_failed",
        `No authorization came back within ${seconds}s: open the URL shown and approve the access, then try again`,
      ),
    });
  }, options.timeoutMs);
  const onAbort = () => finish({ error: new GyreError("aborted", "The authorization was interrupted") });
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  return {
    redirectUrl: `http://127.0.0.1:${port}/callback`,
    code,
    close: async () => {
      finish({ error: new GyreError("aborted", "The authorization was abandoned") });
      server.closeAllConnections();
      await stop();
    },
  };
}

/** Answers one request; returns the wait's outcome when it is the valid callback. */
function readCallback(request: IncomingMessage, response: ServerResponse, state: string, done: boolean) {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const reply = (status: number, text: string) => {
    response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    response.end(text);
  };
  if (request.method !== "GET" || url.pathname !== "/callback") return reply(404, "Not found\n");
  if (done) return reply(410, "This authorization has already ended.\n");
  if (!sameState(url.searchParams.get("state"), state)) return reply(400, "Unexpected state: ignored.\n");
  const error = url.searchParams.get("error");
  const code = url.searchParams.get("code");
  if (error || !code) {
    reply(400, "Authorization was not granted.\n");
    // The server's own words, cut short and without control characters: they reach the terminal.
    const printable = (text: string | null) => (text ?? "").slice(0, 200).replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
    const description = printable(url.searchParams.get("error_description"));
    const reason = `${printable(error) || "no code"}${description ? `: ${description}` : ""}`;
    return { error: new GyreError("mcp_auth_failed", `The authorization server refused: ${reason}`) };
  }
  reply(200, PAGE_DONE);
  return { code };
}

function sameState(received: string | null, expected: string): boolean {
  if (received === null) return false;
  const a = Buffer.from(received);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
