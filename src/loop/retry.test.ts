import { describe, expect, it } from "vitest";
import { GyreError } from "../errors/index.js";
import { DEFAULT_RETRY, retryDelayMs } from "./retry.js";

describe("backoff", () => {
  const error = new GyreError("model_server_error", "x", { retryable: true });

  it("doubles per attempt within ±25% jitter and stays under the cap", () => {
    expect(retryDelayMs(1, error, DEFAULT_RETRY, () => 0)).toBe(375);
    expect(retryDelayMs(1, error, DEFAULT_RETRY, () => 1)).toBe(625);
    expect(retryDelayMs(3, error, DEFAULT_RETRY, () => 0.5)).toBe(2000);
    expect(retryDelayMs(20, error, DEFAULT_RETRY, () => 1)).toBe(40_000);
  });

  it("uses retry-after when the server gave one, capped at a minute", () => {
    const limited = new GyreError("model_rate_limited", "x", { retryable: true, retryAfterMs: 1234 });
    expect(retryDelayMs(5, limited, DEFAULT_RETRY, () => 0)).toBe(1234);
    const huge = new GyreError("model_rate_limited", "x", { retryable: true, retryAfterMs: 3_600_000 });
    expect(retryDelayMs(1, huge, DEFAULT_RETRY)).toBe(60_000);
  });
});
