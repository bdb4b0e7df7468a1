import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { mockFault, mockTurn } from "../src/testing/index.js";
import { UPSTREAMS, upstreamBody, withServer, withTwoServersOnPostgres } from "./serve-support.js";

const lookupTool = {
  type: "function" as const,
  name: "lookup",
  description: "Look a word up",
  parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  strict: false,
};

describe("gyre serve against a model that reaches for what it was not given", () => {
  it("runs none of Gyre's built-in tools: only the request's functions exist", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-serve-guard-"));
    const target = join(dir, "pwned");
    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", name: "Bash", input: { command: `touch ${target}` } },
          { type: "tool_use", name: "Write", input: { file_path: target, content: "x" } },
          { type: "tool_use", name: "Read", input: { file_path: "/etc/passwd" } },
          {
            type: "tool_use",
            name: "Agent",
            input: { description: "d", prompt: `touch ${target}`, subagent_type: "general-purpose" },
          },
        ]),
        mockTurn.text("I could not."),
      ],
    };
    await withServer(
      script,
      async ({ client, mock }) => {
        const response = await client().responses.create({
          model: "anthropic/claude-sonnet-4-5",
          input: "Break out.",
          tools: [lookupTool],
        });
        expect(response.output.map((item) => item.type)).toEqual(["message"]);
        expect(response.output_text).toBe("I could not.");
        expect(existsSync(target)).toBe(false);
        const offered = (upstreamBody(mock, 0).tools as Array<{ name: string }>).map((tool) => tool.name);
        expect(offered).toEqual(["lookup"]);
        // The second request shows the model its calls failed; nothing of /etc/passwd is in it.
        const retry = JSON.stringify(upstreamBody(mock, 1));
        expect(retry).not.toContain("root:x:0:0");
        expect(retry).toContain("is_error");
      },
      { cwd: dir },
    );
  });

  it("refuses every call under tool_choice none, and ends incomplete at the turn limit", async () => {
    const refused = (n: number) => mockTurn.toolUse("lookup", { word: `w${n}` }, { id: `call_${n}` });
    await withServer(
      { turns: [refused(0), refused(1), refused(2)] },
      async ({ client, mock }) => {
        const response = await client().responses.create({
          model: "openai/gpt-5",
          input: "Do not look anything up.",
          tools: [lookupTool],
          tool_choice: "none",
        });
        expect(response.status).toBe("incomplete");
        expect(response.incomplete_details).toEqual({ reason: "max_turns" });
        expect(response.output.filter((item) => item.type === "function_call")).toEqual([]);
        expect(mock.requests).toHaveLength(2);
        expect(upstreamBody(mock, 0).tool_choice).toBe("none");
        expect(JSON.stringify(upstreamBody(mock, 1))).toContain("lookup may not be called in this response");
      },
      { maxTurns: 2 },
    );
  });

  it("ends incomplete at the request's max_output_tokens, as OpenAI does, without continuing the cut answer", async () => {
    const cut = mockTurn.text("The first half of", { stopReason: "max_tokens" });
    await withServer({ turns: [cut, mockTurn.text("the rest.")] }, async ({ client, mock }) => {
      const response = await client().responses.create({
        model: "openai/gpt-5",
        input: "Write at length.",
        max_output_tokens: 16,
      });
      expect(response.status).toBe("incomplete");
      expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
      expect(response.output_text).toBe("The first half of");
      expect(mock.requests).toHaveLength(1);
    });
  });

  it("does not take a run's session, or any id it did not issue, as a previous response", async () => {
    await withServer({ turns: [mockTurn.text("first"), mockTurn.text("second")] }, async ({ client }) => {
      const openai = client();
      const first = await openai.responses.create({ model: "openai/gpt-5", input: "hi" });
      for (const id of [`${first.id}-run`, "../etc", first.id.toUpperCase()]) {
        await expect(
          openai.responses.create({ model: "openai/gpt-5", input: "x", previous_response_id: id }),
        ).rejects.toMatchObject({
          status: 400,
          code: "previous_response_not_found",
        });
        await expect(openai.responses.retrieve(id)).rejects.toMatchObject({ status: 404 });
      }
    });
  });
});

describe.each(UPSTREAMS)("gyre serve call settings with the $name upstream", (upstream) => {
  it("streams a function call's arguments and passes parallel_tool_calls: false upstream", async () => {
    await withServer(
      { turns: [mockTurn.toolUse("lookup", { word: "gyre" }, { id: "call_l1" })] },
      async ({ client, mock }) => {
        const events: ResponseStreamEvent[] = [];
        const stream = client().responses.stream({
          model: upstream.model,
          input: "Look up gyre.",
          tools: [lookupTool],
          parallel_tool_calls: false,
        });
        for await (const event of stream) events.push(event);
        const types = events.map((event) => event.type);
        expect(types[0]).toBe("response.created");
        expect(types).toContain("response.function_call_arguments.delta");
        expect(types.slice(-3)).toEqual([
          "response.function_call_arguments.done",
          "response.output_item.done",
          "response.completed",
        ]);
        const args = events.flatMap((event) =>
          event.type === "response.function_call_arguments.delta" ? [event.delta] : [],
        );
        expect(JSON.parse(args.join(""))).toEqual({ word: "gyre" });
        const final = await stream.finalResponse();
        expect(final.output).toMatchObject([
          { type: "function_call", call_id: "call_l1", name: "lookup", arguments: args.join("") },
        ]);
        const body = upstreamBody(mock, 0);
        if (upstream.name === "anthropic") expect(body.tool_choice).toMatchObject({ disable_parallel_tool_use: true });
        else expect(body.parallel_tool_calls).toBe(false);
      },
    );
  });

  it("answers an upstream failure with 502 and the upstream's message", async () => {
    const script = {
      turns: [mockTurn.text("never", { faults: [mockFault.http(400, "upstream says the request is bad")] })],
    };
    await withServer(script, async ({ client }) => {
      await expect(client().responses.create({ model: upstream.model, input: "hi" })).rejects.toMatchObject({
        status: 502,
        message: expect.stringContaining("upstream says the request is bad"),
      });
    });
  });
});

describe("gyre serve on PostgreSQL", () => {
  it("lets two instances on one database continue and delete each other's responses", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("lookup", { word: "tide" }, { id: "call_pg" }),
        mockTurn.text("Tide: the sea rising and falling."),
      ],
    };
    await withTwoServersOnPostgres(script, async ({ mock, onA, onB }) => {
      const first = await onA.responses.create({ model: "openai/gpt-5", input: "Define tide.", tools: [lookupTool] });
      expect(first.output).toMatchObject([{ type: "function_call", call_id: "call_pg" }]);
      const second = await onB.responses.create({
        model: "openai/gpt-5",
        previous_response_id: first.id,
        input: [{ type: "function_call_output", call_id: "call_pg", output: "tide: periodic sea level change" }],
        tools: [lookupTool],
      });
      expect(second.output_text).toBe("Tide: the sea rising and falling.");
      expect(JSON.stringify(upstreamBody(mock, 1))).toContain("periodic sea level change");
      expect((await onA.responses.retrieve(second.id)).output_text).toBe(second.output_text);
      await onB.responses.delete(first.id);
      await expect(onA.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
    });
  });
});
