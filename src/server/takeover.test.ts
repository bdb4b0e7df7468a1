import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { OutputProjection } from "./output-projection.js";
import type { OutputItem } from "./response-object.js";
import { keptEvent, type NumberedEvent, type StreamEventBody } from "./stream-event.js";
import { resumeOutput } from "./takeover.js";

// A worker taking over a lost worker's run rebuilds the response's output from what the run
// committed to its session; the stream the lost worker left may lag behind it or run ahead.

const kindOf = (name: string) => ({ kind: name === "Read" ? ("builtin" as const) : ("function" as const) });

function takeOver(events: NumberedEvent[], committed: SDKMessage[]) {
  const emitted: StreamEventBody[] = [];
  let n = 0;
  const newId = (prefix: string) => `${prefix}_new${++n}`;
  const projection = new OutputProjection((event) => emitted.push(keptEvent(event)), newId, kindOf);
  resumeOutput(
    { events, continueRun: true, committed },
    projection,
    (e) => emitted.push(keptEvent(e)),
    kindOf,
    newId,
    new Set(),
  );
  return { output: projection.output, emitted, projection };
}

let sequence = 0;
function added(index: number, item: OutputItem): NumberedEvent {
  return { type: "response.output_item.added", output_index: index, item, sequence_number: sequence++ };
}
function done(index: number, item: OutputItem): NumberedEvent {
  return { type: "response.output_item.done", output_index: index, item, sequence_number: sequence++ };
}

const readCall: OutputItem = {
  type: "function_call",
  id: "fc_old",
  call_id: "toolu_1",
  name: "Read",
  arguments: '{"file_path":"/w/a"}',
  status: "completed",
};

function assistant(content: unknown[]): SDKMessage {
  return {
    type: "assistant",
    uuid: "u",
    session_id: "s",
    parent_tool_use_id: null,
    message: {
      id: "m",
      type: "message",
      role: "assistant",
      model: "x",
      content,
      stop_reason: null,
      stop_sequence: null,
      usage: {},
    },
  } as unknown as SDKMessage;
}
function results(id: string, text: string): SDKMessage {
  return {
    type: "user",
    uuid: "u",
    session_id: "s",
    parent_tool_use_id: null,
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] },
  } as SDKMessage;
}
const prompt = {
  type: "user",
  uuid: "p",
  session_id: "s",
  parent_tool_use_id: null,
  message: { role: "user", content: "go" },
} as SDKMessage;
const readTurn = assistant([{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/w/a" } }]);

describe("resumeOutput", () => {
  it("keeps the streamed items the session committed, and streams the committed ones the stream never carried", () => {
    // The lost worker's stream has the call, but not its output: the result was committed, its event never sent.
    const { output, emitted } = takeOver(
      [added(0, readCall), done(0, readCall)],
      [prompt, readTurn, results("toolu_1", "A")],
    );
    expect(output.map((item) => [item.type, item.id])).toEqual([
      ["function_call", "fc_old"],
      ["function_call_output", expect.stringMatching(/^fco_new/)],
    ]);
    expect(emitted.map((event) => [event.type, event.output_index])).toEqual([
      ["response.output_item.added", 1],
      ["response.output_item.done", 1],
    ]);
  });

  it("closes a cut item incomplete and leaves it out; a finished item never committed is left out too", () => {
    const text: OutputItem = { type: "message", id: "msg_cut", status: "in_progress", role: "assistant", content: [] };
    const uncommitted: OutputItem = { ...readCall, id: "fc_uncommitted", call_id: "toolu_9" };
    const { output, emitted } = takeOver(
      [added(0, readCall), done(0, readCall), added(1, uncommitted), done(1, uncommitted), added(2, text)],
      [prompt, readTurn],
    );
    expect(output.map((item) => item.id)).toEqual(["fc_old"]);
    expect(emitted).toEqual([
      { type: "response.output_item.done", output_index: 2, item: { ...text, status: "incomplete" } },
    ]);
  });

  it("waits for the result of a committed built-in call without one, and gives its output when it comes", () => {
    const { output, emitted, projection } = takeOver([added(0, readCall), done(0, readCall)], [prompt, readTurn]);
    expect(output).toHaveLength(1);
    expect(emitted).toEqual([]);
    // The call ran again (or was answered as interrupted) on the new worker: its output follows the call.
    projection.onToolResult({ type: "tool_result", tool_use_id: "toolu_1", content: "A" });
    expect(output.map((item) => item.type)).toEqual(["function_call", "function_call_output"]);
    expect(emitted.map((event) => [event.type, event.output_index])).toEqual([
      ["response.output_item.added", 1],
      ["response.output_item.done", 1],
    ]);
  });
});
