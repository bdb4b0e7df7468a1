import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createServer, loadServerConfig } from "../src/server/index.js";
import { mockTurn } from "../src/testing/index.js";
import { offeredTools } from "./serve-mcp-support.js";
import { upstreamBody, UPSTREAMS, weatherTool, withServer } from "./serve-support.js";

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A workspace with a file in it, and a secret outside it. */
function workspace(): { dir: string; outside: string } {
  const root = mkdtempSync(join(tmpdir(), "gyre-serve-tools-"));
  folders.push(root);
  const dir = join(root, "workspace");
  mkdirSync(dir);
  writeFileSync(join(dir, "notes.txt"), "The launch code is in the vault.\n");
  const outside = join(root, "secret.txt");
  writeFileSync(outside, "TOP-SECRET-VALUE\n");
  return { dir, outside };
}

describe.each(UPSTREAMS)("gyre serve's tools with the $name upstream", (upstream) => {
  it("runs the operator's built-in tools server-side and returns the client's calls of the same turn", async () => {
    const { dir } = workspace();
    const turns = [
      mockTurn.of([
        { type: "tool_use", name: "Read", input: { file_path: join(dir, "notes.txt") } },
        { type: "tool_use", name: "get_weather", input: { city: "Paris" } },
      ]),
      mockTurn.text("The code is in the vault, and Paris is sunny."),
    ];
    await withServer(
      { turns },
      async ({ client, mock }) => {
        const openai = client();
        const first = await openai.responses.create({
          model: upstream.model,
          input: "Read and check.",
          tools: [weatherTool],
        });
        expect(first.status).toBe("completed");
        expect(first.output.map((item) => [item.type, "name" in item ? item.name : undefined])).toEqual([
          ["function_call", "Read"],
          ["function_call", "get_weather"],
          ["function_call_output", undefined],
        ]);
        const read = first.output[0] as { call_id: string };
        const output = first.output[2] as unknown as { call_id: string; output: string; status: string };
        expect(output.call_id).toBe(read.call_id);
        expect(output.status).toBe("completed");
        expect(output.output).toContain("The launch code is in the vault.");
        expect(mock.requests).toHaveLength(1);
        expect(offeredTools(upstreamBody(mock, 0)).sort()).toEqual(["Grep", "Read", "get_weather"]);
        const weather = first.output[1] as { call_id: string };
        const second = await openai.responses.create({
          model: upstream.model,
          previous_response_id: first.id,
          input: [{ type: "function_call_output", call_id: weather.call_id, output: "sunny" }],
          tools: [weatherTool],
        });
        expect(second.output_text).toBe("The code is in the vault, and Paris is sunny.");
        const sent = JSON.stringify(upstreamBody(mock, 1));
        expect(sent).toContain("sunny");
        expect(sent).toContain("The launch code is in the vault.");
      },
      { tools: ["Read", "Grep"], workspace: dir },
    );
  });
});

describe("a response that waits on the client's tools", () => {
  it("ends completed with its function_call items, as OpenAI answers; requires_action when the config says so", async () => {
    const { dir } = workspace();
    const turns = [
      mockTurn.of([
        { type: "tool_use", name: "Read", input: { file_path: join(dir, "notes.txt") } },
        { type: "tool_use", name: "get_weather", input: { city: "Paris" } },
      ]),
      mockTurn.text("Sunny."),
    ];
    const model = UPSTREAMS[0]!.model;
    for (const clientToolStatus of [undefined, "requires_action"] as const) {
      await withServer(
        { turns },
        async ({ client }) => {
          const openai = client();
          const events: string[] = [];
          const stream = openai.responses.stream({ model, input: "Check.", tools: [weatherTool] });
          for await (const event of stream) events.push(event.type);
          const first = await stream.finalResponse();
          expect(first.status as string).toBe(clientToolStatus ?? "completed");
          expect(events.at(-1)).toBe("response.completed");
          expect((await openai.responses.retrieve(first.id)).status as string).toBe(clientToolStatus ?? "completed");
          const weather = first.output.find((item) => item.type === "function_call" && item.name === "get_weather");
          const second = await openai.responses.create({
            model,
            previous_response_id: first.id,
            input: [
              { type: "function_call_output", call_id: (weather as { call_id: string }).call_id, output: "sunny" },
            ],
            tools: [weatherTool],
          });
          expect(second.status).toBe("completed");
          expect(second.output_text).toBe("Sunny.");
        },
        { tools: ["Read"], workspace: dir, ...(clientToolStatus && { clientToolStatus }) },
      );
    }
  });

  it("keeps completed when the config says requires_action but nothing waits on the client", async () => {
    await withServer(
      { turns: [mockTurn.text("Hello.")] },
      async ({ client }) => {
        const answer = await client().responses.create({ model: UPSTREAMS[0]!.model, input: "Hi." });
        expect(answer.status).toBe("completed");
      },
      { clientToolStatus: "requires_action" },
    );
  });
});

