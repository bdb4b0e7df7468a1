// OpenAI's freeform `custom` tools (Codex's apply_patch) through gyre serve: the official client
// against the real server, whose upstream is the scripted mock LLM. An OpenAI Responses upstream
// gets them natively; the others as a function with one string `input`.
import { describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { offeredTools } from "./serve-mcp-support.js";
import { upstreamBody, UPSTREAMS, weatherTool, withServer } from "./serve-support.js";

const grammar = { type: "grammar", syntax: "lark", definition: 'start: "*** Begin Patch" /(.|\\n)*/ "*** End Patch"' };
const applyPatch = {
  type: "custom" as const,
  name: "apply_patch",
  description: "Apply a patch to files.",
  format: grammar,
};
// What Codex CLI sends besides its functions: hosted tools Gyre does not offer.
const codexHostedTools = [
  { type: "tool_search" },
  { type: "web_search", external_web_access: false },
  { type: "namespace", name: "multi_agent_v1", tools: [{ type: "function", name: "spawn" }] },
];
// Quotes, a backslash, newlines and non-ASCII text: the raw input must arrive unchanged.
const patch = '*** Begin Patch\n*** Add File: a.txt\n+say "héllo" to C:\\temp\n*** End Patch';

/** The upstream request's input items of `type`. */
function itemsOf(body: Record<string, unknown>, type: string): unknown[] {
  return ((body.input ?? []) as Array<{ type?: string }>).filter((item) => item.type === type);
}

describe.each(UPSTREAMS)("custom tools through gyre serve with the $name upstream", (upstream) => {
  it("returns the model's call as custom_tool_call and continues with its output; hosted tools are ignored", async () => {
    const turns = [mockTurn.customToolCall("apply_patch", patch), mockTurn.text("Patched.")];
    await withServer({ turns }, async ({ client, mock }) => {
      const openai = client();
      const tools = [applyPatch, ...codexHostedTools] as never;
      const first = await openai.responses.create({ model: upstream.model, input: "Add a.txt.", tools });
      expect(first.status).toBe("completed");
      expect(first.output).toHaveLength(1);
      const call = first.output[0] as { type: string; name: string; input: string; call_id: string };
      expect(call).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: patch, status: "completed" });
      expect(offeredTools(upstreamBody(mock, 0))).toEqual(["apply_patch"]);
      const second = await openai.responses.create({
        model: upstream.model,
        previous_response_id: first.id,
        input: [{ type: "custom_tool_call_output", call_id: call.call_id, output: "Done: A a.txt" }] as never,
        tools,
      });
      expect(second.output_text).toBe("Patched.");
      expect(JSON.stringify(upstreamBody(mock, 1))).toContain("Done: A a.txt");
    });
  });

  it("streams the call's input as custom_tool_call_input events", async () => {
    await withServer({ turns: [mockTurn.customToolCall("apply_patch", patch)] }, async ({ client }) => {
      const types: string[] = [];
      let input = "";
      const deltas: string[] = [];
      const stream = client().responses.stream({
        model: upstream.model,
        input: "Patch.",
        tools: [applyPatch] as never,
      });
      for await (const event of stream) {
        if (types.at(-1) !== event.type) types.push(event.type);
        if (event.type === "response.custom_tool_call_input.delta") deltas.push(event.delta);
        if (event.type === "response.custom_tool_call_input.done") input = event.input;
      }
      expect(types).toEqual([
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "response.output_item.done",
        "response.completed",
      ]);
      expect(input).toBe(patch);
      // As the upstream streamed it (the mock: 16 characters at a time), not in one piece at the end.
      expect(deltas.length).toBeGreaterThan(2);
      expect(deltas.join("")).toBe(patch);
    });
  });
});

describe("custom tool names", () => {
  it("may not be another client tool's or a server tool's (400 on tools, nothing asked upstream)", async () => {
    await withServer(
      { turns: [mockTurn.text("never")] },
      async ({ client, mock }) => {
        const openai = client();
        const named = (name: string) => ({ type: "custom", name, description: "Free text." }) as never;
        for (const tools of [[named("get_weather"), weatherTool], [named("Read")]]) {
          const error = await openai.responses.create({ model: "openai/gpt-5", input: "Hi", tools }).catch((e) => e);
          expect(error).toMatchObject({ status: 400, param: "tools" });
        }
        expect(mock.requests).toHaveLength(0);
      },
      { tools: ["Read"] },
    );
  });
});

