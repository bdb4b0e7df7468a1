import { errorMessage } from "../errors/index.js";

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * Whether the connection failed or broke: fetch wraps the socket error in `cause`
 * (`TypeError: fetch failed` ← `ECONNRESET`), so the chain is followed a few levels.
 */
export function isNetworkError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (typeof current !== "object") break;
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    const name = (current as { name?: unknown }).name;
    const message = (current as { message?: unknown }).message;
    if (name === "TypeError" && message === "fetch failed") return true;
    if (typeof message === "string" && /terminated|socket hang up|other side closed|premature close/i.test(message))
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** The messages of an error and its causes, joined: "fetch failed: socket hang up". */
export function networkMessage(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(": ") || errorMessage(error);
}
