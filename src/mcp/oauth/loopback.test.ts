import { describe, expect, it } from "vitest";
import { isGyreError } from "../../errors/index.js";
import { listenForCallback } from "./loopback.js";

const state = "expected-state-value";

describe("listenForCallback", () => {
  it("listens on 127.0.0.1 only, at /callback", async () => {
    const listener = await listenForCallback({ state, timeoutMs: 10_000 });
    try {
      expect(listener.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect((await fetch(new URL("/other", listener.redirectUrl))).status).toBe(404);
    } finally {
      await listener.close();
    }
  });

  it("ignores a callback with another state or none, then takes the one with the right state", async () => {
    const listener = await listenForCallback({ state, timeoutMs: 10_000 });
    try {
      const forged = await fetch(`${listener.redirectUrl}?code=evil&state=guessed`);
      const bare = await fetch(`${listener.redirectUrl}?code=evil`);
      expect([forged.status, bare.status]).toEqual([400, 400]);
      const good = await fetch(`${listener.redirectUrl}?code=the-code&state=${state}`);
      expect(good.status).toBe(200);
      expect(await listener.code).toBe("the-code");
    } finally {
      await listener.close();
    }
  });

  it("accepts exactly one callback: the listener stops after it", async () => {
    const listener = await listenForCallback({ state, timeoutMs: 10_000 });
    try {
      await fetch(`${listener.redirectUrl}?code=first&state=${state}`);
      expect(await listener.code).toBe("first");
      await expect(fetch(`${listener.redirectUrl}?code=second&state=${state}`)).rejects.toThrow();
    } finally {
      await listener.close();
    }
  });

  it("an error with the right state ends the wait with mcp_auth_failed", async () => {
    const listener = await listenForCallback({ state, timeoutMs: 10_000 });
    try {
      const page = await fetch(
        `${listener.redirectUrl}?error=access_denied&error_description=no%20thanks%1b%5b2J&state=${state}`,
      );
      expect(page.status).toBe(400);
      const error = await listener.code.catch((caught: unknown) => caught);
      expect(isGyreError(error) && error.code).toBe("mcp_auth_failed");
      expect(String(error)).toContain("access_denied: no thanks");
      expect(String(error)).not.toContain("\u001b");
    } finally {
      await listener.close();
    }
  });

  it("an abort ends the wait", async () => {
    const controller = new AbortController();
    const listener = await listenForCallback({ state, timeoutMs: 10_000, signal: controller.signal });
    controller.abort();
    const error = await listener.code.catch((caught: unknown) => caught);
    expect(isGyreError(error) && error.code).toBe("aborted");
    await listener.close();
  });

  it("a port already in use fails with mcp_auth_failed", async () => {
    const first = await listenForCallback({ state, timeoutMs: 10_000 });
    try {
      const port = Number(new URL(first.redirectUrl).port);
      const error = await listenForCallback({ state, timeoutMs: 10_000, port }).catch((caught: unknown) => caught);
      expect(isGyreError(error) && error.code).toBe("mcp_auth_failed");
    } finally {
      await first.close();
    }
  });
});
