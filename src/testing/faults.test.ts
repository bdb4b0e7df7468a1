import { APICallError } from "@ai-sdk/provider";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { classifyModelError } from "../model/index.js";
import {
  CLIENTS,
  callOptions,
  client,
  generateTurn,
  otherClient,
  streamTurn,
  userPrompt,
} from "../../test/mock-llm-support.js";
import { type MockLLMServer, type MockRequest, mockFault, mockTurn, startMockLLM } from "./index.js";

let server: MockLLMServer;
let onRequest: ((request: MockRequest) => void) | undefined;
beforeAll(async () => {
  server = await startMockLLM({ script: { turns: [] }, onRequest: (request) => onRequest?.(request) });
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  onRequest = undefined;
});

async function apiCallError(promise: PromiseLike<unknown>): Promise<APICallError> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
  return error;
}

describe.each(CLIENTS)("%s client", (name) => {
  it("gets a 429 with retry-after as a retryable APICallError, and the next attempt succeeds", async () => {
    server.setScript({ turns: [mockTurn.text("finally", { faults: [mockFault.rateLimit(2)] })] });
    const model = client(name, server);
    const error = await apiCallError(model.doStream(callOptions()));
    expect(error.statusCode).toBe(429);
    expect(error.responseHeaders?.["retry-after"]).toBe("2");
    expect(error.isRetryable).toBe(true);
    // The provider client retried nothing itself: one request so far.
    expect(server.requests.map((request) => [request.attempt, request.fault?.type])).toEqual([[0, "http"]]);
    expect((await streamTurn(model)).text).toBe("finally");
    expect(server.requests.map((request) => request.attempt)).toEqual([0, 1]);
  });

  it("gets 529 and 500 with the provider's error body, in order, then the answer", async () => {
    server.setScript({
      turns: [mockTurn.text("ok", { faults: [mockFault.overloaded(), mockFault.http(500, "boom")] })],
    });
    const model = client(name, server);
    const overloaded = await apiCallError(model.doGenerate(callOptions()));
    expect(overloaded.statusCode).toBe(529);
    expect(overloaded.isRetryable).toBe(true);
    const failed = await apiCallError(model.doStream(callOptions()));
    expect(failed.statusCode).toBe(500);
    expect(failed.message).toBe("boom");
    const body = JSON.parse(failed.responseBody ?? "{}");
    if (name === "anthropic") {
      expect(JSON.parse(overloaded.responseBody ?? "{}").error.type).toBe("overloaded_error");
      expect(body).toEqual({ type: "error", error: { type: "api_error", message: "boom" } });
    } else {
      expect(body).toEqual({ error: { message: "boom", type: "server_error", param: null, code: null } });
    }
    expect((await generateTurn(model)).text).toBe("ok");
  });

  it("sees a cut stream as an error before any finish part", async () => {
    server.setScript({
      turns: [mockTurn.text("one two three four five six", { faults: [mockFault.cut(4)] })],
    });
    const outcome = await streamTurn(client(name, server)).catch((thrown: unknown) => ({
      thrown,
      parts: [],
    }));
    expect(APICallError.isInstance(outcome.thrown)).toBe(true);
    expect(outcome.parts.some((part) => part.type === "finish")).toBe(false);
    expect(server.requests[0]?.fault).toEqual({ type: "cut", afterChunks: 4 });
  });

  it("sees a cut stream that sent nothing as a retryable error from doStream or the stream", async () => {
    server.setScript({ turns: [mockTurn.text("never", { faults: [mockFault.cut(0)] })] });
    const outcome = await streamTurn(client(name, server)).catch((thrown: unknown) => ({
      thrown,
      parts: [],
    }));
    expect(APICallError.isInstance(outcome.thrown)).toBe(true);
    expect(outcome.parts.some((part) => part.type === "text-delta" || part.type === "finish")).toBe(false);
  });

  it("fails doGenerate when a whole answer is cut halfway", async () => {
    server.setScript({
      turns: [mockTurn.text("whole", { faults: [mockFault.cut()] }), mockTurn.text("next")],
    });
    const error = await apiCallError(client(name, server).doGenerate(callOptions()));
    expect(error.isRetryable).toBe(true);
  });

  it("answers normally after a delay fault and with chunk delays", async () => {
    server.setScript({
      turns: [mockTurn.text("slow but sure", { faults: [mockFault.delay(5)], delayMs: 5, chunkDelayMs: 1 })],
    });
    const result = await streamTurn(client(name, server));
    expect(result.text).toBe("slow but sure");
    expect(server.requests[0]?.fault).toEqual({ type: "delay", ms: 5 });
  });
});

describe("client aborts", () => {
  it("stop a delayed answer: the client rejects and the server takes the next request", async () => {
    server.setScript({ turns: [mockTurn.text("too late", { delayMs: 600_000 })] });
    const controller = new AbortController();
    onRequest = () => controller.abort();
    const model = client("anthropic", server);
    await expect(model.doStream({ ...callOptions(), abortSignal: controller.signal })).rejects.toThrow();
    onRequest = undefined;
    server.setScript({ turns: [mockTurn.text("on time")] });
    expect((await streamTurn(model)).text).toBe("on time");
  });

  it("stop a slow stream midway, and the server keeps serving", async () => {
    server.setScript({ turns: [mockTurn.text("a b c d e f g h", { chunkDelayMs: 600_000 })] });
    const controller = new AbortController();
    const model = client("anthropic", server);
    const { stream } = await model.doStream({ ...callOptions(), abortSignal: controller.signal });
    const reader = stream.getReader();
    expect((await reader.read()).value?.type).toBe("stream-start");
    expect((await reader.read()).value?.type).toBe("response-metadata");
    controller.abort();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return;
      })(),
    ).rejects.toThrow();
    server.setScript({ turns: [mockTurn.text("still here")] });
    expect((await streamTurn(model)).text).toBe("still here");
  });
});

describe.each([...CLIENTS, "google"] as const)("%s client over the script's contextWindow", (name) => {
  it("gets the provider's 400 for a too-long input, which Gyre reads as one, and no turn is used", async () => {
    server.setScript({ mode: "sequential", turns: [mockTurn.text("fits")], contextWindow: 120 });
    const model = name === "google" ? otherClient("google", server) : client(name, server);
    const long = callOptions(userPrompt("word ".repeat(200)));
    const error = await apiCallError(model.doStream(long));
    expect(error.statusCode).toBe(400);
    expect(classifyModelError(error, { aborted: false }).code).toBe("model_prompt_too_long");
    expect(server.requests[0]).toMatchObject({ turn: -1, overContextWindow: expect.any(Number) });
    expect((await streamTurn(model)).text).toBe("fits");
  });
});
