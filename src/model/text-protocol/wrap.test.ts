import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockLLMServer, mockTurn, startMockLLM } from "../../testing/index.js";
import { isTextProtocolModel, wrapTextProtocol } from "./wrap.js";

let server: MockLLMServer;

beforeAll(async () => {
  server = await startMockLLM({ script: { turns: [] } });
});

afterAll(async () => {
  await server.close();
});

function model() {
  const provider = createOpenAICompatible({ name: "local", baseURL: server.baseURL, includeUsage: true });
  return wrapTextProtocol(provider("small-model"));
}

const options: LanguageModelV3CallOptions = {
  prompt: [
    { role: "system", content: "Be brief." },
    { role: "user", content: [{ type: "text", text: "6*7?" }] },
  ],
  tools: [
    {
      type: "function",
      name: "calculator",
      description: "Evaluate a op b.",
      inputSchema: { type: "object", properties: { a: { type: "number" } } },
    },
  ],
  toolChoice: { type: "auto" },
};

const ANSWER =
  "<thinking>The user wants a product.</thinking>\nI will use the calculator.\n" +
  '<tool>\n{"tool_name": "calculator", "arguments": {"a": 6, "b": 7, "op": "*"}}\n</tool>\n' +
  '<tool>{"tool_name": "calculator", "arguments": {"a": 1,}}</tool>';

async function collect(stream: ReadableStream<LanguageModelV3StreamPart>): Promise<LanguageModelV3StreamPart[]> {
  const parts: LanguageModelV3StreamPart[] = [];
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV3StreamPart>) parts.push(part);
  return parts;
}

describe("wrapTextProtocol over a Chat Completions model", () => {
  it("sends no tools, teaches the protocol in the system message and reads the streamed answer", async () => {
    server.setScript({ turns: [mockTurn.text(ANSWER)] });
    const { stream } = await model().doStream(options);
    const parts = (await collect(stream)).filter((part) => !["raw", "response-metadata"].includes(part.type));

    const body = server.requests.at(-1)?.body as {
      tools?: unknown;
      messages: Array<{ role: string; content: string }>;
    };
    expect(body.tools).toBeUndefined();
    expect(body.messages[0]?.role).toBe("system");
    expect(body.messages[0]?.content).toMatch(/^Be brief\.\n\n# Tools\n[\s\S]*### calculator\nEvaluate a op b\./);

    const reasoning = parts.filter((part) => part.type === "reasoning-delta").map((part) => part.delta);
    const text = parts.filter((part) => part.type === "text-delta").map((part) => part.delta);
    expect(reasoning.join("")).toBe("The user wants a product.");
    expect(text.join("")).toBe("I will use the calculator.");
    const calls = parts.filter((part) => part.type === "tool-call");
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ toolName: "calculator", input: '{"a":6,"b":7,"op":"*"}' });
    expect(calls[0]?.providerMetadata).toBeUndefined();
    expect(calls[1]).toMatchObject({
      toolName: "calculator",
      input: '{"tool_name": "calculator", "arguments": {"a": 1,}}',
      providerMetadata: {
        textProtocol: { closed: true, problem: expect.stringContaining("not valid JSON") },
      },
    });
    expect(calls[0]?.toolCallId).toMatch(/^call_[0-9a-f]{16}_0$/);
    expect(calls[1]?.toolCallId).toBe(calls[0]?.toolCallId.replace(/_0$/, "_1"));
    expect(parts.at(-1)).toMatchObject({
      type: "finish",
      finishReason: { unified: "tool-calls", raw: "tool_use" },
    });
    expect(parts.map((part) => part.type).slice(0, 4)).toEqual([
      "stream-start",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-delta",
    ]);
  });

  it("gives the same call ids for the same request and different ones for another", async () => {
    server.setScript({ turns: [mockTurn.text('<tool>{"tool_name": "calculator"}</tool>')] });
    const ids = async (call: LanguageModelV3CallOptions) => {
      const { stream } = await model().doStream(call);
      return (await collect(stream)).flatMap((part) => (part.type === "tool-call" ? [part.toolCallId] : []));
    };
    const first = await ids(options);
    expect(await ids(options)).toEqual(first);
    const other = {
      ...options,
      prompt: [...options.prompt, { role: "user" as const, content: [{ type: "text" as const, text: "again" }] }],
    };
    expect(await ids(other)).not.toEqual(first);
  });

  it("keeps the model's finish reason when the answer is plain text", async () => {
    server.setScript({ turns: [mockTurn.text("Just 42.")] });
    const { stream } = await model().doStream(options);
    const parts = await collect(stream);
    expect(
      parts
        .filter((part) => part.type === "text-delta")
        .map((part) => part.delta)
        .join(""),
    ).toBe("Just 42.");
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "stop" } });
  });

  it("reads a generated (non-streamed) answer the same way", async () => {
    server.setScript({ turns: [mockTurn.text(ANSWER)] });
    const result = await model().doGenerate(options);
    expect(server.requests.at(-1)?.stream).toBe(false);
    expect(result.finishReason).toEqual({ unified: "tool-calls", raw: "tool_use" });
    expect(result.content.map((item) => item.type)).toEqual(["reasoning", "text", "tool-call", "tool-call"]);
    expect(result.content[1]).toEqual({ type: "text", text: "I will use the calculator." });
    expect(result.content[2]).toMatchObject({ toolName: "calculator", input: '{"a":6,"b":7,"op":"*"}' });
  });

  it("keeps the inner model's identity and wraps only once", () => {
    const wrapped = model();
    expect(wrapped.provider).toBe("local.chat");
    expect(wrapped.modelId).toBe("small-model");
    expect(isTextProtocolModel(wrapped)).toBe(true);
    expect(wrapTextProtocol(wrapped)).toBe(wrapped);
  });

  it("passes other parts through and keeps no half-written call from a stream without finish", async () => {
    const seen: LanguageModelV3CallOptions[] = [];
    const inner: LanguageModelV3 = {
      specificationVersion: "v3",
      provider: "stub",
      modelId: "stub",
      supportedUrls: {},
      doGenerate: () => Promise.reject(new Error("not used")),
      doStream: async (call) => {
        seen.push(call);
        return {
          stream: streamOf([
            { type: "stream-start", warnings: [] },
            { type: "reasoning-start", id: "r" },
            { type: "reasoning-delta", id: "r", delta: "native" },
            { type: "reasoning-end", id: "r" },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Hi <to" },
            { type: "text-delta", id: "t", delta: 'ol>{"tool_name": "calc' },
          ]),
        };
      },
    };
    const { stream } = await wrapTextProtocol(inner).doStream(options);
    expect(seen[0]?.tools).toBeUndefined();
    expect(seen[0]?.toolChoice).toBeUndefined();
    expect(await collect(stream)).toEqual([
      { type: "stream-start", warnings: [] },
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "native" },
      { type: "reasoning-end", id: "r" },
      { type: "text-start", id: "text-protocol-text-0" },
      { type: "text-delta", id: "text-protocol-text-0", delta: "Hi" },
      { type: "text-end", id: "text-protocol-text-0" },
    ]);
  });
});

function streamOf(parts: LanguageModelV3StreamPart[]): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}
