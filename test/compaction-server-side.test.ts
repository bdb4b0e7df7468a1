import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isServerCompactionBlock, SummaryCompactor } from "../src/context/index.js";
import { MemorySessionStore, SDKMessage as SDKMessageSchema } from "../src/index.js";
import { MessageAssembler } from "../src/model/ai-sdk/assemble-message.js";
import { resolveModel, responseOf } from "../src/model/index.js";
import type { HistoryEntry } from "../src/protocol/index.js";
import { mockTurn } from "../src/testing/index.js";
import { wireProblems } from "./compaction-wire.js";
import { calculator, FORMATS, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";

describe("Anthropic server-side compaction", () => {
  it("sends context_management and the compaction beta when switched on", async () => {
    await withMock({ turns: [mockTurn.text("hi")] }, async (server) => {
      const model = await resolveModel("anthropic/claude-sonnet-4-5", { env: mockEnv(server) });
      const compactor = new SummaryCompactor({ model, serverSide: { instructions: "Keep file paths." } });
      await responseOf(
        model.stream({
          system: "sys",
          history: [{ role: "user", content: "hello" }],
          tools: [],
          providerOptions: compactor.providerOptions(),
          signal: new AbortController().signal,
        }),
      );
      const request = server.requests[0];
      expect(request?.body.context_management).toEqual({
        edits: [
          {
            type: "compact_20260112",
            trigger: { type: "input_tokens", value: 155_000 },
            instructions: "Keep file paths.",
          },
        ],
      });
      expect(String(request?.headers["anthropic-beta"])).toContain("compact-2026-01-12");
    });
  });

  it("keeps a streamed compaction block and sends it back as a compaction block", async () => {
    const assembler = new MessageAssembler("msg_1", "claude-sonnet-4-5");
    assembler.push({ type: "stream-start", warnings: [] });
    assembler.push({ type: "text-start", id: "0", providerMetadata: { anthropic: { type: "compaction" } } });
    assembler.push({ type: "text-delta", id: "0", delta: "Summary of the earlier work." });
    assembler.push({ type: "text-end", id: "0" });
    assembler.push({ type: "text-start", id: "1" });
    assembler.push({ type: "text-delta", id: "1", delta: "Carrying on." });
    assembler.push({ type: "text-end", id: "1" });
    assembler.push({
      type: "finish",
      finishReason: { unified: "stop", raw: "end_turn" },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 5, text: 5, reasoning: undefined },
      },
    });
    const message = assembler.message();
    expect(message.content[0] && isServerCompactionBlock(message.content[0])).toBe(true);

    await withMock({ turns: [mockTurn.text("a"), mockTurn.text("b")] }, async (server) => {
      const model = await resolveModel("anthropic/claude-sonnet-4-5", { env: mockEnv(server) });
      const history: HistoryEntry[] = [
        { role: "user", content: "task" },
        { role: "assistant", message },
        { role: "user", content: "next" },
      ];
      await responseOf(model.stream({ history, tools: [], signal: new AbortController().signal }));
      const messages = server.requests[0]?.body.messages as Array<{ role: string; content: unknown[] }>;
      expect(messages[1]?.content[0]).toMatchObject({
        type: "compaction",
        content: "Summary of the earlier work.",
      });
      expect(messages[1]?.content[1]).toMatchObject({ type: "text", text: "Carrying on." });
    });
  });
});

