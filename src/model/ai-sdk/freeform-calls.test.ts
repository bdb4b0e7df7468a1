import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../protocol/index.js";
import { type MockLLMServer, mockTurn, startMockLLM } from "../../testing/index.js";
import type { Model, ModelRequest, ModelStreamEvent, ModelTool } from "../model.js";
import { resolveModel } from "../resolve-model.js";

// Freeform tools through the real AI SDK provider packages against the mock LLM's wire formats.
let server: MockLLMServer;

beforeAll(async () => {
  server = await startMockLLM({ script: { turns: [] } });
});

afterAll(async () => {
  await server.close();
});

const grammar = {
  type: "grammar" as const,
  syntax: "lark" as const,
  definition: 'start: "*** Begin Patch" /(.|\\n)*/',
};
const applyPatch: ModelTool = {
  name: "apply_patch",
  description: "Apply a patch.\n\nThe input follows this lark grammar: ...",
  inputSchema: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
  freeform: { description: "Apply a patch.", format: grammar },
};
const read: ModelTool = { name: "Read", description: "Read a file", inputSchema: { type: "object", properties: {} } };
const tools = [applyPatch, read];
// Quotes, a backslash and newlines: the text must survive JSON wrapping and streaming unchanged.
const patch = '*** Begin Patch\n*** Add File: "a.txt"\n+C:\\path\n*** End Patch';

async function call(model: Model, history: HistoryEntry[]) {
  const request: ModelRequest = { history, tools, signal: new AbortController().signal };
  const events: ModelStreamEvent[] = [];
  const stream = model.stream(request);
  for (;;) {
    const next = await stream.next();
    if (next.done) return { events, response: next.value };
    events.push(next.value);
  }
}

/** The tool call's arguments as the stream's `input_json_delta` events spelled them. */
function streamedArguments(events: ModelStreamEvent[]): string {
  return events
    .map((event) =>
      event.type === "content_block_delta" && event.delta.type === "input_json_delta" ? event.delta.partial_json : "",
    )
    .join("");
}

describe("freeform tools", () => {
  it("go natively to an OpenAI Responses model, and its custom_tool_call comes back as { input }", async () => {
    server.setScript({ turns: [mockTurn.customToolCall("apply_patch", patch, { id: "call_p" }), mockTurn.text("ok")] });
    server.reset();
    const model = await resolveModel("openai/gpt-5", { env: server.env() });
    const first = await call(model, [{ role: "user", content: "patch it" }]);
    expect(server.requests[0]?.body.tools).toEqual([
      { type: "custom", name: "apply_patch", description: "Apply a patch.", format: grammar },
      expect.objectContaining({ type: "function", name: "Read" }),
    ]);
    const block = first.response.message.content[0];
    expect(block).toMatchObject({ type: "tool_use", id: "call_p", name: "apply_patch", input: { input: patch } });
    expect(first.response.toolInputProblems.size).toBe(0);
    expect(JSON.parse(streamedArguments(first.events))).toEqual({ input: patch });

    // The call goes back as a custom_tool_call (a fresh conversation: no stored item to refer to), its result as the output.
    const history: HistoryEntry[] = [
      { role: "user", content: "patch it" },
      {
        role: "assistant",
        message: { ...first.response.message, content: [{ ...block, provider_metadata: undefined } as never] },
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_p", content: "Done" }] },
    ];
    await call(model, history);
    expect(server.requests[1]?.body.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "patch it" }] },
      { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: patch },
      { type: "custom_tool_call_output", call_id: "call_p", output: "Done" },
    ]);
  });

  it("go natively to an Azure OpenAI Responses model too", async () => {
    server.setScript({ turns: [mockTurn.customToolCall("apply_patch", patch)] });
    server.reset();
    const env = { AZURE_API_KEY: "mock-key", AZURE_BASE_URL: `${server.url}/openai/v1` };
    const model = await resolveModel("azure/my-gpt-5", { env });
    const { response } = await call(model, [{ role: "user", content: "patch it" }]);
    expect(server.requests[0]?.path).toBe("/openai/v1/responses");
    expect(server.requests[0]?.body.tools).toContainEqual(
      expect.objectContaining({ type: "custom", name: "apply_patch" }),
    );
    expect(response.message.content[0]).toMatchObject({ type: "tool_use", input: { input: patch } });
  });

  it("go as function tools to other models", async () => {
    for (const spec of ["anthropic/claude-sonnet-4-5", "openai-chat/gpt-5"]) {
      server.setScript({ turns: [mockTurn.customToolCall("apply_patch", patch)] });
      server.reset();
      const model = await resolveModel(spec, { env: server.env() });
      const { response } = await call(model, [{ role: "user", content: "patch it" }]);
      expect(JSON.stringify(server.requests[0]?.body.tools)).toContain("The input follows this lark grammar");
      expect(JSON.stringify(server.requests[0]?.body.tools)).not.toContain('"custom"');
      expect(response.message.content[0]).toMatchObject({ type: "tool_use", input: { input: patch } });
    }
  });

  it("are described in the prompt, with their grammar, to an OpenAI Responses model on the text protocol", async () => {
    server.setScript({ turns: [mockTurn.text("ok")] });
    server.reset();
    const providers = {
      texty: {
        type: "openai" as const,
        baseURLEnv: "OPENAI_BASE_URL",
        apiKeyEnv: "OPENAI_API_KEY",
        toolProtocol: "text" as const,
      },
    };
    const model = await resolveModel("texty/small", { env: server.env(), providers });
    await call(model, [{ role: "user", content: "patch it" }]);
    const body = server.requests[0]?.body;
    expect(body?.tools).toBeUndefined();
    expect(JSON.stringify(body)).toContain("The input follows this lark grammar");
  });
});
