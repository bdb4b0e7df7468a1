import { APICallError } from "@ai-sdk/provider";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callOptions, generateTurn, otherClient, streamTurn } from "../../test/mock-llm-support.js";
import { type MockLLMServer, mockFault, mockTurn, startMockLLM } from "./index.js";

let server: MockLLMServer;
beforeAll(async () => {
  server = await startMockLLM({ script: { turns: [] } });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const MODES = [
  ["doStream", streamTurn],
  ["doGenerate", generateTurn],
] as const;

describe.each(MODES)("the Gemini client (@ai-sdk/google) %s", (mode, run) => {
  it("gets text, thoughts and tool calls in Gemini's wire format, at the path that names the model", async () => {
    server.setScript({
      turns: [
        mockTurn.of([
          { type: "thinking", thinking: "Which file first?", signature: "sig-g" },
          { type: "text", text: "Reading both." },
          { type: "tool_use", name: "Read", input: { file_path: "/a.ts" } },
          { type: "tool_use", name: "Read", input: { file_path: "/long/path/to/b.ts" } },
        ]),
      ],
    });
    const result = await run(otherClient("google", server));
    expect(result.reasoning).toBe("Which file first?");
    expect(result.text).toBe("Reading both.");
    expect(result.toolCalls.map(({ toolName, input }) => [toolName, JSON.parse(input)])).toEqual([
      ["Read", { file_path: "/a.ts" }],
      ["Read", { file_path: "/long/path/to/b.ts" }],
    ]);
    expect(result.reasoningMetadata.at(-1)).toEqual({ google: { thoughtSignature: "sig-g" } });
    expect(result.finishReason).toEqual({ unified: "tool-calls", raw: "STOP" });
    const [request] = server.requests;
    const action = mode === "doStream" ? "streamGenerateContent" : "generateContent";
    expect(request).toMatchObject({ format: "gemini", path: `/v1beta/models/gemini-2.5-flash:${action}` });
    expect(request?.stream).toBe(mode === "doStream");
    expect(request?.headers["x-goog-api-key"]).toBe("test-key");
    expect(request?.body.contents).toEqual([{ role: "user", parts: [{ text: "hi" }] }]);
  });

  it("reports usage with cached tokens inside the prompt count, as Gemini does", async () => {
    const usage = { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 30, cache_creation_input_tokens: 0 };
    server.setScript({ turns: [mockTurn.text("ok", { usage })] });
    const result = await run(otherClient("google", server));
    expect(result.usage?.inputTokens).toMatchObject({ total: 130, cacheRead: 30, noCache: 100 });
    expect(result.usage?.outputTokens.total).toBe(7);
    expect(result.finishReason).toEqual({ unified: "stop", raw: "STOP" });
  });

  it.each([
    ["max_tokens", "length", "MAX_TOKENS"],
    ["refusal", "content-filter", "SAFETY"],
  ] as const)("maps the %s stop to %s", async (stopReason, unified, raw) => {
    server.setScript({ turns: [mockTurn.text("cut", { stopReason })] });
    expect((await run(otherClient("google", server))).finishReason).toEqual({ unified, raw });
  });

  it("counts the model's earlier turns (role model) to pick the scripted turn", async () => {
    server.setScript({ mode: "history", turns: [mockTurn.text("first"), mockTurn.text("second")] });
    const prompt = [
      { role: "user" as const, content: [{ type: "text" as const, text: "hi" }] },
      { role: "assistant" as const, content: [{ type: "text" as const, text: "first" }] },
      { role: "user" as const, content: [{ type: "text" as const, text: "again" }] },
    ];
    expect((await run(otherClient("google", server), { ...callOptions(), prompt })).text).toBe("second");
  });
});

describe("Gemini errors", () => {
  it("are Google's error bodies, retryable where the client retries them", async () => {
    server.setScript({
      turns: [mockTurn.text("ok", { faults: [mockFault.rateLimit(1), mockFault.http(503, "busy")] })],
    });
    const model = otherClient("google", server);
    const limited = await Promise.resolve(model.doStream(callOptions())).catch((error: unknown) => error);
    expect(APICallError.isInstance(limited) && limited.statusCode).toBe(429);
    expect(JSON.parse((limited as APICallError).responseBody ?? "")).toEqual({
      error: { code: 429, message: expect.any(String), status: "RESOURCE_EXHAUSTED" },
    });
    const busy = await Promise.resolve(model.doGenerate(callOptions())).catch((error: unknown) => error);
    expect(APICallError.isInstance(busy) && [busy.statusCode, busy.message, busy.isRetryable]).toEqual([
      503,
      "busy",
      true,
    ]);
    expect((await streamTurn(model)).text).toBe("ok");
  });
});

describe("Azure OpenAI clients (@ai-sdk/azure)", () => {
  it.each(MODES)("reach the Responses API under /openai/v1 with an api-key header (%s)", async (_mode, run) => {
    server.setScript({ turns: [mockTurn.text("from azure")] });
    expect((await run(otherClient("azure", server))).text).toBe("from azure");
    expect(server.requests[0]).toMatchObject({ format: "openai-responses", path: "/openai/v1/responses" });
    expect(server.requests[0]?.headers["api-key"]).toBe("test-key");
    expect(server.requests[0]?.body.model).toBe("my-gpt-5");
  });

  it("reach Chat Completions at a deployment's path", async () => {
    server.setScript({ turns: [mockTurn.text("deployed")] });
    expect((await streamTurn(otherClient("azure-chat", server))).text).toBe("deployed");
    expect(server.requests[0]).toMatchObject({
      format: "openai-chat",
      path: "/openai/deployments/my-gpt-4o/chat/completions",
    });
  });
});
