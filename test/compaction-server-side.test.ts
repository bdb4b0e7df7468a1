import { describe, expect, it } from "vitest";
import { Compactor, isServerCompactionBlock } from "../src/context/index.js";
import { MessageAssembler } from "../src/model/ai-sdk/assemble-message.js";
import { resolveModel, responseOf } from "../src/model/index.js";
import type { HistoryEntry } from "../src/protocol/index.js";
import { mockTurn } from "../src/testing/index.js";
import { mockEnv, withMock } from "./helpers.js";

describe("Anthropic server-side compaction", () => {
  it("sends context_management and the compaction beta when switched on", async () => {
    await withMock({ turns: [mockTurn.text("hi")] }, async (server) => {
      const model = await resolveModel("anthropic/claude-sonnet-4-5", { env: mockEnv(server) });
      const compactor = new Compactor({ model, serverSide: { instructions: "Keep file paths." } });
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
