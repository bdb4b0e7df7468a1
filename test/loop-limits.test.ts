import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, query, type SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";

/** A tool with side effects: it needs permission in the default mode. */
const adder = defineTool({
  name: "adder",
  description: "Adds two numbers into the ledger.",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const loopForever = (n: number) =>
  Array.from({ length: n }, (_, i) => mockTurn.toolUse("calculator", { a: i, b: 1, op: "+" }));

function toolResults(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.filter((b) => b.type === "tool_result")
      : [],
  );
}

/** Every tool_use in the history is answered by a tool_result (what providers require). */
function expectHistoryValid(messages: SDKMessage[]): void {
  const uses = messages.flatMap((m) =>
    m.type === "assistant"
      ? m.message.content.filter((b) => b.type === "tool_use").map((b) => (b.type === "tool_use" ? b.id : ""))
      : [],
  );
  const answered = new Set(toolResults(messages).map((r) => r.tool_use_id));
  for (const id of uses) expect(answered.has(id)).toBe(true);
}

describe.each(FORMATS)("limits over $name", (format) => {
  it("stops at maxTurns with error_max_turns", async () => {
    await withMock({ turns: loopForever(10) }, async (server) => {
      const messages = await runQuery(server, format, "loop", { tools: [calculator], maxTurns: 3 });
      expect(resultOf(messages)).toMatchObject({ subtype: "error_max_turns", is_error: true, num_turns: 3 });
      expect(server.requests).toHaveLength(3);
      expectHistoryValid(messages);
    });
  });

  it("stops when the budget is used up, checked after every model call", async () => {
    const usage = { input_tokens: 100_000, output_tokens: 10_000 };
    const turns = loopForever(10).map((turn) => ({ ...turn, usage }));
    // claude-sonnet-4-5 / gpt-5 / gpt-4o prices make each turn cost between $0.2 and $0.5.
    await withMock({ turns }, async (server) => {
      // Compaction off: these usage numbers would otherwise fill gpt-4o's window.
      const messages = await runQuery(server, format, "loop", {
        tools: [calculator],
        maxBudgetUsd: 0.5,
        compaction: false,
      });
      const result = resultOf(messages);
      expect(result).toMatchObject({
        subtype: "error_max_budget_usd",
        is_error: true,
        terminal_reason: "max_budget",
      });
      expect(result.total_cost_usd).toBeGreaterThanOrEqual(0.5);
      expect(result.num_turns).toBeLessThan(10);
      expectHistoryValid(messages);
    });
  });

  it("continues an answer cut by max_tokens, then stops with a clear result when it keeps happening", async () => {
    const cut = (text: string) => mockTurn.text(text, { stopReason: "max_tokens" });
    await withMock({ turns: [cut("part one, "), mockTurn.text("part two.")] }, async (server) => {
      const messages = await runQuery(server, format, "write", { tools: [] });
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "part two.", num_turns: 2 });
      expect(JSON.stringify(server.requests[1]?.body)).toContain("Continue exactly where you left off");
    });
    await withMock({ turns: [cut("a"), cut("b"), cut("c")] }, async (server) => {
      const messages = await runQuery(server, format, "write", { tools: [], maxTokensContinuations: 2 });
      const result = resultOf(messages);
      expect(result).toMatchObject({
        is_error: true,
        terminal_reason: "max_tokens",
        stop_reason: "max_tokens",
      });
      expect(result.errors?.[0]).toMatch(/output limit/);
      expect(server.requests).toHaveLength(3);
    });
  });

  it("stops on a refusal", async () => {
    await withMock(
      { turns: [mockTurn.text("I can't help with that.", { stopReason: "refusal" }), mockTurn.text("x")] },
      async (server) => {
        const messages = await runQuery(server, format, "do bad", { tools: [] });
        expect(resultOf(messages)).toMatchObject({ terminal_reason: "refusal", stop_reason: "refusal" });
        expect(server.requests).toHaveLength(1);
      },
    );
  });

  it("reports a denial by canUseTool to the model and in permission_denials", async () => {
    const script = { turns: [mockTurn.toolUse("adder", { a: 1, b: 2 }), mockTurn.text("ok, I won't")] };
    await withMock(script, async (server) => {
      const asked: string[] = [];
      const messages = await runQuery(server, format, "go", {
        tools: [adder],
        canUseTool: async (name, input, context) => {
          asked.push(`${name}:${JSON.stringify(input)}:${context.kind}`);
          return { behavior: "deny", message: "Not today." };
        },
      });
      expect(asked).toEqual(['adder:{"a":1,"b":2}:permission']);
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true, content: "Not today." });
      const result = resultOf(messages);
      expect(result.subtype).toBe("success");
      expect(result.permission_denials).toEqual([
        { tool_name: "adder", tool_use_id: expect.any(String), tool_input: { a: 1, b: 2 } },
      ]);
    });
  });

  it("denies a call that needs permission when nobody can be asked", async () => {
    const script = { turns: [mockTurn.toolUse("adder", { a: 1, b: 2 }), mockTurn.text("denied")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [adder] });
      expect(toolResults(messages)[0]).toMatchObject({
        is_error: true,
        content: expect.stringMatching(/no one can be asked/),
      });
      expect(resultOf(messages).permission_denials).toHaveLength(1);
    });
  });

  it("lets canUseTool rewrite the input, and skips it for allowedTools and read-only tools", async () => {
    const script = { turns: [mockTurn.toolUse("adder", { a: 1, b: 2 }), mockTurn.text("done")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [adder],
        canUseTool: async () => ({ behavior: "allow", updatedInput: { a: 10, b: 20 } }),
      });
      expect(toolResults(messages)[0]?.content).toBe("30");
    });
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [adder],
        allowedTools: ["adder"],
        canUseTool: async () => ({ behavior: "deny", message: "never asked" }),
      });
      expect(toolResults(messages)[0]?.content).toBe("3");
    });
    const readOnly = {
      turns: [mockTurn.toolUse("calculator", { a: 1, b: 2, op: "+" }), mockTurn.text("done")],
    };
    await withMock(readOnly, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [calculator],
        canUseTool: async () => ({ behavior: "deny", message: "never asked" }),
      });
      expect(toolResults(messages)[0]?.content).toBe("3");
    });
  });

  it("is interrupted during a model call, and says so", async () => {
    const script = {
      turns: [mockTurn.text("a long answer that streams slowly word by word", { chunkDelayMs: 100 })],
    };
    await withMock(script, async (server) => {
      const q = query({
        prompt: "talk",
        options: { model: format.model, env: mockEnv(server), tools: [], includePartialMessages: true },
      });
      const messages: SDKMessage[] = [];
      for await (const message of q) {
        messages.push(message);
        if (message.type === "stream_event" && message.event.type === "content_block_delta") await q.interrupt();
      }
      const result = resultOf(messages);
      expect(result).toMatchObject({
        is_error: true,
        terminal_reason: "interrupted",
        subtype: "error_during_execution",
      });
      expect(q.exitReason).toBe("interrupted");
    });
  });

  it("cancels a running tool on external abort, and every tool_use still gets a result; the run ends aborted, not interrupted", async () => {
    let sawAbort = false;
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const hang = defineTool({
      name: "hang",
      description: "waits until cancelled",
      inputSchema: z.object({}),
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => {
            sawAbort = true;
            reject(new Error("cancelled"));
          });
          started();
        }),
    });
    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", name: "hang", input: {} },
          { type: "tool_use", name: "hang", input: {} },
        ]),
        mockTurn.text("never reached"),
      ],
    };
    await withMock(script, async (server) => {
      const controller = new AbortController();
      const q = query({
        prompt: "go",
        options: {
          model: format.model,
          env: mockEnv(server),
          tools: [hang],
          abortController: controller,
          permissionMode: "bypassPermissions",
        },
      });
      // Abort once the first call is running.
      void running.then(() => controller.abort());
      const messages: SDKMessage[] = [];
      for await (const message of q) messages.push(message);
      expect(sawAbort).toBe(true);
      const results = toolResults(messages);
      expect(results).toHaveLength(2);
      expect(results.every((r) => r.is_error)).toBe(true);
      expect(String(results[0]?.content)).toMatch(/interrupted/);
      expectHistoryValid(messages);
      expect(resultOf(messages).terminal_reason).toBe("aborted");
      expect(server.requests).toHaveLength(1);
    });
  });

  it("times a tool out per call", async () => {
    const slow = defineTool({
      name: "slow",
      description: "never finishes on its own",
      inputSchema: z.object({}),
      timeoutMs: 50,
      execute: (_input, context) =>
        new Promise((resolve) => context.signal.addEventListener("abort", () => resolve("late"))),
    });
    await withMock({ turns: [mockTurn.toolUse("slow", {}), mockTurn.text("it timed out")] }, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [slow],
        permissionMode: "bypassPermissions",
      });
      expect(toolResults(messages)[0]).toMatchObject({
        is_error: true,
        content: expect.stringMatching(/timed out after 50 ms/),
      });
      expect(resultOf(messages).subtype).toBe("success");
    });
  });
});

