import { APICallError } from "@ai-sdk/provider";
import { errorMessage, GyreError } from "../errors/index.js";

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff step; doubles each attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 10, baseDelayMs: 500, maxDelayMs: 32_000 };

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);
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

/** A model-call failure, classified once so the loop only asks `retryable`. */
export function classifyModelError(error: unknown): GyreError {
  if (error instanceof GyreError) return error;
  if (APICallError.isInstance(error)) {
    // A 2xx whose body failed part-way is a cut stream, not a rejection: worth another try.
    const status = error.statusCode !== undefined && error.statusCode >= 300 ? error.statusCode : undefined;
    const retryable = status === undefined || RETRYABLE_STATUS.has(status) || status >= 500;
    const message =
      status === undefined ? `The model's response broke off: ${networkMessage(error)}` : describeApiError(error);
    return new GyreError(status === undefined ? "model_stream_error" : "model_error", message, {
      cause: error,
      statusCode: status,
      retryable,
      retryAfterMs: retryAfterMs(error.responseHeaders),
    });
  }
  if (isStreamErrorPart(error)) {
    const type = String(error.error?.type ?? error.type ?? "error");
    const retryable = type === "overloaded_error" || type === "api_error" || type === "rate_limit_error";
    return new GyreError(
      "model_stream_error",
      `Model stream error (${type}): ${String(error.error?.message ?? errorMessage(error))}`,
      {
        cause: error,
        retryable,
      },
    );
  }
  if (isNetworkError(error)) {
    return new GyreError("model_stream_error", `Connection to the model failed: ${networkMessage(error)}`, {
      cause: error,
      retryable: true,
    });
  }
  return new GyreError("model_error", errorMessage(error), { cause: error, retryable: false });
}

function describeApiError(error: APICallError): string {
  const status = error.statusCode ? `HTTP ${error.statusCode}` : "API error";
  return `${status}: ${error.message}`;
}

interface StreamErrorPart {
  type?: unknown;
  error?: { type?: unknown; message?: unknown };
}

function isStreamErrorPart(error: unknown): error is StreamErrorPart {
  return typeof error === "object" && error !== null && !(error instanceof Error) && "type" in error;
}

function isNetworkError(error: unknown): boolean {
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

function networkMessage(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    parts.push(current.message);
    current = current.cause;
  }
  return parts.join(": ") || errorMessage(error);
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower["retry-after-ms"]);
  if (lower["retry-after-ms"] !== undefined && Number.isFinite(ms)) return Math.max(0, ms);
  const value = lower["retry-after"];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Delay before retry number `attempt` (1-based): the server's `retry-after` when it gave
 * one, else exponential backoff with ±25% jitter so many clients do not retry in step.
 */
export function retryDelayMs(attempt: number, error: GyreError, policy: RetryPolicy, random = Math.random): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, 60_000);
  const base = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(base * (0.75 + random() * 0.5));
}

/** Sleep that ends early (rejecting) when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
