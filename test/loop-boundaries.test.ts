import { describe, expect, it } from "vitest";
import {
  type APIAssistantMessage,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  query,
  type SDKMessage,
} from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";

/** A Model of our own, no AI SDK: answers from a list, and keeps every request it was sent. */
class ListModel implements Model {
  readonly id = "list/model-1";
  readonly provider = "list";
  readonly modelId = "model-1";
  readonly info = { input: 1, output: 2 };
  readonly api = "other" as const;
  readonly requests: ModelRequest[] = [];

  constructor(private readonly answers: APIAssistantMessage["content"][]) {}

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent, ModelResponse> {
    this.requests.push({ ...request, history: [...request.history] });
    const content = this.answers[this.requests.length - 1] ?? [{ type: "text", text: "out of answers" }];
    const toolUse = content.some((block) => block.type === "tool_use");
    const message: APIAssistantMessage = {
      id: `msg_${this.requests.length}`,
      type: "message",
      role: "assistant",
      model: this.modelId,
      content,
      stop_reason: toolUse ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    yield { type: "message_start", message: { ...message, content: [], stop_reason: null } };
    return { message, toolInputProblems: new Map() };
  }
}

describe("the Model interface", () => {
  it("runs the loop on a caller's own Model: our request in, our events and message out", async () => {
    const model = new ListModel([
      [{ type: "tool_use", id: "call_1", name: "calculator", input: { a: 6, b: 7, op: "*" } }],
      [{ type: "text", text: "42" }],
    ]);
    const messages: SDKMessage[] = [];
    const q = query({
      prompt: "6*7?",
      options: { model, tools: [calculator], persistSession: false, includePartialMessages: true },
    });
    for await (const message of q) messages.push(message);
    expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "42", num_turns: 2 });
    expect(messages.filter((m) => m.type === "stream_event")).toHaveLength(2);
    // The second request carries the tool's result, in our own history shape.
    expect(model.requests[1]?.history.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "call_1", content: "42" }],
    });
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(["calculator"]);
    // Costed at the model's own prices: 2 calls × (100 in × $1 + 10 out × $2) per million.
    expect(resultOf(messages).total_cost_usd).toBeCloseTo(0.00024, 10);
  });
});

describe("injected ids and clock", () => {
  it.each(FORMATS)("make two runs of the same script produce the same messages ($name)", async (format) => {
    const script = {
      turns: [mockTurn.toolUse("calculator", { a: 2, b: 3, op: "+" }), mockTurn.text("5")],
    };
    const runOnce = () =>
      withMock(script, async (server) => {
        let id = 0;
        let clock = 1_000;
        return runQuery(server, format, "2+3?", {
          tools: [calculator],
          sessionId: "replay",
          newUuid: () => `id-${++id}`,
          now: () => (clock += 5),
          env: mockEnv(server),
        });
      });
    const first = await runOnce();
    const second = await runOnce();
    expect(resultOf(first).result).toBe("5");
    // A call this fast sends only its start, no progress (whose timer is real time, not the injected clock).
    expect(second).toEqual(first);
    const uuids = first.map((m) => m.uuid);
    expect(uuids.every((uuid) => /^id-\d+$/.test(uuid ?? ""))).toBe(true);
    expect(new Set(uuids).size).toBe(uuids.length);
  });
});
