import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { describe, expect, it } from "vitest";
import { query, type SDKMessage, SDKMessage as SDKMessageSchema, wrapTextProtocol } from "../src/index.js";
import { type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { calculator, resultOf, withMock } from "./helpers.js";

type ChatMessage = { role: string; content: string };

/** Run a query against the mock server through a Chat Completions model wrapped in the text protocol. */
async function run(server: MockLLMServer, prompt: string): Promise<SDKMessage[]> {
  const provider = createOpenAICompatible({ name: "local", baseURL: server.baseURL, includeUsage: true });
  const messages: SDKMessage[] = [];
  const q = query({
    prompt,
    options: {
      model: wrapTextProtocol(provider("small-model")),
      tools: [calculator],
      retry: { baseDelayMs: 10, maxDelayMs: 50 },
    },
  });
  for await (const message of q) messages.push(message);
  return messages;
}

function toolResults(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? m.message.content.filter((block) => block.type === "tool_result")
      : [],
  );
}

function assistantBlocks(messages: SDKMessage[]) {
  return messages.flatMap((m) => (m.type === "assistant" ? [m.message.content] : []));
}

/** The chat messages of the n-th request the mock server received. */
function sent(server: MockLLMServer, n: number): ChatMessage[] {
  const body = server.requests[n]?.body as { messages: ChatMessage[]; tools?: unknown };
  expect(body.tools).toBeUndefined();
  return body.messages;
}

const CALL = '<tool>\n{"tool_name": "calculator", "arguments": {"a": 6, "b": 7, "op": "*"}}\n</tool>';

