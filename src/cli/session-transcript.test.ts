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
