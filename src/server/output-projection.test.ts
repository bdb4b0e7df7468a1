import { describe, expect, it } from "vitest";
import { OutputProjection } from "./output-projection.js";
import { keptEvent, type StreamEventBody } from "./stream-event.js";

function projection(clientTools: string[] = ["f"]) {
  const events: StreamEventBody[] = [];
  let n = 0;
  const output = new OutputProjection(
    (event) => events.push(keptEvent(event)),
    (prefix) => `${prefix}_${++n}`,
    (name) => ({ kind: clientTools.includes(name) ? "function" : "refused" }),
  );
  return { output, events };
}

const start = { type: "message_start", message: {} } as never;

describe("OutputProjection", () => {
  it("turns text, thinking and a client call into items with their events, in order", () => {
    const { output, events } = projection();
    output.onEvent(start);
    output.onEvent({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } });
    output.onEvent({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "hm" } });
    output.onEvent({ type: "content_block_stop", index: 0 });
    output.onEvent({ type: "content_block_start", index: 1, content_block: { type: "text", text: "" } });
    output.onEvent({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hi " } });
    output.onEvent({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "there" } });
    output.onEvent({ type: "content_block_stop", index: 1 });
    output.onEvent({
      type: "content_block_start",
      index: 2,
      content_block: { type: "tool_use", id: "call_1", name: "f", input: {} },
    });
    output.onEvent({
      type: "content_block_delta",
      index: 2,
      delta: { type: "input_json_delta", partial_json: '{"a":' },
    });
    output.onEvent({ type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: "1}" } });
    output.onEvent({ type: "content_block_stop", index: 2 });
    output.finish();
    expect(output.output).toEqual([
      {
        type: "reasoning",
        id: "rs_1",
        summary: [],
        content: [{ type: "reasoning_text", text: "hm" }],
        status: "completed",
      },
      {
        type: "message",
        id: "msg_2",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: "Hi there", annotations: [], logprobs: [] }],
      },
      { type: "function_call", id: "fc_3", call_id: "call_1", name: "f", arguments: '{"a":1}', status: "completed" },
    ]);
    expect(events.map((event) => `${event.type}@${String(event.output_index)}`)).toEqual([
      "response.output_item.added@0",
      "response.reasoning.delta@0",
      "response.reasoning.done@0",
      "response.output_item.done@0",
      "response.output_item.added@1",
      "response.content_part.added@1",
      "response.output_text.delta@1",
      "response.output_text.delta@1",
      "response.output_text.done@1",
      "response.content_part.done@1",
      "response.output_item.done@1",
      "response.output_item.added@2",
      "response.function_call_arguments.delta@2",
      "response.function_call_arguments.delta@2",
      "response.function_call_arguments.done@2",
      "response.output_item.done@2",
    ]);
    // An added event carries the item as it was then, not as it ended.
    expect(events[4]).toMatchObject({ item: { status: "in_progress", content: [] } });
  });

  it("leaves out calls of tools that are not the client's, and closes a cut-off item as incomplete", () => {
    const { output, events } = projection([]);
    output.onEvent(start);
    output.onEvent({
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "call_x", name: "Bash", input: {} },
    });
    output.onEvent({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{}" } });
    output.onEvent({ type: "content_block_stop", index: 0 });
    output.onEvent({ type: "content_block_start", index: 1, content_block: { type: "text", text: "" } });
    output.onEvent({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "cut" } });
    // A retried call starts over: what was open ends incomplete.
    output.onEvent(start);
    expect(output.output).toMatchObject([{ type: "message", status: "incomplete", content: [{ text: "cut" }] }]);
    expect(events.some((event) => JSON.stringify(event).includes("call_x"))).toBe(false);
  });
});
