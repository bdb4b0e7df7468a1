import { describe, expect, it } from "vitest";
import { query, type SDKMessage } from "../src/index.js";
import { nodeFetch } from "../src/net/index.js";
import { mockFault, mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, withMock } from "./helpers.js";

function retries(messages: SDKMessage[]) {
  return messages.flatMap((m) => (m.type === "system" && m.subtype === "api_retry" ? [m] : []));
}

// Each fault through both kinds of fetch: the global one (the library's default) and Gyre's
// node:http one (the CLI's), whose failures must be told apart as fetch's are.
describe.each([
  ["the global fetch", {}],
  ["nodeFetch", { fetch: nodeFetch }],
] as const)("through %s", (_name, options) => {
  describe.each(FORMATS)("provider faults over $name", (format) => {
    it("retries a 429 after the retry-after the server asked for", async () => {
      const script = { turns: [mockTurn.text("made it", { faults: [mockFault.rateLimit(1)] })] };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "hi", { tools: [], ...options });
        const [retry] = retries(messages);
        expect(retry).toMatchObject({ attempt: 1, error_status: 429, retry_delay_ms: 1000 });
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "made it" });
        expect(server.requests.map((r) => r.attempt)).toEqual([0, 1]);
      });
    });

    it("retries 529 overloaded and 500 with backoff", async () => {
      const script = {
        turns: [mockTurn.text("made it", { faults: [mockFault.overloaded(), mockFault.http(500)] })],
      };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "hi", { tools: [], ...options });
        expect(retries(messages).map((r) => r.error_status)).toEqual([529, 500]);
        expect(retries(messages).map((r) => r.attempt)).toEqual([1, 2]);
        expect(resultOf(messages).subtype).toBe("success");
      });
    });

    it("retries a stream cut mid-way and keeps only the complete answer", async () => {
      const script = { turns: [mockTurn.text("the whole answer", { faults: [mockFault.cut(3)] })] };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "hi", { tools: [], ...options });
        expect(retries(messages)).toHaveLength(1);
        expect(retries(messages)[0]?.error_status).toBeNull();
        const assistants = messages.filter((m) => m.type === "assistant");
        expect(assistants).toHaveLength(1);
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "the whole answer" });
      });
    });

    it("gives up after maxRetries with error_during_execution and the error text", async () => {
      const script = {
        turns: [mockTurn.text("never", { faults: [mockFault.http(503), mockFault.http(503), mockFault.http(503)] })],
      };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "hi", { tools: [], maxRetries: 2, ...options });
        expect(retries(messages)).toHaveLength(2);
        const result = resultOf(messages);
        expect(result).toMatchObject({
          subtype: "error_during_execution",
          is_error: true,
          terminal_reason: "model_error",
        });
        expect(result.errors?.[0]).toMatch(/503/);
      });
    });

    it("does not retry a non-retryable error", async () => {
      const script = {
        turns: [mockTurn.text("never", { faults: [mockFault.http(400, "bad request: prompt is broken")] })],
      };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "hi", { tools: [], ...options });
        expect(retries(messages)).toHaveLength(0);
        expect(server.requests).toHaveLength(1);
        expect(resultOf(messages).errors?.[0]).toMatch(/prompt is broken/);
      });
    });
  });
});

describe("model resolution errors come before any request", () => {
  it("fails clearly on a missing API key", async () => {
    await withMock({ turns: [mockTurn.text("x")] }, async (server) => {
      const q = query({
        prompt: "hi",
        options: { model: "anthropic/claude-sonnet-4-5", env: { ANTHROPIC_BASE_URL: server.baseURL } },
      });
      await expect(q.next()).rejects.toMatchObject({
        code: "missing_api_key",
        message: expect.stringContaining("ANTHROPIC_API_KEY"),
      });
      expect(server.requests).toHaveLength(0);
    });
  });

  it("fails clearly on an unknown provider", async () => {
    const q = query({ prompt: "hi", options: { model: "nosuch/model", env: {} } });
    await expect(q.next()).rejects.toMatchObject({
      code: "unknown_provider",
      message: expect.stringContaining("anthropic"),
    });
  });
});
