import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { transcript } from "./session-transcript.js";

function result(totalCostUsd: number, unpricedModels?: string[]): SDKMessage {
  return {
    type: "result",
    subtype: "success",
    uuid: "u",
    session_id: "s",
    is_error: false,
    num_turns: 2,
    duration_ms: 1,
    duration_api_ms: 1,
    total_cost_usd: totalCostUsd,
    ...(unpricedModels && { unpriced_models: unpricedModels }),
    usage: {} as never,
    modelUsage: {},
    result: "ok",
    stop_reason: "end_turn",
    permission_denials: [],
    terminal_reason: "completed",
  };
}

describe("a stored run's result line", () => {
  it("shows the cost, and never a cost of $0 for tokens that had no price", () => {
    expect(transcript([result(0.0123)], false)).toEqual(["-- success (2 turns, $0.0123)"]);
    expect(transcript([result(0, ["ollama/llama3"])], false)).toEqual([
      "-- success (2 turns, cost unknown: no price for ollama/llama3)",
    ]);
    expect(transcript([result(0.5, ["azure/d"])], false)).toEqual([
      "-- success (2 turns, $0.5000 + unknown for azure/d)",
    ]);
  });
});

describe("a stored handoff", () => {
  it("is a line naming both agents and the model the run went on with", () => {
    const handoff: SDKMessage = {
      type: "system",
      subtype: "handoff",
      uuid: "u",
      session_id: "s",
      from: "triage",
      to: "billing",
      tool_use_id: "call_1",
      model: "openai/gpt-5-mini",
      parent_tool_use_id: null,
    };
    expect(transcript([handoff], false)).toEqual(["-- handoff: triage → billing (openai/gpt-5-mini)"]);
  });
});

describe("a transcript with subagents", () => {
  const call: SDKMessage = {
    type: "assistant",
    uuid: "a",
    session_id: "s",
    parent_tool_use_id: null,
    message: {
      id: "m",
      type: "message",
      role: "assistant",
      model: "x",
      content: [{ type: "tool_use", id: "call_1", name: "Agent", input: { description: "look" } }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: {} as never,
    },
  } as SDKMessage;
  const answer = (parent: string | null, text: string): SDKMessage => ({
    type: "user",
    uuid: text,
    session_id: "s",
    parent_tool_use_id: parent,
    message: { role: "user", content: [{ type: "text", text }] },
  });

  it("nests lines under the call that started them; lines whose call is missing come last", () => {
    const nested = new Map([
      ["call_1", ["↳ subagent c1", "> look"]],
      ["call_9", ["↳ subagent c9"]],
    ]);
    expect(transcript([call, answer(null, "thanks")], false, nested)).toEqual([
      '  [Agent] {"description":"look"}',
      "    ↳ subagent c1",
      "    > look",
      "> thanks",
      "    ↳ subagent c9",
    ]);
  });

  it("indents a subagent's messages stored inline by earlier versions", () => {
    expect(transcript([call, answer("call_1", "inline")], false)).toEqual([
      '  [Agent] {"description":"look"}',
      "    > inline",
    ]);
  });
});

describe("a stored call without a result", () => {
  const at = (uuid: string) => ({ uuid, session_id: "s" });
  const init = (uuid: string): SDKMessage =>
    ({ ...at(uuid), type: "system", subtype: "init", model: "x" }) as unknown as SDKMessage;
  const calls = (ids: string[]): SDKMessage =>
    ({
      ...at("a"),
      type: "assistant",
      parent_tool_use_id: null,
      message: {
        id: "m",
        type: "message",
        role: "assistant",
        model: "x",
        content: ids.map((id) => ({ type: "tool_use", id, name: "Bash", input: { command: id } })),
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: {},
      },
    }) as unknown as SDKMessage;
  const started = (id: string): SDKMessage => ({
    ...at(`p-${id}`),
    type: "tool_progress",
    tool_use_id: id,
    tool_name: "Bash",
    parent_tool_use_id: null,
    elapsed_time_seconds: 0,
  });

  it("is marked running once it started, and interrupted when a later run found it open", () => {
    const running = transcript([init("i1"), calls(["sleep", "ls"]), started("sleep")], false);
    expect(running).toEqual(['  [Bash] {"command":"sleep"}  (running)', '  [Bash] {"command":"ls"}']);
    const resumed = transcript([init("i1"), calls(["sleep"]), started("sleep"), init("i2")], false);
    expect(resumed).toEqual(['  [Bash] {"command":"sleep"}  (interrupted)']);
  });
});