describe("maxMessages", () => {
  it("sends at most that many of the newest messages, the prompt kept and no tool call parted from its result", async () => {
    const [anthropic] = FORMATS;
    // Sequential: the mock answers in order instead of by the number of turns it is sent.
    await withMock({ mode: "sequential", turns: [...loopForever(4), mockTurn.text("4")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "count to four", { tools: [calculator], maxMessages: 4 });
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "4" });
      expectHistoryValid(messages);
      const sent = server.requests.map(
        (request) => (request.body as { messages: Array<{ role: string; content: unknown }> }).messages,
      );
      expect(sent.map((history) => history.length)).toEqual([1, 3, 3, 3, 3]);
      for (const history of sent.slice(1)) {
        expect(history[0]).toMatchObject({ role: "user", content: [{ type: "text", text: "count to four" }] });
        const [, call, result] = history as Array<{ content: Array<{ id?: string; tool_use_id?: string }> }>;
        expect(result?.content[0]?.tool_use_id).toBe(call?.content.find((block) => block.id)?.id);
      }
      // The session keeps all of it.
      expect(messages.filter((m) => m.type === "assistant")).toHaveLength(5);
    });
  });
});

describe("loop events", () => {
  it("numbers each turn on its message_start stream event", async () => {
    const [anthropic] = FORMATS;
    await withMock({ turns: [...loopForever(2), mockTurn.text("2")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "count", {
        tools: [calculator],
        includePartialMessages: true,
      });
      const starts = messages.filter((m) => m.type === "stream_event" && m.event.type === "message_start");
      expect(starts.map((m) => (m.type === "stream_event" ? m.turn : undefined))).toEqual([1, 2, 3]);
      expect(resultOf(messages).num_turns).toBe(3);
    });
  });
});
