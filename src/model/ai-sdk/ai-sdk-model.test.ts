import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { ModelCallError } from "../model-call-error.js";
import type { ModelRequest, ModelStreamEvent, ModelTool } from "../model.js";
import { AiSdkModel, apiOfLanguageModel } from "./ai-sdk-model.js";

const usage = {
  inputTokens: { total: 120, noCache: 100, cacheRead: 20, cacheWrite: undefined },
  outputTokens: { total: 30, text: 30, reasoning: undefined },
};

const finish = (unified: "stop" | "tool-calls", raw: string): LanguageModelV3StreamPart => ({
  type: "finish",
  finishReason: { unified, raw },
  usage,
});

/** A language model that streams `parts` (or fails as told) and records its call options. */
function fakeModel(parts: LanguageModelV3StreamPart[], options: { reject?: unknown; cutAfter?: number } = {}) {
  const calls: LanguageModelV3CallOptions[] = [];
  const languageModel: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "fake.chat",
    modelId: "fake-1",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    async doStream(callOptions) {
      calls.push(callOptions);
      if (options.reject) throw options.reject;
      const sent = options.cutAfter === undefined ? parts : parts.slice(0, options.cutAfter);
      return { stream: new ReadableStream({ start: (c) => (sent.forEach((p) => c.enqueue(p)), c.close()) }) };
    },
  };
  const model = new AiSdkModel(languageModel, {
    id: "fake/fake-1",
    provider: "fake",
    modelId: "fake-1",
    info: undefined,
    api: "other",
  });
  return { model, calls };
}

const tools: ModelTool[] = [
  {
    name: "Read",
    description: "Read a file",
    inputSchema: { type: "object", properties: { path: { type: "string" } } },
  },
];

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "be brief",
    history: [{ role: "user", content: "read a.txt" }],
    tools,
    messageId: "msg_test",
    signal: new AbortController().signal,
    ...extra,
  };
}

async function run(model: AiSdkModel, req: ModelRequest = request()) {
  const events: ModelStreamEvent[] = [];
  const stream = model.stream(req);
  for (;;) {
    const next = await stream.next();
    if (next.done) return { events, response: next.value };
    events.push(next.value);
  }
}

async function failure(model: AiSdkModel, req: ModelRequest = request()): Promise<ModelCallError> {
  return run(model, req).then(
    () => expect.unreachable("the stream should fail"),
    (error: ModelCallError) => error,
  );
}

const answer: LanguageModelV3StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Reading it." },
  { type: "text-end", id: "t" },
  { type: "tool-input-start", id: "call_1", toolName: "Read" },
  { type: "tool-input-delta", id: "call_1", delta: '{"path":' },
  { type: "tool-input-delta", id: "call_1", delta: '"a.txt"}' },
  { type: "tool-input-end", id: "call_1" },
  { type: "tool-call", toolCallId: "call_1", toolName: "Read", input: '{"path":"a.txt"}' },
  { type: "tool-call", toolCallId: "call_2", toolName: "Read", input: "{not json" },
  finish("tool-calls", "tool_use"),
];

describe("AiSdkModel.stream", () => {
  it("turns stream parts into Anthropic events and the assembled message", async () => {
    const { model } = fakeModel(answer);
    const { events, response } = await run(model);
    expect(events.map((event) => event.type)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(response.message).toMatchObject({
      id: "msg_test",
      model: "fake-1",
      stop_reason: "tool_use",
      usage: { input_tokens: 100, output_tokens: 30, cache_read_input_tokens: 20, cache_creation_input_tokens: 0 },
      content: [
        { type: "text", text: "Reading it." },
        { type: "tool_use", id: "call_1", name: "Read", input: { path: "a.txt" } },
        { type: "tool_use", id: "call_2", name: "Read", input: {} },
      ],
    });
    expect(response.toolInputProblems.get("call_2")).toEqual({ kind: "invalid_json", raw: "{not json" });
  });

  it("sends the system prompt, history and tools as AI SDK call options, tools converted once per list", async () => {
    const { model, calls } = fakeModel(answer);
    const signal = new AbortController().signal;
    await run(model, request({ maxOutputTokens: 500, providerOptions: { fake: { x: 1 } }, signal }));
    await run(model, request());
    expect(calls[0]).toMatchObject({
      prompt: [
        { role: "system", content: "be brief" },
        { role: "user", content: [{ type: "text", text: "read a.txt" }] },
      ],
      tools: [{ type: "function", name: "Read", description: "Read a file", inputSchema: tools[0]?.inputSchema }],
      toolChoice: { type: "auto" },
      maxOutputTokens: 500,
      providerOptions: { fake: { x: 1 } },
      abortSignal: signal,
    });
    expect(calls[1]?.tools).toBe(calls[0]?.tools);
  });

  it("leaves tools out when there are none", async () => {
    const { model, calls } = fakeModel(answer);
    await run(model, request({ tools: [] }));
    expect(calls[0]).toMatchObject({ tools: undefined, toolChoice: undefined });
  });

  it("fails a stream cut before its finish as a retryable stream error, keeping the text but not the unfinished call", async () => {
    const { model } = fakeModel(answer, { cutAfter: 6 });
    const error = await failure(model);
    expect(error).toMatchObject({ code: "model_stream_error", retryable: true });
    expect(error.partial?.content).toEqual([{ type: "text", text: "Reading it." }]);
  });

  it("has no partial when nothing of substance streamed", async () => {
    const error = await failure(fakeModel(answer, { cutAfter: 2 }).model);
    expect(error).toMatchObject({ code: "model_stream_error", partial: undefined });
  });

  it("classifies an error part, with what streamed before it", async () => {
    const parts = [
      ...answer.slice(0, 4),
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    ];
    const error = await failure(fakeModel(parts as LanguageModelV3StreamPart[]).model);
    expect(error).toMatchObject({ code: "model_overloaded", retryable: true });
    expect(error.partial?.content).toEqual([{ type: "text", text: "Reading it." }]);
  });

  it("classifies a rejected request", async () => {
    const rejected = new APICallError({
      message: "invalid x-api-key",
      url: "x",
      requestBodyValues: {},
      statusCode: 401,
    });
    const error = await failure(fakeModel([], { reject: rejected }).model);
    expect(error).toMatchObject({ code: "model_auth_error", statusCode: 401, retryable: false, partial: undefined });
  });

  it("reports an aborted call as aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await failure(
      fakeModel([], { reject: new Error("aborted") }).model,
      request({ signal: controller.signal }),
    );
    expect(error.code).toBe("aborted");
  });
});

describe("apiOfLanguageModel", () => {
  it("reads the wire API from the AI SDK provider id", () => {
    const of = (provider: string) => apiOfLanguageModel({ provider } as LanguageModelV3);
    expect(of("anthropic.messages")).toBe("anthropic");
    expect(of("openai.responses")).toBe("openai-responses");
    expect(of("openai.chat")).toBe("openai-chat");
    expect(of("ollama.chat")).toBe("other");
  });
});