describe("query() with a text-protocol model", () => {
  it("runs a tool called in a <tool> block and sends the result back as text", async () => {
    const script = { turns: [mockTurn.text(`Let me compute.\n${CALL}`), mockTurn.text("The answer is 42.")] };
    await withMock(script, async (server) => {
      const messages = await run(server, "6*7?");
      for (const message of messages) expect(SDKMessageSchema.safeParse(message).success).toBe(true);
      const [first] = assistantBlocks(messages);
      expect(first).toEqual([
        { type: "text", text: "Let me compute.", citations: null },
        expect.objectContaining({ type: "tool_use", name: "calculator", input: { a: 6, b: 7, op: "*" } }),
      ]);
      expect(messages.find((m) => m.type === "assistant")).toMatchObject({
        message: { stop_reason: "tool_use" },
      });
      expect(toolResults(messages)).toEqual([expect.objectContaining({ content: "42" })]);
      expect(resultOf(messages)).toMatchObject({
        subtype: "success",
        result: "The answer is 42.",
        num_turns: 2,
      });

      expect(sent(server, 0)[0]?.content).toContain("# Tools");
      const second = sent(server, 1);
      expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
      expect(second[2]?.content).toBe(
        'Let me compute.\n\n<tool>\n{"tool_name":"calculator","arguments":{"a":6,"b":7,"op":"*"}}\n</tool>',
      );
      const id = (first?.[1] as { id: string } | undefined)?.id;
      expect(id).toMatch(/^call_[0-9a-f]{16}_0$/);
      expect(second[3]?.content).toBe(`<tool_result tool_name="calculator" tool_call_id="${id}">\n42\n</tool_result>`);
    });
  });

  it("keeps <thinking> as a thinking block and shows it back to the model as text", async () => {
    const script = {
      turns: [mockTurn.text(`<thinking>Multiply.</thinking>\n${CALL}`), mockTurn.text("<thinking>Done.</thinking>42")],
    };
    await withMock(script, async (server) => {
      const messages = await run(server, "6*7?");
      const [first, last] = assistantBlocks(messages);
      expect(first?.[0]).toMatchObject({ type: "thinking", thinking: "Multiply." });
      expect(last).toEqual([
        expect.objectContaining({ type: "thinking", thinking: "Done." }),
        { type: "text", text: "42", citations: null },
      ]);
      expect(resultOf(messages).result).toBe("42");
      expect(sent(server, 1)[2]?.content).toMatch(/^<thinking>\nMultiply\.\n<\/thinking>\n\n<tool>/);
    });
  });

  it("runs two blocks of one answer in order", async () => {
    const two = `${CALL}\n<tool>{"tool_name": "calculator", "arguments": {"a": 1, "b": 2, "op": "+"}}</tool>`;
    await withMock({ turns: [mockTurn.text(two), mockTurn.text("42 and 3")] }, async (server) => {
      const messages = await run(server, "both");
      expect(toolResults(messages).map((r) => r.content)).toEqual(["42", "3"]);
      const results = sent(server, 1)[3]?.content ?? "";
      expect(results.match(/<tool_result /g)).toHaveLength(2);
      expect(results.indexOf(">\n42\n")).toBeLessThan(results.indexOf(">\n3\n"));
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "42 and 3" });
    });
  });

  it("answers malformed JSON with an error naming the problem, and shows the model its own text", async () => {
    const broken = '<tool>{"tool_name": "calculator", "arguments": {"a": 6, "b": }}</tool>';
    await withMock({ turns: [mockTurn.text(broken), mockTurn.text("I will fix my JSON.")] }, async (server) => {
      const messages = await run(server, "go");
      const [result] = toolResults(messages);
      expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/not valid JSON/) });
      const second = sent(server, 1);
      expect(second[2]?.content).toBe(broken);
      expect(second[3]?.content).toMatch(
        /^<tool_result tool_name="calculator" tool_call_id="[^"]+" is_error="true">\nError: The arguments for calculator were not valid JSON[\s\S]*The <tool> block is not valid JSON \([^)]+\)\. Write each call as/,
      );
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "I will fix my JSON." });
    });
  });

  it("answers a block without tool_name with the list of real tools", async () => {
    const nameless = '<tool>{"arguments": {"a": 6, "b": 7, "op": "*"}}</tool>';
    await withMock({ turns: [mockTurn.text(nameless), mockTurn.text("Sorry.")] }, async (server) => {
      const messages = await run(server, "go");
      const [result] = toolResults(messages);
      expect(result?.is_error).toBe(true);
      expect(result?.content).toContain("invalid_tool_call");
      expect(result?.content).toContain("Available tools: calculator");
      expect(sent(server, 1)[3]?.content).toContain('The <tool> block has no "tool_name"');
      expect(resultOf(messages).subtype).toBe("success");
    });
  });

  it("answers a block cut off at the end of the answer with an error", async () => {
    const cut = 'Calling.\n<tool>{"tool_name": "calculator", "arguments": {"a": 6';
    await withMock(
      { turns: [mockTurn.text(cut, { stopReason: "max_tokens" }), mockTurn.text("ok")] },
      async (server) => {
        const messages = await run(server, "go");
        const [result] = toolResults(messages);
        expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/not valid JSON/) });
        expect(sent(server, 1)[2]?.content).toBe(`Calling.\n\n<tool>{"tool_name": "calculator", "arguments": {"a": 6`);
        expect(sent(server, 1)[3]?.content).toContain("cut off before its closing </tool> tag");
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "ok" });
      },
    );
  });

  it("is switched on for a configured provider with toolProtocol: text", async () => {
    await withMock({ turns: [mockTurn.text(CALL), mockTurn.text("42")] }, async (server) => {
      const messages: SDKMessage[] = [];
      const q = query({
        prompt: "6*7?",
        options: {
          model: "local/small-model",
          providers: { local: { type: "openai-compatible", baseURL: server.baseURL, toolProtocol: "text" } },
          tools: [calculator],
        },
      });
      for await (const message of q) messages.push(message);
      expect(toolResults(messages).map((r) => r.content)).toEqual(["42"]);
      expect(sent(server, 1)[3]?.content).toContain("<tool_result");
    });
  });

  it("with Forge's strict rules, runs no call without server_name and one call per answer, telling the model why", async () => {
    const unnamed = CALL;
    const named = (a: number) =>
      `<tool>{"tool_name": "calculator", "server_name": "local", "arguments": {"a": ${a}, "b": 1, "op": "+"}}</tool>`;
    const turns = [mockTurn.text(unnamed), mockTurn.text(`${named(1)}\n${named(2)}`), mockTurn.text("2, then 3.")];
    await withMock({ turns }, async (server) => {
      const messages: SDKMessage[] = [];
      const q = query({
        prompt: "go",
        options: {
          model: "local/small-model",
          providers: {
            local: {
              type: "openai-compatible",
              baseURL: server.baseURL,
              toolProtocol: "text",
              textProtocol: { strict: true, oneCallPerTurn: true },
            },
          },
          tools: [calculator],
        },
      });
      for await (const message of q) messages.push(message);
      const results = toolResults(messages);
      // The call without server_name was not run; of the next answer's two, only the first ran.
      expect(results.map((result) => [result.is_error ?? false, result.content])).toEqual([
        [true, expect.stringContaining("the tool did not run")],
        [false, "2"],
        [true, expect.stringContaining("the tool did not run")],
      ]);
      const told = sent(server, 1)[3]?.content ?? "";
      expect(told).toContain('The <tool> block has no "server_name"');
      expect(sent(server, 2).at(-1)?.content).toContain("Only one tool call per answer");
      // The model was told the rules up front.
      const system = sent(server, 0)[0]?.content ?? "";
      expect(system).toContain("Write at most one <tool> block per answer");
      expect(system).toContain('Every <tool> block also has "server_name"');
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "2, then 3." });
    });
  });
});
