import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { GyreError } from "../errors/index.js";
import { classifyModelError, DEFAULT_RETRY, retryAfterMs, retryDelayMs } from "./retry.js";

function apiError(statusCode: number, headers: Record<string, string> = {}) {
  return new APICallError({
    message: `status ${statusCode}`,
    url: "http://x",
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
  });
}

describe("retry classification", () => {
  it("retries 408, 429, 5xx and 529, not other 4xx", () => {
    for (const status of [408, 429, 500, 502, 503, 529])
      expect(classifyModelError(apiError(status)).retryable).toBe(true);
    for (const status of [400, 401, 403, 404, 422]) expect(classifyModelError(apiError(status)).retryable).toBe(false);
  });

  it("retries connection resets and cut streams", () => {
    const reset = new TypeError("fetch failed", {
      cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
    });
    expect(classifyModelError(reset)).toMatchObject({ retryable: true, code: "model_stream_error" });
    const cut = new APICallError({
      message: "Failed to process successful response",
      url: "x",
      requestBodyValues: {},
      statusCode: 200,
    });
    expect(classifyModelError(cut)).toMatchObject({ retryable: true, statusCode: undefined });
  });

  it("keeps the server's retry-after", () => {
    expect(classifyModelError(apiError(429, { "retry-after": "7" })).retryAfterMs).toBe(7000);
  });
});

describe("retry-after parsing", () => {
  it("reads seconds, HTTP dates and retry-after-ms", () => {
    expect(retryAfterMs({ "Retry-After": "2" })).toBe(2000);
    expect(retryAfterMs({ "retry-after-ms": "150" })).toBe(150);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterMs({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});

describe("backoff", () => {
  const error = new GyreError("model_error", "x", { retryable: true });

  it("doubles per attempt within ±25% jitter and stays under the cap", () => {
    expect(retryDelayMs(1, error, DEFAULT_RETRY, () => 0)).toBe(375);
    expect(retryDelayMs(1, error, DEFAULT_RETRY, () => 1)).toBe(625);
    expect(retryDelayMs(3, error, DEFAULT_RETRY, () => 0.5)).toBe(2000);
    expect(retryDelayMs(20, error, DEFAULT_RETRY, () => 1)).toBe(40_000);
  });

  it("uses retry-after when the server gave one, capped at a minute", () => {
    const limited = new GyreError("model_error", "x", { retryable: true, retryAfterMs: 1234 });
    expect(retryDelayMs(5, limited, DEFAULT_RETRY, () => 0)).toBe(1234);
    const huge = new GyreError("model_error", "x", { retryable: true, retryAfterMs: 3_600_000 });
    expect(retryDelayMs(1, huge, DEFAULT_RETRY)).toBe(60_000);
  });
});
