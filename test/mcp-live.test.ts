import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createSdkMcpServer,
  isGyreError,
  type Query,
  query,
  type QueryOptions,
  type SDKMessage,
  tool,
} from "../src/index.js";
import { type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { FORMATS, type Format, mockEnv, resultOf, toolResults, withMock } from "./helpers.js";
import { initOf, offeredTools, sentToolResults, testServer, text } from "./mcp-support.js";

/** The Anthropic and the OpenAI (Responses) wire formats. */
const WIRE_FORMATS = [FORMATS[0], FORMATS[1]] as const;

/** A query over the fixture server `test`; every tool of it allowed unless `options` say otherwise. */
function start(server: MockLLMServer, format: Format, options: QueryOptions = {}): Query {
  return query({
    prompt: "use the server",
    options: {
      model: format.model,
      env: mockEnv(server),
      persistSession: false,
      tools: [],
      // The tests repeat a call on purpose: the doom-loop check stays out of the way.
      doomLoopThreshold: 100,
      mcpServers: { test: testServer() },
      allowedTools: ["mcp__test"],
      ...options,
    },
  });
}

async function drain(q: Query): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of q) messages.push(message);
  return messages;
}

const testTools = (body: unknown) => offeredTools(body).filter((name) => name.startsWith("mcp__test__"));

describe.each(WIRE_FORMATS)("notifications/tools/list_changed ($name)", (format) => {
  it("the new tool list is offered from the next model call on, and the new tool can be called", async () => {
    const turns = [
      mockTurn.toolUse("mcp__test__add", { a: 1, b: 1 }),
      mockTurn.toolUse("mcp__test__learn"),
      mockTurn.toolUse("mcp__test__shout", { text: "hi" }),
      mockTurn.toolUse("mcp__test__fail", { why: "gone" }),
      mockTurn.text("done"),
    ];
    await withMock({ turns }, async (server) => {
      const messages = await drain(start(server, format));
      const [first, second, third] = server.requests.map((request) => testTools(request.body));
      // Nothing changed between the first two calls: the same list, in the same order (prompt cache).
      expect(second).toEqual(first);
      expect(first).toContain("mcp__test__fail");
      expect(first).not.toContain("mcp__test__shout");
      expect(third).toContain("mcp__test__shout");
      expect(third).not.toContain("mcp__test__fail");
      const results = toolResults(messages);
      expect(results[1]).toMatchObject({ content: "learned shout, forgot fail" });
      expect(results[2]).toMatchObject({ content: "HI" });
      expect(sentToolResults(server.requests[3]?.body)).toContain("HI");
      // A tool the server took back is unknown now.
      expect(results[3]?.is_error).toBe(true);
      expect(text(results[3]?.content)).toContain("mcp__test__fail");
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    });
  });
});

describe("disallowedTools and tools that arrive later", () => {
  it("a tool the rules hide is not offered when the server adds it, and cannot be called", async () => {
    const turns = [
      mockTurn.toolUse("mcp__test__learn"),
      mockTurn.toolUse("mcp__test__shout", { text: "hi" }),
      mockTurn.text("done"),
    ];
    await withMock({ turns }, async (server) => {
      const messages = await drain(start(server, FORMATS[0], { disallowedTools: ["mcp__test__shout"] }));
      expect(testTools(server.requests[1]?.body)).not.toContain("mcp__test__shout");
      expect(testTools(server.requests[1]?.body)).not.toContain("mcp__test__fail");
      const [, shout] = toolResults(messages);
      expect(shout?.is_error).toBe(true);
      expect(text(shout?.content)).not.toContain("HI");
    });
  });
});