describe("gyre serve's built-in tools", () => {
  it("refuses what the operator's rules do not allow: a read outside the workspace, a denied tool", async () => {
    const { dir, outside } = workspace();
    const turns = [
      mockTurn.toolUse("Read", { file_path: outside }),
      mockTurn.toolUse("Read", { file_path: join(dir, "notes.txt") }),
      mockTurn.text("Nothing for you."),
    ];
    await withServer(
      { turns },
      async ({ client, mock }) => {
        const response = await client().responses.create({ model: "anthropic/claude-sonnet-4-5", input: "Read it." });
        const outputs = response.output.filter((item) => item.type === "function_call_output") as unknown as Array<{
          output: string;
          status: string;
        }>;
        expect(outputs.map((item) => item.status)).toEqual(["failed", "failed"]);
        const everything = JSON.stringify(response) + JSON.stringify(mock.requests.map((request) => request.body));
        expect(everything).not.toContain("TOP-SECRET-VALUE");
        expect(everything).not.toContain("The launch code");
        expect(offeredTools(upstreamBody(mock, 0))).toEqual(["Read"]);
      },
      { tools: ["Read"], workspace: dir, permissions: { deny: ["Read(notes.txt)"] } },
    );
  });

  it("keeps Bash off unless the sandbox is on, and checks the config's tools", async () => {
    expect(() => createServer({ tools: ["Read", "Bash"] })).toThrow(/sandbox/);
    expect(() => createServer({ tools: ["Bash"], sandbox: { enabled: false } })).toThrow(
      expect.objectContaining({ code: "config_error" }),
    );
    const { dir } = workspace();
    const file = join(dir, "serve.yaml");
    writeFileSync(file, "tools: [Read, Shell]\n");
    await expect(loadServerConfig(file)).rejects.toMatchObject({ code: "config_error" });
    writeFileSync(file, `tools: [Read, Grep, Glob]\nworkspace: ${dir}\npermissions:\n  deny: ["Read(./private/**)"]\n`);
    await expect(loadServerConfig(file)).resolves.toMatchObject({ tools: ["Read", "Grep", "Glob"], workspace: dir });
  });

  it("streams a built-in call's function_call and its output item, then the answer", async () => {
    const { dir } = workspace();
    const turns = [mockTurn.toolUse("Grep", { pattern: "launch", path: dir }), mockTurn.text("Found it.")];
    await withServer(
      { turns },
      async ({ client }) => {
        const items: Array<{ type: string; status?: string }> = [];
        const stream = client().responses.stream({ model: "openai/gpt-5", input: "Find launch." });
        for await (const event of stream)
          if (event.type === "response.output_item.done") items.push(event.item as { type: string; status?: string });
        const final = await stream.finalResponse();
        expect(items.map((item) => item.type)).toEqual(["function_call", "function_call_output", "message"]);
        expect(items[1]).toMatchObject({ status: "completed" });
        expect(final.output_text).toBe("Found it.");
        expect(final.output).toHaveLength(3);
      },
      { tools: ["Grep"], workspace: dir },
    );
  });

  it("runs Bash inside the OS sandbox when the config enables both", async () => {
    const { dir } = workspace();
    const outside = mkdtempSync("/var/tmp/gyre-serve-out-");
    folders.push(outside);
    const command = `cat notes.txt; touch ${outside}/escaped; echo exit=$?`;
    const turns = [mockTurn.toolUse("Bash", { command }), mockTurn.text("Ran it.")];
    await withServer(
      { turns },
      async ({ client }) => {
        const response = await client().responses.create({ model: "anthropic/claude-sonnet-4-5", input: "Run." });
        const output = response.output.find((item) => item.type === "function_call_output") as unknown as {
          output: string;
        };
        expect(output.output).toContain("The launch code is in the vault.");
        expect(output.output).not.toContain("exit=0");
        expect(existsSync(join(outside, "escaped"))).toBe(false);
        expect(response.output_text).toBe("Ran it.");
      },
      { tools: ["Bash"], workspace: dir, sandbox: { enabled: true } },
    );
  });

  it("refuses a client tool named like one the server runs", async () => {
    const { dir } = workspace();
    await withServer(
      { turns: [mockTurn.text("never")] },
      async ({ client }) => {
        const error = await client()
          .responses.create({
            model: "anthropic/claude-sonnet-4-5",
            input: "Hi.",
            tools: [{ ...weatherTool, name: "Read" }],
          })
          .catch((caught: unknown) => caught);
        expect(error).toMatchObject({ status: 400, param: "tools" });
      },
      { tools: ["Read"], workspace: dir },
    );
  });
});
