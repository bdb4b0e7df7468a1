import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type McpStdioServerConfig, type SDKMessage, query } from "../src/index.js";
import { mockFault, mockTurn } from "../src/testing/index.js";
// @ts-expect-error -- a plain ES module fixture without types; only its constant is read.
import { PIXEL_PNG } from "./fixtures/mcp-test-server.mjs";
import { FORMATS, mockEnv, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { initOf, processesWith, TEST_SERVER, testServer as fixtureServer, text } from "./mcp-support.js";

const anthropic = FORMATS[0];
const EVERYTHING = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");

/** server-everything over stdio; `marker` (an argument it ignores) finds its process in /proc. */
function everything(marker: string): McpStdioServerConfig {
  return { command: process.execPath, args: [EVERYTHING, "stdio", marker] };
}

const testServer = fixtureServer();

describe("stdio MCP servers", () => {
  it("server-everything: connected in init, its tools listed, echo called through the loop; no process left", async () => {
    const marker = `gyre-mcp-test-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const script = {
      turns: [mockTurn.toolUse("mcp__everything__echo", { message: "hello over stdio" }), mockTurn.text("echoed")],
    };
    await withMock(script, async (server) => {
      const messages: SDKMessage[] = [];
      let runningPids: number[] = [];
      const q = query({
        prompt: "echo it",
        options: {
          model: anthropic.model,
          env: mockEnv(server),
          persistSession: false,
          tools: [],
          mcpServers: { everything: everything(marker) },
          allowedTools: ["mcp__everything__echo"],
        },
      });
      for await (const message of q) {
        if (message.type === "system" && message.subtype === "init") runningPids = processesWith(marker);
        messages.push(message);
      }
      const init = initOf(messages);
      expect(init.mcp_servers).toEqual([{ name: "everything", status: "connected" }]);
      expect(init.tools).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum"]));
      expect(runningPids).toHaveLength(1);
      expect(text(toolResults(messages)[0]?.content)).toContain("hello over stdio");
      expect(toolResults(messages)[0]?.is_error).toBeUndefined();
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "echoed" });
      // The run's end closed the client and ended the child.
      expect(processesWith(marker)).toEqual([]);
    });
  });

  it("servers are closed when the run ends in an error, too", async () => {
    const marker = `gyre-mcp-error-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const turns = [mockTurn.text("never", { faults: [mockFault.http(401, "bad key")] })];
    await withMock({ turns }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", {
        tools: [],
        mcpServers: { test: { command: process.execPath, args: [TEST_SERVER, marker] } },
        maxRetries: 0,
      });
      expect(initOf(messages).mcp_servers).toEqual([{ name: "test", status: "connected" }]);
      expect(resultOf(messages)).toMatchObject({ is_error: true });
      expect(processesWith(marker)).toEqual([]);
    });
  });

  it("a command that does not exist is failed with its error; the run still completes", async () => {
    await withMock({ turns: [mockTurn.text("fine without it")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", {
        tools: [],
        mcpServers: {
          missing: { command: "/nonexistent/gyre-no-such-mcp-server" },
          test: testServer,
        },
      });
      const statuses = initOf(messages).mcp_servers as Array<{ name: string; status: string; error?: string }>;
      expect(statuses).toEqual([
        { name: "missing", status: "failed", error: expect.stringContaining('MCP server "missing"') },
        { name: "test", status: "connected" },
      ]);
      expect(statuses[0]?.error).toContain("ENOENT");
      expect(initOf(messages).tools).not.toContain(expect.stringContaining("mcp__missing"));
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "fine without it" });
    });
  });

  it("a server that exits at start is failed with its stderr", async () => {
    const crashing = { command: process.execPath, args: ["-e", "console.error('no config found'); process.exit(2)"] };
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", { tools: [], mcpServers: { crashing } });
      const [status] = initOf(messages).mcp_servers as Array<{ status: string; error?: string }>;
      expect(status).toMatchObject({ status: "failed" });
      expect(status?.error).toContain("no config found");
    });
  });

  it("an isError result is an is_error tool result", async () => {
    const script = { turns: [mockTurn.toolUse("mcp__test__fail", { why: "disk full" }), mockTurn.text("noted")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "try", {
        tools: [],
        mcpServers: { test: testServer },
        allowedTools: ["mcp__test"],
      });
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true, content: "could not: disk full" });
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    });
  });

  it("an image result reaches the model as an image block", async () => {
    const script = { turns: [mockTurn.toolUse("mcp__test__pixel"), mockTurn.text("a pixel")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "show", {
        tools: [],
        mcpServers: { test: testServer },
        allowedTools: ["mcp__test__pixel"],
      });
      expect(toolResults(messages)[0]?.content).toEqual([
        { type: "text", text: "Here is the pixel." },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL_PNG } },
      ]);
      const body = server.requests[1]?.body as { messages: Array<{ content: unknown }> };
      const sent = JSON.stringify(body.messages.at(-1)?.content);
      expect(sent).toContain('"type":"image"');
      expect(sent).toContain(PIXEL_PNG);
    });
  });

  it("a readOnlyHint tool runs without a rule; the server's own process is gone after the run", async () => {
    const turns = [
      mockTurn.toolUse("mcp__test__add", { a: 2, b: 3 }),
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.text("done"),
    ];
    await withMock({ turns }, async (server) => {
      const messages = await runQuery(server, anthropic, "add", {
        tools: [],
        mcpServers: { test: testServer },
        allowedTools: ["mcp__test__pid"],
        permissionMode: "dontAsk",
      });
      const [sum, pid] = toolResults(messages);
      expect(sum).toMatchObject({ content: "5" });
      const childPid = Number(pid?.content);
      expect(childPid).toBeGreaterThan(0);
      expect(processesWith(TEST_SERVER).filter((p) => p === childPid)).toEqual([]);
    });
  });

  it("a stdio server gets a minimal environment plus its env: none of the caller's secrets", async () => {
    process.env.GYRE_MCP_TEST_SECRET = "do-not-leak";
    try {
      await withMock({ turns: [mockTurn.toolUse("mcp__test__env"), mockTurn.text("ok")] }, async (server) => {
        const messages = await runQuery(server, anthropic, "env", {
          tools: [],
          mcpServers: { test: { ...testServer, env: { GIVEN: "yes" } } },
          allowedTools: ["mcp__test__env"],
        });
        const names = text(toolResults(messages)[0]?.content).split(",");
        expect(names).toContain("GIVEN");
        expect(names).toContain("PATH");
        expect(names).not.toContain("GYRE_MCP_TEST_SECRET");
        expect(names).not.toContain("GYRE_HOME");
      });
    } finally {
      delete process.env.GYRE_MCP_TEST_SECRET;
    }
  });

  it("a server that dies mid-call gives an is_error result naming the server and tool; the run goes on", async () => {
    const script = { turns: [mockTurn.toolUse("mcp__test__crash"), mockTurn.text("it crashed")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "crash", {
        tools: [],
        mcpServers: { test: testServer },
        allowedTools: ["mcp__test"],
      });
      const [result] = toolResults(messages);
      expect(result).toMatchObject({ is_error: true });
      expect(text(result?.content)).toContain('MCP server "test": tool "crash" failed');
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "it crashed" });
    });
  });
});
