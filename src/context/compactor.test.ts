import { describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import type { Model, ModelRequest } from "../model/index.js";
import { type APIAssistantMessage, emptyUsage, type HistoryEntry } from "../protocol/index.js";
import { COMPACTION_PROMPT_MARKER } from "./compaction-prompt.js";
import { type CompactorOptions, SummaryCompactor } from "./compactor.js";
import { entry } from "./history-fixtures.js";
import { historyProblems } from "./history-validity.js";
import { PRUNED_OUTPUT_NOTE } from "./prune.js";

/** An in-process model that answers every call with `summary` and records the requests. */
function stubModel(summary: string | (() => string)) {
  const calls: ModelRequest[] = [];
  const resolved: Model = {
    id: "stub/stub",
    provider: "stub",
    modelId: "stub",
    info: undefined,
    api: "other",
    async *stream(request) {
      calls.push(request);
      const text = typeof summary === "string" ? summary : summary();
      const message: APIAssistantMessage = {
        id: "msg_stub",
        type: "message",
        role: "assistant",
        model: "stub",
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { ...emptyUsage(), input_tokens: 100, output_tokens: 20 },
      };
      yield { type: "message_start", message: { ...message, content: [] } };
      return { message, toolInputProblems: new Map() };
    },
  };
  return { resolved, calls };
}

function compactor(summary: string | (() => string), options: Partial<CompactorOptions> = {}) {
  const stub = stubModel(summary);
  return {
    compactor: new SummaryCompactor({ model: stub.resolved, thresholdTokens: 5_000, ...options }),
    calls: stub.calls,
  };
}

const kb = (tag: string, kilobytes: number) => `${tag}:${"y".repeat(kilobytes * 1024)}`;

function promptText(call: ModelRequest | undefined): string {
  return JSON.stringify([call?.system, call?.history]);
}

describe("Compactor token counting", () => {
  it("uses the last usage report and estimates only what came after it", () => {
    const { compactor: c } = compactor("s");
    const history = [
      entry.user("task"),
      entry.text("hello", {
        input_tokens: 1_000,
        cache_creation_input_tokens: 200,
        cache_read_input_tokens: 300,
        output_tokens: 50,
      }),
      entry.user("x".repeat(400)),
    ];
    expect(c.contextTokens(history)).toBe(1_550 + 100);
  });

  it("estimates chars/4 plus the system prompt when there is no report", () => {
    const { compactor: c } = compactor("s", { systemPrompt: "p".repeat(40) });
    expect(c.contextTokens([entry.user("u".repeat(400))])).toBe(100 + 10);
  });

  it("derives the default threshold from the context window", () => {
    const { resolved } = stubModel("s");
    expect(new SummaryCompactor({ model: resolved }).thresholdTokens).toBe(200_000 - 32_000 - 13_000);
    const small = new SummaryCompactor({
      model: { ...resolved, info: { input: 1, output: 1, contextWindow: 50_000, maxOutputTokens: 8_000 } },
    });
    expect(small.contextWindow).toBe(50_000);
    expect(small.thresholdTokens).toBe(50_000 - 8_000 - 5_000);
  });

  it("needs compaction above the threshold", () => {
    const { compactor: c } = compactor("s");
    expect(c.needsCompaction([entry.user("a"), entry.text("b", { input_tokens: 4_999 })])).toBe(false);
    expect(c.needsCompaction([entry.user("a"), entry.text("b", { input_tokens: 5_001 })])).toBe(true);
  });
});

describe("Compactor.compact", () => {
  it("prunes old tool outputs first and calls no model when that is enough", async () => {
    const { compactor: c, calls } = compactor("unused", { keepRecentTurns: 1, protectToolOutputTokens: 0 });
    const history: HistoryEntry[] = [
      entry.user("task"),
      ...entry.toolTurn("a", kb("a", 8)),
      ...entry.toolTurn("b", kb("b", 8), { input_tokens: 4_500 }),
      entry.text("done", { input_tokens: 5_200 }),
    ];
    const result = await c.compact(history, { trigger: "auto" });
    expect(calls).toHaveLength(0);
    expect(result.summary).toBeUndefined();
    expect(result.pruned).toBe(2);
    expect(result.preTokens).toBe(5_200);
    expect(result.postTokens).toBeLessThan(1_200);
    expect(JSON.stringify(result.history)).toContain(PRUNED_OUTPUT_NOTE);
    expect(historyProblems(result.history)).toEqual([]);
  });

  it("summarizes older turns, keeping the original task and the recent tail intact", async () => {
    const { compactor: c, calls } = compactor("SUMMARY TEXT", { keepRecentTurns: 2 });
    const history: HistoryEntry[] = [
      entry.user("the original task"),
      entry.text(kb("talk", 8)),
      entry.user("more"),
      ...entry.toolTurn("a", "small a"),
      ...entry.toolTurn("b", "small b"),
      entry.text("latest", { input_tokens: 6_000 }),
      entry.user("next question"),
    ];
    const result = await c.compact(history, { trigger: "auto", customInstructions: "Focus on the parser." });
    expect(calls).toHaveLength(1);
    const prompt = promptText(calls[0]);
    expect(prompt).toContain(COMPACTION_PROMPT_MARKER);
    expect(prompt).toContain("Focus on the parser.");
    expect(prompt).toContain("small a");
    expect(calls[0]?.tools).toEqual([]);
    expect(result.summary).toBe("SUMMARY TEXT");
    const [first, ...tail] = result.history;
    expect(first).toMatchObject({
      role: "user",
      content: [
        { type: "text", text: "the original task" },
        { type: "text", text: expect.stringContaining("SUMMARY TEXT") },
      ],
    });
    expect(tail).toEqual(history.slice(5));
    expect(tail[0]).toBe(history[5]);
    expect(result.preTokens).toBe(6_000 + 4); // "next question" is 13 chars: 4 estimated tokens
    expect(result.postTokens).toBeLessThan(500);
    expect(historyProblems(result.history)).toEqual([]);
  });

  it("does not ask for compaction again right after compacting (old usage reports are ignored)", async () => {
    const { compactor: c } = compactor("S", { keepRecentTurns: 1 });
    const history: HistoryEntry[] = [
      entry.user("task"),
      entry.text(kb("old", 4)),
      entry.user("go on"),
      entry.text("recent", { input_tokens: 9_000 }),
      entry.user("and now?"),
    ];
    expect(c.needsCompaction(history)).toBe(true);
    const result = await c.compact(history, { trigger: "auto" });
    expect(c.needsCompaction(result.history)).toBe(false);
    expect(c.contextTokens(result.history)).toBe(result.postTokens);
    // A fresh report after compaction counts again.
    const next = [...result.history, entry.text("answer", { input_tokens: 7_000 })];
    expect(c.contextTokens(next)).toBe(7_000);
  });

  it("drops the tail when keeping it does not fit, carrying a fresh user prompt over verbatim", async () => {
    const { compactor: c, calls } = compactor("S", { keepRecentTurns: 1, keepRecentTokens: 100_000 });
    const history: HistoryEntry[] = [
      entry.user("task"),
      entry.text("a"),
      entry.user("b"),
      entry.text(kb("huge", 40), { input_tokens: 12_000 }),
      entry.user("what next?"),
    ];
    const result = await c.compact(history, { trigger: "auto" });
    expect(calls).toHaveLength(2);
    expect(result.history).toHaveLength(1);
    const blocks = result.history[0]?.role === "user" ? result.history[0].content : [];
    expect(blocks).toEqual([
      { type: "text", text: "task" },
      { type: "text", text: expect.stringContaining("<summary>") },
      { type: "text", text: "what next?" },
    ]);
    expect(historyProblems(result.history)).toEqual([]);
  });

  it("fails with context_overflow after at most two summary calls", async () => {
    const { compactor: c, calls } = compactor(() => "z".repeat(40_000), { keepRecentTurns: 1 });
    const history: HistoryEntry[] = [
      entry.user("task"),
      ...entry.toolTurn("a", "out"),
      entry.text("b", { input_tokens: 9_000 }),
      entry.user("c"),
    ];
    const failure = await c.compact(history, { trigger: "auto" }).catch((error: unknown) => error);
    expect(isGyreError(failure, "context_overflow")).toBe(true);
    expect(calls).toHaveLength(2);
  });

  it("summarizes a manual compaction even when pruning would do", async () => {
    const { compactor: c, calls } = compactor("S", { keepRecentTurns: 1, protectToolOutputTokens: 0 });
    const history: HistoryEntry[] = [
      entry.user("task"),
      ...entry.toolTurn("a", kb("a", 8)),
      ...entry.toolTurn("b", "b"),
      entry.text("done", { input_tokens: 3_000 }),
    ];
    const result = await c.compact(history, { trigger: "manual" });
    expect(calls).toHaveLength(1);
    expect(result.trigger).toBe("manual");
    expect(result.summary).toBe("S");
    expect(historyProblems(result.history)).toEqual([]);
  });

  it("after a prompt-too-long rejection summarizes everything but the task", async () => {
    const { compactor: c, calls } = compactor("S");
    const history: HistoryEntry[] = [entry.user("task"), ...entry.toolTurn("a", "x"), ...entry.toolTurn("b", "y")];
    const result = await c.compact(history, { trigger: "auto", afterPromptTooLong: true });
    expect(calls).toHaveLength(1);
    expect(result.history).toHaveLength(1);
    expect(promptText(calls[0])).toContain("[Tool result from Read]");
  });

  it("passes an abort on as an aborted GyreError", async () => {
    const controller = new AbortController();
    const { compactor: c } = compactor(() => {
      controller.abort();
      throw new Error("cancelled");
    });
    const history: HistoryEntry[] = [entry.user("task"), entry.text("a"), entry.user("b")];
    const failure = await c.compact(history, { trigger: "manual", signal: controller.signal }).catch((e: unknown) => e);
    expect(isGyreError(failure, "aborted")).toBe(true);
  });

  it("always returns a valid history, whatever the shape and the tail size", async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 60; round++) {
      const history: HistoryEntry[] = [entry.user("task")];
      const turns = 1 + Math.floor(random() * 8);
      for (let turn = 0; turn < turns; turn++) {
        const calls = Math.floor(random() * 3);
        if (calls === 0) {
          history.push(entry.text(kb(`t${turn}`, Math.floor(random() * 6))), entry.user(`u${turn}`));
          continue;
        }
        const ids = Array.from({ length: calls }, (_, k) => `c${turn}_${k}`);
        history.push(entry.assistant(ids.map((id) => ({ type: "tool_use" as const, id, name: "Read", input: {} }))), {
          role: "user",
          content: ids.map((id) => ({
            type: "tool_result" as const,
            tool_use_id: id,
            content: kb(id, Math.floor(random() * 6)),
          })),
        });
      }
      const { compactor: c } = compactor("S", {
        keepRecentTurns: Math.floor(random() * 4),
        keepRecentTokens: Math.floor(random() * 3_000),
        protectToolOutputTokens: Math.floor(random() * 2_000),
        thresholdTokens: 100_000,
      });
      const trigger = random() < 0.5 ? "auto" : "manual";
      const result = await c.compact(history, { trigger });
      expect(historyProblems(result.history), `round ${round}`).toEqual([]);
      expect(result.history[0]).toMatchObject({ role: "user" });
    }
  });
});
