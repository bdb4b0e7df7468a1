import { describe, expect, it } from "vitest";
import {
  type Model,
  ModelCallError,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
} from "../../model/index.js";
import { type APIAssistantMessage, emptyUsage, type SDKMessage } from "../../protocol/index.js";
import { MessageStamp } from "../messages.js";
import { type ModelStepInput, type ModelStepOutcome, modelStep } from "./model-call.js";

function message(text: string, id = "msg_1"): APIAssistantMessage {
  return {
    id,
    type: "message",
    role: "assistant",
    model: "m",
    content: [{ type: "text", text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: emptyUsage(),
  };
}

/** A model whose calls each stream one event, then answer or fail as scripted. */
function scriptedModel(script: Array<string | Error>) {
  const requests: ModelRequest[] = [];
  const model: Model = {
    id: "fake/m",
    provider: "fake",
    modelId: "m",
    info: undefined,
    api: "other",
    async *stream(request): AsyncGenerator<ModelStreamEvent, ModelResponse> {
      requests.push(request);
      const step = script[requests.length - 1] ?? new Error("script ended");
      yield { type: "message_start", message: message("", request.messageId) };
      if (step instanceof Error) throw step;
      return { message: message(step, request.messageId), toolInputProblems: new Map() };
    },
  };
  return { model, requests };
}

async function run(input: Partial<ModelStepInput> & { model: Model }) {
  const messages: SDKMessage[] = [];
  const step = modelStep({
    request: { history: [{ role: "user", content: "hi" }], tools: [] },
    signal: new AbortController().signal,
    retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 },
    includePartialMessages: false,
    stamp: new MessageStamp("s"),
    ...input,
  });
  for (;;) {
    const next = await step.next();
    if (next.done) return { messages, outcome: next.value as ModelStepOutcome };
    messages.push(next.value);
  }
}

const overloaded = () =>
  new ModelCallError("model_overloaded", "HTTP 529: Overloaded", { retryable: true, statusCode: 529 });

describe("modelStep", () => {
  it("forwards the model's events as stream_event messages only when asked", async () => {
    const quiet = await run({ model: scriptedModel(["a"]).model });
    expect(quiet.messages).toEqual([]);
    const loud = await run({ model: scriptedModel(["a"]).model, includePartialMessages: true });
    expect(loud.messages).toMatchObject([{ type: "stream_event", event: { type: "message_start" } }]);
    expect(loud.outcome).toMatchObject({ kind: "message", message: { content: [{ text: "a" }] } });
  });

  it("retries a retryable failure with an api_retry message, with a fresh id per attempt", async () => {
    const { model, requests } = scriptedModel([overloaded(), "made it"]);
    let ids = 0;
    const { messages, outcome } = await run({ model, newId: () => `msg_${++ids}` });
    expect(messages).toMatchObject([{ type: "system", subtype: "api_retry", attempt: 1, error_status: 529 }]);
    expect(outcome).toMatchObject({ kind: "message", message: { id: "msg_2" } });
    expect(requests.map((request) => request.messageId)).toEqual(["msg_1", "msg_2"]);
  });

  it("fails for good on a non-retryable error or after the retries, with the partial message", async () => {
    const partial = message("half");
    const rejected = new ModelCallError("model_bad_request", "HTTP 400: bad", { statusCode: 400, partial });
    const once = await run({ model: scriptedModel([rejected]).model });
    expect(once.outcome).toMatchObject({ kind: "failed", error: { code: "model_bad_request" }, partial });
    const tired = await run({ model: scriptedModel([overloaded(), overloaded(), overloaded()]).model });
    expect(tired.messages).toHaveLength(2);
    expect(tired.outcome).toMatchObject({ kind: "failed", error: { code: "model_overloaded" } });
  });

  it("classifies what a model throws unclassified", async () => {
    const { outcome } = await run({ model: scriptedModel([new Error("boom")]).model });
    expect(outcome).toMatchObject({ kind: "failed", error: { code: "model_error", message: "boom" } });
  });

  it("is aborted when the signal fires, keeping the partial message", async () => {
    const controller = new AbortController();
    const partial = message("half");
    const model: Model = {
      ...scriptedModel([]).model,
      async *stream() {
        yield { type: "message_start", message: partial };
        controller.abort();
        throw new ModelCallError("aborted", "interrupted", { partial });
      },
    };
    const { outcome } = await run({ model, signal: controller.signal });
    expect(outcome).toMatchObject({ kind: "aborted", partial });
  });
});
