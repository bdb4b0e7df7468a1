import { APICallError, type LanguageModelV3Message, type LanguageModelV3Prompt } from "@ai-sdk/provider";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLIENTS, callOptions, client, streamTurn, userPrompt } from "../../test/mock-llm-support.js";
import { type MockLLMServer, mockFault, mockTurn, startMockLLM } from "./index.js";

let server: MockLLMServer;
beforeAll(async () => {
  server = await startMockLLM({ script: { turns: [] } });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const agentScript = {
  turns: [
    mockTurn.of([
      { type: "thinking", thinking: "I should read it." },
      { type: "tool_use", name: "Read", input: { file_path: "/a.ts" } },
    ]),
    mockTurn.of([
      { type: "text", text: "And the other one." },
      { type: "tool_use", name: "Read", input: { file_path: "/b.ts" } },
      { type: "tool_use", name: "Read", input: { file_path: "/c.ts" } },
    ]),
    mockTurn.text("Both files are fine."),
  ],
};

/** The assistant message and tool results a loop would append after a streamed turn. */
function roundTrip(result: Awaited<ReturnType<typeof streamTurn>>): LanguageModelV3Message[] {
  const assistant: LanguageModelV3Message = {
    role: "assistant",
    content: [
      ...(result.text ? [{ type: "text" as const, text: result.text }] : []),
      ...result.toolCalls.map((call) => ({
        type: "tool-call" as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: JSON.parse(call.input),
      })),
    ],
  };
  const tool: LanguageModelV3Message = {
    role: "tool",
    content: result.toolCalls.map((call) => ({
      type: "tool-result" as const,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: "text" as const, value: `contents of ${call.input}` },
    })),
  };
  return [assistant, tool];
}

describe.each(CLIENTS)("%s client, history mode", (name) => {
  it("answers turn by turn across tool round trips, replaying the history", async () => {
    server.setScript(agentScript);
    const model = client(name, server);
    const prompt: LanguageModelV3Prompt = userPrompt("check the files");
    const first = await streamTurn(model, callOptions(prompt));
    expect(first.toolCalls.map((call) => JSON.parse(call.input))).toEqual([{ file_path: "/a.ts" }]);
    prompt.push(...roundTrip(first));
    const second = await streamTurn(model, callOptions(prompt));
    expect(second.toolCalls).toHaveLength(2);
    prompt.push(...roundTrip(second));
    const third = await streamTurn(model, callOptions(prompt));
    expect(third.text).toBe("Both files are fine.");
    expect(third.finishReason?.unified).toBe("stop");
    expect(server.requests.map((request) => request.turn)).toEqual([0, 1, 2]);

    // Asking again with the first prompt gets the first turn again.
    const again = await streamTurn(model, callOptions(userPrompt("check the files")));
    expect(again.toolCalls).toHaveLength(1);
  });

  it("refuses a turn past the end of the script with a non-retryable 400", async () => {
    server.setScript({ turns: [mockTurn.text("only one")] });
    const prompt: LanguageModelV3Prompt = [
      ...userPrompt("hi"),
      { role: "assistant", content: [{ type: "text", text: "earlier answer" }] },
      ...userPrompt("and now?"),
    ];
    const error = await Promise.resolve(client(name, server).doStream(callOptions(prompt))).catch(
      (thrown: unknown) => thrown,
    );
    if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
    expect(error.statusCode).toBe(400);
    expect(error.isRetryable).toBe(false);
    expect(error.message).toBe("mock-llm: the script has no turn 1 (it has 1 turn)");
  });
});

describe("sequential mode", () => {
  it("gives each answered request the next turn, whatever the request says", async () => {
    server.setScript({ mode: "sequential", turns: [mockTurn.text("first"), mockTurn.text("second")] });
    const model = client("openai-chat", server);
    expect((await streamTurn(model)).text).toBe("first");
    expect((await streamTurn(model)).text).toBe("second");
    await expect(model.doGenerate(callOptions())).rejects.toThrow("the script has no turn 2 (it has 2 turns)");
  });

  it("keeps the turn when an attempt fails, so the retry gets it", async () => {
    server.setScript({
      mode: "sequential",
      turns: [mockTurn.text("first", { faults: [mockFault.http(503)] }), mockTurn.text("second")],
    });
    const model = client("openai-responses", server);
    await expect(model.doStream(callOptions())).rejects.toThrow();
    expect((await streamTurn(model)).text).toBe("first");
    expect((await streamTurn(model)).text).toBe("second");
    expect(server.requests.map((request) => [request.turn, request.attempt])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
  });

  it("starts over after reset()", async () => {
    server.setScript({ mode: "sequential", turns: [mockTurn.text("first"), mockTurn.text("second")] });
    const model = client("anthropic", server);
    expect((await streamTurn(model)).text).toBe("first");
    server.reset();
    expect((await streamTurn(model)).text).toBe("first");
  });
});
