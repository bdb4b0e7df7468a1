import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { wireProblems } from "./compaction-wire.js";
import { FORMATS, resultOf, runQuery, withMock } from "./helpers.js";

const anthropic = FORMATS[0];

type WireMessage = { role: string; content: Array<Record<string, unknown>> };

function assistantTexts(messages: SDKMessage[]): string[] {
  return messages.flatMap((m) =>
    m.type === "assistant" ? m.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])) : [],
  );
}

describe("Anthropic's pause_turn (issue 32, row 7)", () => {
  it("sends the paused answer back as it is, with no user message added, and the run goes on", async () => {
    // Sequential: the paused answers go back as one assistant turn, which history mode counts once.
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.text("Searching the web for it.", { stopReason: "pause_turn" as const }),
        mockTurn.text("Still searching.", { stopReason: "pause_turn" as const }),
        mockTurn.text("Here is the answer."),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "Find it", { tools: [] });
      expect(resultOf(messages)).toMatchObject({
        subtype: "success",
        terminal_reason: "completed",
        result: "Here is the answer.",
        num_turns: 3,
      });
      expect(server.requests).toHaveLength(3);
      expect(assistantTexts(messages)).toEqual([
        "Searching the web for it.",
        "Still searching.",
        "Here is the answer.",
      ]);
      // No user message between the paused answers: only the prompt is the user's.
      expect(messages.filter((m) => m.type === "user")).toHaveLength(0);

      const second = server.requests[1]?.body.messages as WireMessage[];
      expect(second.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(second[1]?.content).toEqual([
        expect.objectContaining({ type: "text", text: "Searching the web for it." }),
      ]);
      // The paused answers go back as one assistant turn, as Anthropic continues it.
      const third = server.requests[2]?.body.messages as WireMessage[];
      expect(third.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(third[1]?.content.map((b) => b.text)).toEqual(["Searching the web for it.", "Still searching."]);
      for (const request of server.requests) expect(wireProblems("anthropic", request.body)).toEqual([]);
    });
  });

  it("continues a paused turn before any loop-control reminder", async () => {
    const script = {
      turns: [
        mockTurn.text("Working on it.", { stopReason: "pause_turn" as const }),
        mockTurn.toolUse("task_completion", { result: "done" }),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "Do it", { tools: [], loopControlTools: true });
      expect(messages.some((m) => m.type === "system" && m.subtype === "no_tool_call")).toBe(false);
      expect(server.requests).toHaveLength(2);
      const second = server.requests[1]?.body.messages as WireMessage[];
      expect(second.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(resultOf(messages).num_turns).toBe(2);
    });
  });

  it("is bounded by maxTurns", async () => {
    const paused = mockTurn.text("Paused.", { stopReason: "pause_turn" as const });
    await withMock({ mode: "sequential", turns: [paused, paused, paused, paused] }, async (server) => {
      const messages = await runQuery(server, anthropic, "Go", { tools: [], maxTurns: 2 });
      expect(resultOf(messages)).toMatchObject({ subtype: "error_max_turns" });
      expect(server.requests).toHaveLength(2);
    });
  });
});
