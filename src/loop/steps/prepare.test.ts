import { describe, expect, it } from "vitest";
import type { CompactionResult, CompactOptions, Compactor } from "../../context/index.js";
import type { HookCallbackResult } from "../../hooks/index.js";
import type { SDKMessage } from "../../protocol/index.js";
import { drain, type Harness, type HarnessOptions, harness, modelAnswered, text } from "../loop.test-harness.js";
import type { HistoryEntry } from "../../protocol/index.js";
import { interruptReason } from "../next-step.js";
import { prepareStep } from "./prepare.js";

// Before each model call: limits in order (abort, budget, turns), then compaction when it was
// asked for or is due. The compactor is a fake that says whether it is due and what it makes.

const SUMMARY: HistoryEntry[] = [{ role: "user", content: "summary of the conversation" }];

interface FakeCompactor {
  compactor: Compactor;
  calls: Array<{ history: HistoryEntry[]; options: CompactOptions }>;
}

function fakeCompactor(due: boolean, outcome: Partial<CompactionResult> | Error = {}): FakeCompactor {
  const calls: FakeCompactor["calls"] = [];
  const fake: Pick<Compactor, "needsCompaction" | "compact"> = {
    needsCompaction: () => due,
    compact: async (history, options) => {
      calls.push({ history: [...history], options });
      if (outcome instanceof Error) throw outcome;
      return { history: SUMMARY, trigger: options.trigger, preTokens: 9000, postTokens: 100, pruned: 0, ...outcome };
    },
  };
  return { compactor: fake as Compactor, calls };
}

async function prepare(h: Harness) {
  return drain(prepareStep(h.context, h.state));
}

function types(messages: SDKMessage[]): string[] {
  return messages.map((message) => (message.type === "system" ? message.subtype : message.type));
}

describe("prepareStep: limits", () => {
  it("goes on when nothing is in the way", async () => {
    const h = harness();
    modelAnswered(h, [text("earlier")]);
    const { messages, value } = await prepare(h);
    expect(value).toEqual({ next: "continue" });
    expect(messages).toEqual([]);
  });

  it("stops as aborted when the caller aborted the run, as interrupted when interrupt() did", async () => {
    const h = harness();
    h.controller.abort();
    expect((await prepare(h)).value).toEqual({
      next: "stop",
      reason: "aborted",
      errors: ["The run was aborted."],
    });
    const interrupted = harness();
    interrupted.controller.abort(interruptReason());
    expect((await prepare(interrupted)).value).toEqual({
      next: "stop",
      reason: "interrupted",
      errors: ["The run was interrupted."],
    });
  });

  it("stops as max_budget once the cost reaches the budget exactly", async () => {
    const h = harness();
    modelAnswered(h, [text("costly")]);
    const spent = h.state.costs.totalCostUsd;
    expect(spent).toBeGreaterThan(0);
    const at = harness({ limits: { maxBudgetUsd: spent } });
    modelAnswered(at, [text("costly")]);
    expect((await prepare(at)).value).toEqual({
      next: "stop",
      reason: "max_budget",
      errors: [`Reached the budget of $${spent} (spent $${spent}).`],
    });
    const under = harness({ limits: { maxBudgetUsd: spent + 0.0001 } });
    modelAnswered(under, [text("costly")]);
    expect((await prepare(under)).value).toEqual({ next: "continue" });
  });

  it("stops as max_turns once the turns reach the limit", async () => {
    const h = harness({ limits: { maxTurns: 2 } });
    h.state.turns = 1;
    expect((await prepare(h)).value).toEqual({ next: "continue" });
    h.state.turns = 2;
    expect((await prepare(h)).value).toEqual({
      next: "stop",
      reason: "max_turns",
      errors: ["Reached the maximum of 2 turns."],
    });
  });

  it("checks abort before the budget, and the budget before the turns", async () => {
    const h = harness({ limits: { maxTurns: 1, maxBudgetUsd: 0 } });
    h.state.turns = 1;
    expect((await prepare(h)).value).toMatchObject({ reason: "max_budget" });
    h.controller.abort();
    expect((await prepare(h)).value).toMatchObject({ reason: "aborted" });
  });

  it("does not compact when a limit stops the run", async () => {
    const fake = fakeCompactor(true);
    const h = harness({ compactor: fake.compactor, limits: { maxTurns: 0 } });
    expect((await prepare(h)).value).toMatchObject({ reason: "max_turns" });
    expect(fake.calls).toEqual([]);
  });
});