describe("custom tools with an OpenAI Responses upstream", () => {
  it("go to it as custom tools with their grammar; the call and its output go back as custom_tool_call items", async () => {
    const turns = [mockTurn.customToolCall("apply_patch", patch, { id: "call_patch" }), mockTurn.text("Patched.")];
    await withServer({ turns }, async ({ client, mock }) => {
      const openai = client();
      const tools = [applyPatch, weatherTool] as never;
      const first = await openai.responses.create({ model: "openai/gpt-5", input: "Add a.txt.", tools });
      const sent = upstreamBody(mock, 0).tools as Array<Record<string, unknown>>;
      expect(sent).toEqual([
        { type: "custom", name: "apply_patch", description: "Apply a patch to files.", format: grammar },
        expect.objectContaining({ type: "function", name: "get_weather" }),
      ]);
      expect(first.output).toEqual([
        expect.objectContaining({ type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: patch }),
      ]);

      const second = await openai.responses.create({
        model: "openai/gpt-5",
        previous_response_id: first.id,
        input: [{ type: "custom_tool_call_output", call_id: "call_patch", output: "Done: A a.txt" }] as never,
        tools,
      });
      expect(second.output_text).toBe("Patched.");
      const body = upstreamBody(mock, 1);
      expect(itemsOf(body, "custom_tool_call")).toEqual([
        { type: "custom_tool_call", call_id: "call_patch", name: "apply_patch", input: patch },
      ]);
      expect(itemsOf(body, "custom_tool_call_output")).toEqual([
        { type: "custom_tool_call_output", call_id: "call_patch", output: "Done: A a.txt" },
      ]);
      expect(itemsOf(body, "function_call")).toEqual([]);
    });
  });

  it("forces a custom tool with tool_choice as allowed_tools of that tool, required", async () => {
    await withServer({ turns: [mockTurn.customToolCall("apply_patch", patch)] }, async ({ client, mock }) => {
      const response = await client().responses.create({
        model: "openai/gpt-5",
        input: "Add a.txt.",
        tools: [applyPatch, weatherTool] as never,
        tool_choice: { type: "custom", name: "apply_patch" },
      });
      // Not { type: "apply_patch" }: that would ask for OpenAI's hosted apply_patch tool.
      expect(upstreamBody(mock, 0).tool_choice).toEqual({
        type: "allowed_tools",
        mode: "required",
        tools: [{ type: "custom", name: "apply_patch" }],
      });
      expect(response.output[0]).toMatchObject({ type: "custom_tool_call", input: patch });
    });
  });

  it("forces a function named like one of OpenAI's hosted tools as that function, not the hosted tool", async () => {
    const turns = ["web_search", "file_search"].map((name) => mockTurn.toolUse(name, { query: "gyre" }));
    await withServer({ turns }, async ({ client, mock }) => {
      for (const [index, name] of ["web_search", "file_search"].entries()) {
        const search = { ...weatherTool, name, description: "The client's own search." };
        const response = await client().responses.create({
          model: "openai/gpt-5",
          input: "Search.",
          tools: [search],
          tool_choice: { type: "function", name },
        });
        // Not { type: "web_search" }: that would ask for OpenAI's hosted search.
        expect(upstreamBody(mock, index).tool_choice).toEqual({
          type: "allowed_tools",
          mode: "required",
          tools: [{ type: "function", name }],
        });
        expect(response.output[0]).toMatchObject({ type: "function_call", name });
      }
    });
  });

  it("sends a custom tool without a format as free text, and rejects a format OpenAI does not know", async () => {
    await withServer({ turns: [mockTurn.text("ok")] }, async ({ client, mock }) => {
      const openai = client();
      const plain = { type: "custom", name: "note", description: "Write a note." } as never;
      await openai.responses.create({ model: "openai/gpt-5", input: "Hi", tools: [plain] });
      expect(upstreamBody(mock, 0).tools).toEqual([{ type: "custom", name: "note", description: "Write a note." }]);
      const odd = {
        type: "custom",
        name: "note",
        format: { type: "grammar", syntax: "peg", definition: "x" },
      } as never;
      const error = await openai.responses.create({ model: "openai/gpt-5", input: "Hi", tools: [odd] }).catch((e) => e);
      expect(error).toMatchObject({ status: 400, error: { param: expect.stringMatching(/^tools/) } });
    });
  });
});

describe("custom tools with upstreams that have none", () => {
  it("go to Anthropic as a function of one string input, the grammar in its description", async () => {
    const turns = [mockTurn.customToolCall("apply_patch", patch, { id: "toolu_patch" }), mockTurn.text("Patched.")];
    await withServer({ turns }, async ({ client, mock }) => {
      const openai = client();
      const model = "anthropic/claude-sonnet-4-5";
      const first = await openai.responses.create({ model, input: "Add a.txt.", tools: [applyPatch] as never });
      const [tool] = upstreamBody(mock, 0).tools as Array<{ name: string; description: string; input_schema: unknown }>;
      expect(tool?.name).toBe("apply_patch");
      expect(tool?.description).toContain(grammar.definition);
      expect(tool?.input_schema).toMatchObject({ type: "object", properties: { input: { type: "string" } } });
      expect(first.output[0]).toMatchObject({ type: "custom_tool_call", input: patch });
      await openai.responses.create({
        model,
        previous_response_id: first.id,
        input: [{ type: "custom_tool_call_output", call_id: "toolu_patch", output: "Done" }] as never,
        tools: [applyPatch] as never,
      });
      const messages = upstreamBody(mock, 1).messages as Array<{ content: Array<Record<string, unknown>> }>;
      const blocks = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
      expect(blocks).toContainEqual(
        expect.objectContaining({ type: "tool_use", id: "toolu_patch", name: "apply_patch", input: { input: patch } }),
      );
      expect(blocks).toContainEqual(expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_patch" }));
    });
  });

  it("go to Chat Completions as a function of one string input", async () => {
    await withServer({ turns: [mockTurn.customToolCall("apply_patch", patch)] }, async ({ client, mock }) => {
      const first = await client().responses.create({
        model: "openai-chat/gpt-5",
        input: "Add a.txt.",
        tools: [applyPatch] as never,
      });
      expect(upstreamBody(mock, 0).tools).toEqual([
        expect.objectContaining({
          type: "function",
          function: expect.objectContaining({
            name: "apply_patch",
            parameters: expect.objectContaining({ required: ["input"] }),
          }),
        }),
      ]);
      expect(first.output[0]).toMatchObject({ type: "custom_tool_call", input: patch });
    });
  });
});
