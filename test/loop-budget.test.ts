import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type Query, query, type RunBudget, type SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, mockEnv, resultOf, withMock } from "./helpers.js";

const [anthropic] = FORMATS;

async function collect(run: Query): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of run) messages.push(message);
  return messages;
}

/** What the run's answers cost, as their assistant messages say. */
function answersCost(messages: SDKMessage[]): number {
  return messages.reduce((sum, m) => sum + (m.type === "assistant" ? (m.cost_usd ?? 0) : 0), 0);
}

describe("Query.budget (issue 32, row 6)", () => {
  it("tells what is left of maxBudgetUsd and maxBudgetTokens before, during and after the run", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("probe", {}, { usage: { input_tokens: 1000, output_tokens: 20 } }),
        mockTurn.text("Done.", { usage: { input_tokens: 2000, output_tokens: 30 } }),
      ],
    };
    await withMock(script, async (server) => {
      const seen: RunBudget[] = [];
      const probe = defineTool({
        name: "probe",
        description: "reads the budget",
        inputSchema: z.object({}),
        readOnly: true,
        execute: () => {
          seen.push(run.budget);
          return "ok";
        },
      });
      const run: Query = query({
        prompt: "Go",
        options: {
          model: anthropic.model,
          env: mockEnv(server),
          persistSession: false,
          tools: [probe],
          maxBudgetUsd: 1,
          maxBudgetTokens: 100_000,
        },
      });
      expect(run.budget).toEqual({
        maxBudgetUsd: 1,
        spentUsd: 0,
        remainingUsd: 1,
        maxBudgetTokens: 100_000,
        usedTokens: 0,
        remainingTokens: 100_000,
      });
      const messages = await collect(run);
      const firstCost = messages.find((m) => m.type === "assistant")?.cost_usd ?? 0;
      expect(firstCost).toBeGreaterThan(0);
      // Inside the tool, after the first model call: that call's spend, and the rest.
      expect(seen).toEqual([
        {
          maxBudgetUsd: 1,
          spentUsd: firstCost,
          remainingUsd: expect.closeTo(1 - firstCost, 12),
          maxBudgetTokens: 100_000,
          usedTokens: 1020,
          remainingTokens: 98_980,
        },
      ]);
      const result = resultOf(messages);
      expect(run.budget).toMatchObject({ spentUsd: result.total_cost_usd, usedTokens: 3050, remainingTokens: 96_950 });
      expect(run.budget.remainingUsd).toBeCloseTo(1 - result.total_cost_usd, 12);
    });
  });

  it("has nothing left to say of a limit that is not set", async () => {
    await withMock({ turns: [mockTurn.text("Hi.")] }, async (server) => {
      const run = query({
        prompt: "Hi",
        options: { model: anthropic.model, env: mockEnv(server), persistSession: false },
      });
      await collect(run);
      expect(run.budget.remainingUsd).toBeUndefined();
      expect(run.budget.remainingTokens).toBeUndefined();
      expect(run.budget.usedTokens).toBeGreaterThan(0);
    });
  });
});

describe("compaction's own cost (issue 32, row 6)", () => {
  it("is counted in the totals and the budget, and shown apart as compaction_cost_usd", async () => {
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.toolUse("calculator", { a: 1, b: 2, op: "+" }),
        mockTurn.toolUse(
          "calculator",
          { a: 3, b: 4, op: "+" },
          { usage: { input_tokens: 150_000, output_tokens: 1_000 } },
        ),
        // The summary call.
        mockTurn.text("Summary: 1+2=3 and 3+4=7.", { usage: { input_tokens: 5_000, output_tokens: 200 } }),
        mockTurn.text("All sums done."),
      ],
    };
    await withMock(script, async (server) => {
      const run = query({
        prompt: "Add some numbers",
        options: {
          model: anthropic.model,
          env: mockEnv(server),
          persistSession: false,
          tools: [calculator],
          maxBudgetTokens: 1_000_000,
          compaction: { thresholdTokens: 100_000, keepRecentTurns: 1 },
        },
      });
      const messages = await collect(run);
      const result = resultOf(messages);
      expect(messages.some((m) => m.type === "system" && m.subtype === "compact_boundary")).toBe(true);
      const compaction = result.compaction_cost_usd ?? 0;
      expect(compaction).toBeGreaterThan(0);
      // The summary call has no assistant message: what the answers cost leaves it out, the total has it.
      expect(result.total_cost_usd).toBeCloseTo(answersCost(messages) + compaction, 12);
      expect(result.modelUsage[anthropic.model]?.costUSD).toBeCloseTo(result.total_cost_usd, 12);
      expect(run.budget.spentUsd).toBe(result.total_cost_usd);
      expect(run.budget.usedTokens).toBe(
        result.usage.input_tokens +
          result.usage.output_tokens +
          result.usage.cache_read_input_tokens +
          result.usage.cache_creation_input_tokens,
      );
    });
  });

  it("is absent when the run never compacted", async () => {
    await withMock({ turns: [mockTurn.text("Hi.")] }, async (server) => {
      const run = query({
        prompt: "Hi",
        options: { model: anthropic.model, env: mockEnv(server), persistSession: false },
      });
      expect(resultOf(await collect(run)).compaction_cost_usd).toBeUndefined();
    });
  });
});
