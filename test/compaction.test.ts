import { describe, expect, it } from "vitest";
import {
  COMPACTION_PROMPT_MARKER,
  COMPACTION_SYSTEM_PROMPT,
  SummaryCompactor,
  historyProblems,
} from "../src/context/index.js";
import { isGyreError } from "../src/errors/index.js";
import { type Model, resolveModel, responseOf } from "../src/model/index.js";
import type { HistoryEntry, SDKMessage } from "../src/protocol/index.js";
import { type MockLLMServer, type MockTurn, mockFault, mockTurn } from "../src/testing/index.js";
import { wireProblems } from "./compaction-wire.js";
import { calculator, FORMATS, type Format, mockEnv, runQuery, withMock } from "./helpers.js";

const TASK = "Add up the numbers with the calculator.";
const SYSTEM = "You are a test agent.";

/** A run of three tool calls whose usage reports climb past the threshold. */
function agentTurns(): MockTurn[] {
  return [
    mockTurn.toolUse("calculator", { a: 1, b: 2, op: "+" }, { usage: { input_tokens: 40_000, output_tokens: 50 } }),
    mockTurn.toolUse("calculator", { a: 3, b: 4, op: "+" }, { usage: { input_tokens: 80_000, output_tokens: 50 } }),
    mockTurn.toolUse("calculator", { a: 5, b: 6, op: "+" }, { usage: { input_tokens: 120_000, output_tokens: 50 } }),
    mockTurn.text("The sums are 3, 7 and 11.", { usage: { input_tokens: 150_000, output_tokens: 500 } }),
  ];
}

/** The loop's history rebuilt from its messages: the prompt, then each assistant and user turn. */
function historyOf(messages: SDKMessage[]): HistoryEntry[] {
  const history: HistoryEntry[] = [{ role: "user", content: TASK }];
  for (const message of messages) {
    if (message.type === "assistant") history.push({ role: "assistant", message: message.message });
    if (message.type === "user") history.push({ role: "user", content: message.message.content });
  }
  return history;
}

async function runAgent(server: MockLLMServer, format: Format) {
  // The loop's own compaction stays off: these tests drive the Compactor directly.
  const messages = await runQuery(server, format, TASK, {
    tools: [calculator],
    systemPrompt: SYSTEM,
    compaction: false,
  });
  const model = await resolveModel(format.model, { env: mockEnv(server) });
  return { history: historyOf(messages), model };
}