describe("prepareStep: compaction", () => {
  function withCompactor(fake: FakeCompactor, options: HarnessOptions = {}) {
    const h = harness({ compactor: fake.compactor, ...options });
    modelAnswered(h, [text("a long answer")]);
    h.state.history.push({ role: "user", content: "next" });
    return h;
  }

  it("does nothing when compaction is not due and was not asked for", async () => {
    const fake = fakeCompactor(false);
    const h = withCompactor(fake);
    const history = h.state.history;
    const { messages, value } = await prepare(h);
    expect(value).toEqual({ next: "continue" });
    expect(messages).toEqual([]);
    expect(fake.calls).toEqual([]);
    expect(h.state.history).toBe(history);
  });

  it("compacts automatically when due, adopting the compacted history and reporting it", async () => {
    const fake = fakeCompactor(true);
    const h = withCompactor(fake);
    const before = [...h.state.history];
    const { messages, value } = await prepare(h);
    expect(value).toEqual({ next: "continue" });
    expect(fake.calls).toEqual([{ history: before, options: expect.objectContaining({ trigger: "auto" }) }]);
    expect(fake.calls[0]?.options.customInstructions).toBeUndefined();
    expect(h.state.history).toEqual(SUMMARY);
    expect(types(messages)).toEqual(["compact_boundary", "user"]);
    expect(messages[0]).toMatchObject({ compact_metadata: { trigger: "auto", pre_tokens: 9000, post_tokens: 100 } });
    expect(messages[1]).toMatchObject({ isSynthetic: true, message: { content: "summary of the conversation" } });
  });

  it("runs a compaction that was asked for, once, with its instructions, even when not due", async () => {
    const fake = fakeCompactor(false);
    const h = withCompactor(fake);
    h.state.compactRequest = { instructions: "keep the file names" };
    expect((await prepare(h)).value).toEqual({ next: "continue" });
    expect(fake.calls.map((call) => call.options)).toEqual([
      expect.objectContaining({ trigger: "manual", customInstructions: "keep the file names" }),
    ]);
    expect(h.state.compactRequest).toBeUndefined();
    await prepare(h);
    expect(fake.calls).toHaveLength(1);
  });

  it("drops a request when compaction is off", async () => {
    const h = harness();
    h.state.compactRequest = {};
    const { messages, value } = await prepare(h);
    expect(value).toEqual({ next: "continue" });
    expect(messages).toEqual([]);
    expect(h.state.compactRequest).toBeUndefined();
  });

  it("stops as context_overflow when compaction fails, keeping the history", async () => {
    const fake = fakeCompactor(true, new Error("still too long after two summaries"));
    const h = withCompactor(fake);
    const before = [...h.state.history];
    const { messages, value } = await prepare(h);
    expect(value).toEqual({
      next: "stop",
      reason: "context_overflow",
      errors: ["still too long after two summaries"],
    });
    expect(messages).toEqual([]);
    expect(h.state.history).toEqual(before);
  });

  it("stops as interrupted when compaction fails because the run was interrupted", async () => {
    const fake = fakeCompactor(true);
    const h = withCompactor(fake);
    fake.compactor.compact = async () => {
      h.controller.abort(interruptReason());
      throw new Error("aborted");
    };
    expect((await prepare(h)).value).toEqual({
      next: "stop",
      reason: "interrupted",
      errors: ["The run was interrupted."],
    });
  });

  it("counts what the summary cost", async () => {
    const fake = fakeCompactor(true, {
      summaryUsage: {
        input_tokens: 1000,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
    const h = withCompactor(fake);
    const spent = h.state.costs.totalCostUsd;
    await prepare(h);
    expect(h.state.costs.totalCostUsd).toBeGreaterThan(spent);
  });

  it("runs PreCompact and PostCompact hooks around a compaction, reporting what they say", async () => {
    const seen: Array<{ event: string; input: unknown }> = [];
    const hook =
      (event: string) =>
      async (input: unknown): Promise<HookCallbackResult> => {
        seen.push({ event, input });
        return { systemMessage: `${event} ran` };
      };
    const fake = fakeCompactor(false, { summary: "the summary" });
    const h = withCompactor(fake, {
      hooks: { PreCompact: [{ hooks: [hook("PreCompact")] }], PostCompact: [{ hooks: [hook("PostCompact")] }] },
    });
    h.state.compactRequest = { instructions: "focus" };
    const { messages } = await prepare(h);
    expect(seen).toEqual([
      { event: "PreCompact", input: expect.objectContaining({ trigger: "manual", custom_instructions: "focus" }) },
      { event: "PostCompact", input: expect.objectContaining({ trigger: "manual", compact_summary: "the summary" }) },
    ]);
    expect(types(messages)).toEqual(["hook_response", "compact_boundary", "user", "hook_response"]);
  });
});