describe.each(WIRE_FORMATS)("toggleMcpServer and reconnectMcpServer ($name)", (format) => {
  it("off: its tools are withdrawn, a call names the server as unavailable, status disabled; on: back", async () => {
    const turns = [
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.text("done"),
    ];
    await withMock({ turns }, async (server) => {
      const statuses: unknown[] = [];
      let calls = 0;
      // Permission prompts are the test's hook into the run, before each call.
      const q: Query = start(server, format, {
        allowedTools: [],
        canUseTool: async (_name, input) => {
          calls++;
          if (calls === 2) await q.toggleMcpServer("test", false);
          if (calls === 3) await q.toggleMcpServer("test", true);
          statuses.push((await q.mcpServerStatus())[0]?.status);
          return { behavior: "allow", updatedInput: input };
        },
      });
      const messages = await drain(q);
      expect(statuses).toEqual(["connected", "disabled", "connected"]);
      const [before, off, on] = toolResults(messages);
      expect(Number(before?.content)).toBeGreaterThan(0);
      expect(off).toMatchObject({ is_error: true });
      expect(text(off?.content)).toContain('MCP server "test" is unavailable: it is disabled');
      expect(sentToolResults(server.requests[2]?.body).join("\n")).toContain('MCP server "test" is unavailable');
      // Turned off before the second call: the third request offered none of its tools; back for the fourth.
      expect(testTools(server.requests[2]?.body)).toEqual([]);
      expect(testTools(server.requests[3]?.body)).toContain("mcp__test__pid");
      expect(Number(on?.content)).toBeGreaterThan(0);
      expect(on?.content).not.toBe(before?.content);
    });
  });

  it("reconnect restarts the server (a new process); an unknown name is a config_error", async () => {
    const turns = [mockTurn.toolUse("mcp__test__pid"), mockTurn.toolUse("mcp__test__pid"), mockTurn.text("done")];
    await withMock({ turns }, async (server) => {
      let calls = 0;
      let unknown: unknown;
      const q: Query = start(server, format, {
        allowedTools: [],
        canUseTool: async (_name, input) => {
          if (++calls === 2) {
            await q.reconnectMcpServer("test");
            unknown = await q.reconnectMcpServer("nope").catch((error: unknown) => error);
          }
          return { behavior: "allow", updatedInput: input };
        },
      });
      const messages = await drain(q);
      const [before, after] = toolResults(messages);
      expect(Number(after?.content)).toBeGreaterThan(0);
      expect(after?.content).not.toBe(before?.content);
      expect(isGyreError(unknown, "config_error")).toBe(true);
      expect((unknown as Error).message).toContain('Unknown MCP server "nope"');
    });
  });
});

describe("in-process servers", () => {
  it("an in-process server reconnects too, and its tools work after", async () => {
    const calc = createSdkMcpServer({
      name: "calc",
      tools: [
        tool("add", "Add two numbers.", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
          content: [{ type: "text", text: String(a + b) }],
        })),
      ],
    });
    const add = (a: number) => mockTurn.toolUse("mcp__calc__add", { a, b: 1 });
    await withMock({ turns: [add(1), add(2), mockTurn.text("done")] }, async (server) => {
      let calls = 0;
      const q: Query = start(server, FORMATS[0], {
        mcpServers: { calc },
        allowedTools: [],
        canUseTool: async (_name, input) => {
          if (++calls === 2) await q.reconnectMcpServer("calc");
          return { behavior: "allow", updatedInput: input };
        },
      });
      const messages = await drain(q);
      expect(toolResults(messages).map((result) => result.content)).toEqual(["2", "3"]);
      expect(await q.mcpServerStatus()).toMatchObject([{ name: "calc", status: "connected" }]);
    });
  });
});

describe("mcpServerStatus", () => {
  it("asked before the run is set up, it waits and gives every server's status and serverInfo", async () => {
    await withMock({ turns: [mockTurn.text("hi")] }, async (server) => {
      const q = start(server, FORMATS[0], {
        mcpServers: { test: testServer(), missing: { command: "/nonexistent/gyre-no-such-server" } },
      });
      const early = q.mcpServerStatus();
      const messages = await drain(q);
      expect(await early).toEqual([
        { name: "test", status: "connected", serverInfo: { name: "gyre-test-server", version: "1.2.3" } },
        { name: "missing", status: "failed", error: expect.stringContaining('MCP server "missing"') },
      ]);
      expect(initOf(messages).mcp_servers).toEqual([
        { name: "test", status: "connected" },
        { name: "missing", status: "failed", error: expect.stringContaining("ENOENT") },
      ]);
    });
  });

  it("a run without MCP servers has none; reconnecting one is a config_error", async () => {
    await withMock({ turns: [mockTurn.text("hi")] }, async (server) => {
      const q = start(server, FORMATS[0], { mcpServers: {} });
      const messages = await drain(q);
      expect(await q.mcpServerStatus()).toEqual([]);
      const error = await q.toggleMcpServer("test", false).catch((caught: unknown) => caught);
      expect(isGyreError(error, "config_error")).toBe(true);
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    });
  });
});