async function send(model: Model, history: HistoryEntry[]) {
  const { message } = await responseOf(
    model.stream({ system: SYSTEM, history, tools: [], signal: new AbortController().signal }),
  );
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

describe.each(FORMATS)("compaction over $name", (format) => {
  it("summarizes with the same model and the compacted history is accepted by the provider", async () => {
    const script = {
      mode: "sequential" as const,
      turns: [...agentTurns(), mockTurn.text("SUMMARY: three sums computed."), mockTurn.text("Continuing.")],
    };
    await withMock(script, async (server) => {
      const { history, model } = await runAgent(server, format);
      expect(history).toHaveLength(8);
      const compactor = new SummaryCompactor({
        model,
        thresholdTokens: 100_000,
        keepRecentTurns: 1,
        systemPrompt: SYSTEM,
      });
      expect(compactor.contextTokens(history)).toBe(150_500);
      expect(compactor.needsCompaction(history)).toBe(true);

      const result = await compactor.compact(history, {
        trigger: "auto",
        customInstructions: "Mention every sum.",
      });

      const summaryRequest = server.requests[4];
      const body = JSON.stringify(summaryRequest?.body);
      expect(body).toContain(COMPACTION_PROMPT_MARKER);
      expect(body).toContain(COMPACTION_SYSTEM_PROMPT);
      expect(body).toContain("Mention every sum.");
      expect(body).toContain("[Tool call calculator]");
      expect(summaryRequest?.body.tools).toBeUndefined();

      expect(result).toMatchObject({
        trigger: "auto",
        preTokens: 150_500,
        summary: "SUMMARY: three sums computed.",
      });
      expect(result.postTokens).toBeLessThan(1_000);
      expect(result.history.length).toBeLessThan(history.length);
      expect(result.history.at(-1)).toBe(history.at(-1));
      expect(historyProblems(result.history)).toEqual([]);
      expect(compactor.needsCompaction(result.history)).toBe(false);

      expect(await send(model, result.history)).toBe("Continuing.");
      const resent = server.requests[5];
      expect(resent?.turn).toBe(5);
      expect(wireProblems(format.name, resent?.body ?? {})).toEqual([]);
      expect(JSON.stringify(resent?.body)).toContain(TASK);
      expect(JSON.stringify(resent?.body)).toContain("three sums computed");
    });
  });

  it("keeps tool pairs intact when the tail starts after a tool call", async () => {
    const script = {
      mode: "sequential" as const,
      turns: [...agentTurns(), mockTurn.text("SUMMARY"), mockTurn.text("ok")],
    };
    await withMock(script, async (server) => {
      const { history, model } = await runAgent(server, format);
      // Drop the final answer: the history now ends with tool results, as before a model call.
      const pending = history.slice(0, -1);
      const compactor = new SummaryCompactor({ model, thresholdTokens: 100_000, keepRecentTurns: 2 });
      const result = await compactor.compact(pending, { trigger: "auto" });
      expect(result.history).toHaveLength(5);
      expect(historyProblems(result.history)).toEqual([]);
      expect(await send(model, result.history)).toBe("ok");
      expect(wireProblems(format.name, server.requests.at(-1)?.body ?? {})).toEqual([]);
      // The check is not vacuous: a naive cut right after a tool call leaves an orphan result.
      const naive = [pending[0], ...pending.slice(4)] as HistoryEntry[];
      expect(historyProblems(naive)).not.toEqual([]);
      server.setScript({ turns: [mockTurn.text("x"), mockTurn.text("x")] });
      await send(model, naive);
      expect(wireProblems(format.name, server.requests.at(-1)?.body ?? {})).not.toEqual([]);
    });
  });

  it("fails with context_overflow, after two summary requests, when the summary cannot get under the limit", async () => {
    // ~125,000 estimated tokens (characters / 4), in long words: the mock streams a delta per word.
    const huge = `${"w".repeat(99)} `.repeat(5_000);
    const script = {
      mode: "sequential" as const,
      turns: [...agentTurns(), mockTurn.text(huge), mockTurn.text(huge), mockTurn.text("never")],
    };
    await withMock(script, async (server) => {
      const { history, model } = await runAgent(server, format);
      const compactor = new SummaryCompactor({ model, thresholdTokens: 100_000, keepRecentTurns: 1 });
      const failure = await compactor.compact(history, { trigger: "auto" }).catch((error: unknown) => error);
      expect(isGyreError(failure, "context_overflow")).toBe(true);
      expect(server.requests).toHaveLength(6);
      const summaries = server.requests.filter((r) => JSON.stringify(r.body).includes(COMPACTION_PROMPT_MARKER));
      expect(summaries).toHaveLength(2);
    });
  });

  it("recognises the provider's prompt-too-long rejection", async () => {
    const message =
      format.name === "anthropic"
        ? "prompt is too long: 212000 tokens > 200000 maximum"
        : "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.";
    const script = { turns: [mockTurn.text("unused", { faults: [mockFault.http(400, message)] })] };
    await withMock(script, async (server) => {
      const model = await resolveModel(format.model, { env: mockEnv(server) });
      const failure = await send(model, [{ role: "user", content: "hi" }]).catch((error: unknown) => error);
      expect(isGyreError(failure, "model_prompt_too_long")).toBe(true);
    });
  });

  it("does not mistake another 400 for prompt-too-long", async () => {
    const script = {
      turns: [mockTurn.text("unused", { faults: [mockFault.http(400, "messages: field required")] })],
    };
    await withMock(script, async (server) => {
      const model = await resolveModel(format.model, { env: mockEnv(server) });
      const failure = await send(model, [{ role: "user", content: "hi" }]).catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: "model_bad_request", statusCode: 400 });
    });
  });
});