describe("Anthropic server-side compaction in the loop (issue 32, row 8)", () => {
  const script = {
    mode: "sequential" as const,
    turns: [
      mockTurn.toolUse("calculator", { a: 6, b: 7, op: "*" }, { usage: { input_tokens: 1000, output_tokens: 20 } }),
      mockTurn.text("It is 42.", {
        compaction: {
          summary: "The user asked for 6*7; the calculator said 42.",
          inputTokens: 150_000,
          outputTokens: 400,
        },
        usage: { input_tokens: 600, output_tokens: 10 },
      }),
      mockTurn.text("You asked about 6*7."),
    ],
  };

  it("gives the stream a compact_boundary as client-side compaction does, and keeps the compaction block", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-server-compaction-"));
    const store = new MemorySessionStore();
    try {
      await withMock(script, async (server) => {
        const options = { tools: [calculator], sessionStore: store, cwd: dir, compaction: { serverSide: true } };
        // tool_progress left out: whether a call lasts long enough for one is the machine's business.
        const messages = (await runQuery(server, FORMATS[0], "What is 6*7?", options)).filter(
          (m) => m.type !== "tool_progress",
        );
        for (const message of messages) expect(SDKMessageSchema.safeParse(message).success).toBe(true);
        const kinds = messages.map((m) => (m.type === "system" ? `system:${m.subtype}` : m.type));
        expect(kinds).toEqual([
          "system:init",
          "assistant",
          "user",
          "system:compact_boundary",
          "user",
          "assistant",
          "result",
        ]);
        const boundary = messages[3];
        expect(boundary).toMatchObject({ compact_metadata: { trigger: "auto", pre_tokens: 150_000 } });
        // What follows the boundary is what the model now works from: the first prompt, then the answer.
        expect(messages[4]).toMatchObject({
          type: "user",
          isSynthetic: true,
          message: { content: [{ type: "text", text: "What is 6*7?" }] },
        });
        const answer = messages[5];
        expect(answer?.type === "assistant" && answer.message.content.map((b) => b.type)).toEqual(["text", "text"]);
        expect(answer?.type === "assistant" && answer.message.usage).toMatchObject({
          input_tokens: 600,
          output_tokens: 10,
        });
        const result = resultOf(messages);
        expect(result.result).toBe("It is 42.");
        // The compaction's own tokens are counted, apart from the answer's.
        expect(result.usage.input_tokens).toBe(1000 + 150_000 + 600);
        expect(result.usage.output_tokens).toBe(20 + 400 + 10);
        // …and shown apart (issue 32, row 6): the total less what the answers cost.
        const answers = messages.reduce((sum, m) => sum + (m.type === "assistant" ? (m.cost_usd ?? 0) : 0), 0);
        expect(result.compaction_cost_usd).toBeGreaterThan(0);
        expect(result.total_cost_usd).toBeCloseTo(answers + (result.compaction_cost_usd ?? 0), 12);

        // Resumed, the session carries the compaction block back (Anthropic drops what came before it).
        const sessionId = messages[0]!.session_id;
        await runQuery(server, FORMATS[0], "What did I ask?", { ...options, resume: sessionId });
        const sent = server.requests[2]?.body.messages as Array<{
          role: string;
          content: Array<Record<string, unknown>>;
        }>;
        expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
        expect(sent[1]?.content[0]).toMatchObject({
          type: "compaction",
          content: "The user asked for 6*7; the calculator said 42.",
        });
        expect(wireProblems("anthropic", server.requests[2]!.body)).toEqual([]);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("continues a turn paused after the compaction (pauseAfterCompaction)", async () => {
    const paused = {
      mode: "sequential" as const,
      turns: [
        mockTurn.of([], { compaction: { summary: "Earlier work, summarized." }, stopReason: "pause_turn" as const }),
        mockTurn.text("Done."),
      ],
    };
    await withMock(paused, async (server) => {
      const messages = await runQuery(server, FORMATS[0], "Go on", {
        tools: [],
        compaction: { serverSide: { pauseAfterCompaction: true } },
      });
      expect(messages.filter((m) => m.type === "system" && m.subtype === "compact_boundary")).toHaveLength(1);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "Done.", num_turns: 2 });
      const sent = server.requests[1]?.body.messages as Array<{
        role: string;
        content: Array<Record<string, unknown>>;
      }>;
      expect(sent.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(sent[1]?.content).toEqual([
        expect.objectContaining({ type: "compaction", content: "Earlier work, summarized." }),
      ]);
    });
  });
});
