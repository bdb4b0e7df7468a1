import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type SDKMessage, SDKMessage as SDKMessageSchema } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

/**
 * Message kinds in order, without `tool_progress`: each call's start has tests of its own
 * (test/tool-call-states.test.ts), and whether a call lasts past the progress threshold is the
 * machine's business (src/loop/tool-progress.test.ts pins progress on a manual clock).
 */
function types(messages: SDKMessage[]): string[] {
  return messages
    .filter((m) => m.type !== "tool_progress")
    .map((m) => (m.type === "system" ? `system:${m.subtype}` : m.type));
}

describe.each(FORMATS)("loop over $name", (format) => {
  it("answers in plain text and every message matches the protocol schema", async () => {
    await withMock({ turns: [mockTurn.text("Hello there.")] }, async (server) => {
      const messages = await runQuery(server, format, "Say hello", { tools: [] });
      expect(types(messages)).toEqual(["system:init", "assistant", "result"]);
      for (const message of messages) expect(SDKMessageSchema.safeParse(message).success).toBe(true);
      const result = resultOf(messages);
      expect(result).toMatchObject({
        subtype: "success",
        is_error: false,
        result: "Hello there.",
        num_turns: 1,
      });
      expect(result.session_id).toBe(messages[0]?.session_id);
      expect(server.requests).toHaveLength(1);
    });
  });

  it("runs one tool call and feeds the result back", async () => {
    const script = { turns: [mockTurn.toolUse("calculator", { a: 6, b: 7, op: "*" }), mockTurn.text("42")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "6*7?", { tools: [calculator] });
      expect(types(messages)).toEqual(["system:init", "assistant", "user", "assistant", "result"]);
      expect(toolResults(messages)).toEqual([expect.objectContaining({ content: "42" })]);
      expect(toolResults(messages)[0]?.is_error).toBeUndefined();
      // The second request carried the tool result back to the model.
      expect(JSON.stringify(server.requests[1]?.body)).toContain("42");
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "42", num_turns: 2 });
    });
  });

  it("runs several tool calls of one turn and returns results in call order", async () => {
    const started: string[] = [];
    let release: () => void = () => {};
    const bothStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Each call waits until both have started: this only finishes if they run concurrently.
    const barrier = defineTool({
      name: "barrier",
      description: "waits for its sibling",
      inputSchema: z.object({ tag: z.string() }),
      readOnly: true,
      execute: async ({ tag }) => {
        started.push(tag);
        if (started.length === 2) release();
        await bothStarted;
        return `done ${tag}`;
      },
    });
    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", name: "barrier", input: { tag: "first" } },
          { type: "tool_use", name: "barrier", input: { tag: "second" } },
        ]),
        mockTurn.text("both done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [barrier] });
      expect(toolResults(messages).map((r) => r.content)).toEqual(["done first", "done second"]);
      expect(resultOf(messages).subtype).toBe("success");
    });
  });

  it("runs mutating tools one at a time, in call order", async () => {
    const log: string[] = [];
    const write = defineTool({
      name: "write",
      description: "mutates",
      inputSchema: z.object({ tag: z.string() }),
      execute: async ({ tag }) => {
        log.push(`start ${tag}`);
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`end ${tag}`);
        return tag;
      },
    });
    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", name: "write", input: { tag: "a" } },
          { type: "tool_use", name: "write", input: { tag: "b" } },
          { type: "tool_use", name: "write", input: { tag: "c" } },
        ]),
        mockTurn.text("ok"),
      ],
    };
    await withMock(script, async (server) => {
      await runQuery(server, format, "go", { tools: [write], permissionMode: "bypassPermissions" });
      expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    });
  });

  it("turns a throwing tool into an is_error result and goes on", async () => {
    const broken = defineTool({
      name: "broken",
      description: "always fails",
      inputSchema: z.object({}),
      execute: () => {
        throw new Error("disk on fire");
      },
    });
    const script = { turns: [mockTurn.toolUse("broken", {}), mockTurn.text("I see it failed.")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "try", {
        tools: [broken],
        permissionMode: "bypassPermissions",
      });
      expect(toolResults(messages)[0]).toMatchObject({
        is_error: true,
        content: expect.stringContaining("disk on fire"),
      });
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "I see it failed." });
    });
  });

  it("answers an unknown tool with an error that names the available tools", async () => {
    const script = { turns: [mockTurn.toolUse("teleport", { to: "mars" }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [calculator] });
      const [result] = toolResults(messages);
      expect(result?.is_error).toBe(true);
      expect(result?.content).toContain("teleport");
      expect(result?.content).toContain("calculator");
      expect(resultOf(messages).subtype).toBe("success");
    });
  });

  it("answers input that fails the schema with an error the model can act on", async () => {
    const script = { turns: [mockTurn.toolUse("calculator", { a: "six", b: 7 }), mockTurn.text("retrying")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [calculator] });
      const [result] = toolResults(messages);
      expect(result?.is_error).toBe(true);
      expect(result?.content).toMatch(/InputValidationError[\s\S]*a:[\s\S]*op:/);
    });
  });

  it("answers malformed JSON arguments with an error and keeps the history valid", async () => {
    const script = {
      turns: [
        mockTurn.of([{ type: "tool_use", name: "calculator", rawInput: '{"a": 6, "b": ' }]),
        mockTurn.text("I will fix my JSON."),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [calculator] });
      const [result] = toolResults(messages);
      expect(result?.is_error).toBe(true);
      expect(result?.content).toMatch(/not valid JSON/);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "I will fix my JSON." });
    });
  });

  it("treats tool_use with no tool calls as the end of the turn", async () => {
    const script = { turns: [mockTurn.text("Nothing to call.", { stopReason: "tool_use" })] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [calculator] });
      expect(resultOf(messages)).toMatchObject({
        subtype: "success",
        result: "Nothing to call.",
        num_turns: 1,
      });
      expect(server.requests).toHaveLength(1);
    });
  });

  it("emits stream events before the assistant message when includePartialMessages is on", async () => {
    const script = {
      turns: [
        mockTurn.of([
          { type: "text", text: "Let me compute." },
          { type: "tool_use", name: "calculator", input: { a: 1, b: 2, op: "+" } },
        ]),
        mockTurn.text("3"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "1+2", {
        tools: [calculator],
        includePartialMessages: true,
      });
      const firstAssistant = messages.findIndex((m) => m.type === "assistant");
      const events = messages.slice(0, firstAssistant).flatMap((m) => (m.type === "stream_event" ? [m.event] : []));
      const eventTypes = events.map((e) => e.type);
      expect(eventTypes[0]).toBe("message_start");
      expect(eventTypes).toContain("content_block_delta");
      expect(eventTypes.slice(-2)).toEqual(["message_delta", "message_stop"]);
      const text = events
        .map((e) => (e.type === "content_block_delta" && e.delta.type === "text_delta" ? e.delta.text : undefined))
        .filter((text) => text !== undefined)
        .join("");
      expect(text).toBe("Let me compute.");
      const json = events
        .map((e) =>
          e.type === "content_block_delta" && e.delta.type === "input_json_delta" ? e.delta.partial_json : undefined,
        )
        .filter((json) => json !== undefined)
        .join("");
      expect(JSON.parse(json)).toEqual({ a: 1, b: 2, op: "+" });
      // Order: init, stream events, assistant, user results, ..., result.
      const order = types(messages).filter((t, i, all) => t !== all[i - 1]);
      expect(order).toEqual([
        "system:init",
        "stream_event",
        "assistant",
        "user",
        "stream_event",
        "assistant",
        "result",
      ]);
    });
  });

  it("adds up cost exactly across turns", async () => {
    const usage = {
      input_tokens: 1000,
      output_tokens: 100,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 500,
    };
    const script = {
      turns: [
        mockTurn.toolUse("calculator", { a: 1, b: 1, op: "+" }, { usage }),
        mockTurn.toolUse("calculator", { a: 2, b: 2, op: "+" }, { usage }),
        mockTurn.text("done", { usage }),
      ],
    };
    // Dollars per million tokens; chosen so that a float sum would drift.
    const pricing = { input: 0.1, output: 0.7, cacheRead: 0.01, cacheWrite: 0.3, contextWindow: 1_000_000 };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [calculator],
        pricing: { "claude-sonnet-4-5": pricing, "gpt-5": pricing, "gpt-4o": pricing },
      });
      const result = resultOf(messages);
      const turnCosts = messages.flatMap((m) => (m.type === "assistant" ? [m.cost_usd] : []));
      // 1000*0.1 + 100*0.7 + 500*0.3 + 2000*0.01 = 340 per million = 0.00034 per turn.
      expect(turnCosts).toEqual([0.00034, 0.00034, 0.00034]);
      expect(result.total_cost_usd).toBe(0.00102);
      expect(result.usage.input_tokens).toBe(3000);
      expect(result.usage.cache_read_input_tokens).toBe(6000);
      expect(Object.values(result.modelUsage)[0]).toMatchObject({ costUSD: 0.00102, outputTokens: 300 });
    });
  });
});
