import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ClientName, client, generateTurn, streamTurn } from "../../test/mock-llm-support.js";
import { type MockLLMServer, type MockStopReason, startMockLLM } from "./index.js";

let server: MockLLMServer;
beforeAll(async () => {
  server = await startMockLLM({ script: { turns: [] } });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** What each client reports as finishReason `{ unified, raw }` for each scripted stop reason. */
const EXPECTED: Record<ClientName, Record<MockStopReason, [string, string | undefined]>> = {
  anthropic: {
    end_turn: ["stop", "end_turn"],
    stop_sequence: ["stop", "stop_sequence"],
    tool_use: ["tool-calls", "tool_use"],
    max_tokens: ["length", "max_tokens"],
    refusal: ["content-filter", "refusal"],
    pause_turn: ["stop", "pause_turn"],
  },
  "openai-responses": {
    end_turn: ["stop", undefined],
    stop_sequence: ["stop", undefined],
    tool_use: ["tool-calls", undefined],
    max_tokens: ["length", "max_output_tokens"],
    refusal: ["content-filter", "content_filter"],
    pause_turn: ["stop", undefined],
  },
  "openai-chat": {
    end_turn: ["stop", "stop"],
    stop_sequence: ["stop", "stop"],
    tool_use: ["tool-calls", "tool_calls"],
    max_tokens: ["length", "length"],
    refusal: ["content-filter", "content_filter"],
    pause_turn: ["stop", "stop"],
  },
  "openai-compatible": {
    end_turn: ["stop", "stop"],
    stop_sequence: ["stop", "stop"],
    tool_use: ["tool-calls", "tool_calls"],
    max_tokens: ["length", "length"],
    refusal: ["content-filter", "content_filter"],
    pause_turn: ["stop", "stop"],
  },
};

const CASES = Object.entries(EXPECTED).flatMap(([name, reasons]) =>
  Object.entries(reasons).map(([stopReason, [unified, raw]]) => ({
    name: name as ClientName,
    stopReason: stopReason as MockStopReason,
    unified,
    raw,
  })),
);

describe.each([
  ["doStream", streamTurn],
  ["doGenerate", generateTurn],
] as const)("%s", (_mode, run) => {
  it.each(CASES)("$name maps $stopReason to $unified ($raw)", async ({ name, stopReason, unified, raw }) => {
    const content =
      stopReason === "tool_use"
        ? [{ type: "tool_use" as const, name: "Read", input: { file_path: "/x" } }]
        : [{ type: "text" as const, text: "partial answer" }];
    server.setScript({ turns: [{ content, stopReason }] });
    const result = await run(client(name, server));
    expect(result.finishReason).toEqual({ unified, raw });
  });
});

describe("malformed tool arguments", () => {
  const rawInput = '{"file_path": "/a';
  const script = { turns: [{ content: [{ type: "tool_use" as const, name: "Read", rawInput }] }] };

  it.each(["anthropic", "openai-responses", "openai-chat", "openai-compatible"] as const)(
    "%s doStream passes the raw text through as the tool-call input, without an error part",
    async (name) => {
      server.setScript(script);
      const result = await streamTurn(client(name, server));
      expect(result.toolCalls.map((call) => call.input)).toEqual([rawInput]);
      expect(result.errors).toEqual([]);
      expect(result.finishReason?.unified).toBe("tool-calls");
    },
  );

  it.each(["openai-responses", "openai-chat", "openai-compatible"] as const)(
    "%s doGenerate passes the raw text through",
    async (name) => {
      server.setScript(script);
      const result = await generateTurn(client(name, server));
      expect(result.toolCalls.map((call) => call.input)).toEqual([rawInput]);
    },
  );

  it("anthropic doGenerate gets the raw text as a JSON string (a whole message must be valid JSON)", async () => {
    server.setScript(script);
    const result = await generateTurn(client("anthropic", server));
    expect(result.toolCalls.map((call) => call.input)).toEqual([JSON.stringify(rawInput)]);
  });
});
