import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLIENTS, client, generateTurn, streamTurn } from "../../test/mock-llm-support.js";
import { type MockLLMServer, mockTurn, startMockLLM } from "./index.js";

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

describe.each(CLIENTS)("%s client", (name) => {
  describe.each(MODES)("%s", (_mode, run) => {
    it("receives text and finishes with stop", async () => {
      server.setScript({ turns: [mockTurn.text("Hello there, world!")] });
      const result = await run(client(name, server));
      expect(result.text).toBe("Hello there, world!");
      expect(result.toolCalls).toEqual([]);
      expect(result.finishReason?.unified).toBe("stop");
      expect(result.errors).toEqual([]);
    });

    it("receives several tool calls in one turn, with scripted and generated ids", async () => {
      server.setScript({
        turns: [
          mockTurn.of([
            { type: "text", text: "Reading both." },
            { type: "tool_use", name: "Read", input: { file_path: "/a.ts" } },
            { type: "tool_use", id: "my_id", name: "Read", input: { file_path: "/long/path/to/b.ts" } },
          ]),
        ],
      });
      const result = await run(client(name, server));
      const prefix = name === "anthropic" ? "toolu" : "call";
      expect(result.toolCalls).toEqual([
        { toolCallId: `${prefix}_mock_0_0`, toolName: "Read", input: JSON.stringify({ file_path: "/a.ts" }) },
        { toolCallId: "my_id", toolName: "Read", input: JSON.stringify({ file_path: "/long/path/to/b.ts" }) },
      ]);
      expect(result.text).toBe("Reading both.");
      expect(result.finishReason?.unified).toBe("tool-calls");
    });

    it("reports usage, counting cached tokens the provider's way", async () => {
      server.setScript({
        turns: [
          mockTurn.text("ok", {
            usage: {
              input_tokens: 100,
              output_tokens: 7,
              cache_read_input_tokens: 30,
              cache_creation_input_tokens: 20,
            },
          }),
        ],
      });
      const { usage } = await run(client(name, server));
      expect(usage?.outputTokens.total).toBe(7);
      expect(usage?.inputTokens.total).toBe(150);
      expect(usage?.inputTokens.cacheRead).toBe(30);
      // openai-compatible does not read cache writes: they count as uncached input there.
      const noCache = name === "openai-compatible" ? 120 : 100;
      expect(usage?.inputTokens.noCache).toBe(noCache);
      if (name !== "openai-compatible") expect(usage?.inputTokens.cacheWrite).toBe(20);
    });
  });
});

describe("thinking", () => {
  const turn = mockTurn.of([
    { type: "thinking", thinking: "Let me think about it.", signature: "sig-1" },
    { type: "text", text: "Answer." },
  ]);

  it.each(MODES)("anthropic %s gets a thinking block with its signature", async (_mode, run) => {
    server.setScript({ turns: [turn] });
    const result = await run(client("anthropic", server));
    expect(result.reasoning).toBe("Let me think about it.");
    expect(result.text).toBe("Answer.");
    expect(result.reasoningMetadata).toEqual([{ anthropic: { signature: "sig-1" } }]);
  });

  it.each(MODES)("openai-responses %s gets a reasoning summary", async (_mode, run) => {
    server.setScript({ turns: [turn] });
    const result = await run(client("openai-responses", server));
    expect(result.reasoning).toBe("Let me think about it.");
    expect(result.text).toBe("Answer.");
  });

  it.each(MODES)("openai-compatible %s gets reasoning_content", async (_mode, run) => {
    server.setScript({ turns: [turn] });
    const result = await run(client("openai-compatible", server));
    expect(result.reasoning).toBe("Let me think about it.");
    expect(result.text).toBe("Answer.");
  });

  it("makes up a deterministic signature when the script gives none", async () => {
    server.setScript({ turns: [mockTurn.of([{ type: "thinking", thinking: "hmm" }])] });
    const result = await generateTurn(client("anthropic", server));
    expect(result.reasoning).toBe("hmm");
    const response = await fetch(`${server.baseURL}/messages`, { method: "POST", body: '{"messages":[]}' });
    const body = (await response.json()) as { content: unknown[] };
    expect(body.content[0]).toEqual({ type: "thinking", thinking: "hmm", signature: "mock_signature_0_0" });
  });
});

describe("custom tool calls", () => {
  const input = 'line "one"\nline two';
  const turn = mockTurn.customToolCall("apply_patch", input, { id: "call_c" });

  it("stream to the Responses API as a custom_tool_call with custom_tool_call_input events", async () => {
    server.setScript({ turns: [turn] });
    const response = await fetch(`${server.baseURL}/responses`, {
      method: "POST",
      body: JSON.stringify({ model: "gpt-5", stream: true, input: "patch" }),
    });
    const events = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string; item?: unknown; input?: string });
    const deltas = events.filter((event) => event.type === "response.custom_tool_call_input.delta");
    expect(deltas.map((event) => event.delta).join("")).toBe(input);
    expect(events.find((event) => event.type === "response.custom_tool_call_input.done")?.input).toBe(input);
    expect(events.find((event) => event.type === "response.output_item.done")?.item).toEqual({
      type: "custom_tool_call",
      id: "ctc_mock_0_0",
      status: "completed",
      call_id: "call_c",
      name: "apply_patch",
      input,
    });
  });

  it.each(["anthropic", "openai-compatible"] as const)("are a function call of { input } for %s", async (name) => {
    server.setScript({ turns: [turn] });
    const result = await generateTurn(client(name, server));
    expect(result.toolCalls).toEqual([
      { toolCallId: "call_c", toolName: "apply_patch", input: JSON.stringify({ input }) },
    ]);
  });
});
