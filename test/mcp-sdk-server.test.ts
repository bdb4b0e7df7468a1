import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSdkMcpServer, query, type SDKMessage, tool } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, mockEnv, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { initOf } from "./mcp-support.js";

const anthropic = FORMATS[0];

function calcServer(calls: Array<{ a: number; b: number }> = []) {
  return createSdkMcpServer({
    name: "calc",
    version: "2.0.0",
    tools: [
      tool("add", "Add two numbers.", { a: z.number(), b: z.number() }, async ({ a, b }) => {
        calls.push({ a, b });
        return { content: [{ type: "text", text: String(a + b) }] };
      }),
      tool("peek", "Read the memory.", {}, async () => ({ content: [{ type: "text", text: "memory: 0" }] }), {
        annotations: { readOnlyHint: true },
      }),
    ],
  });
}

describe("in-process MCP servers (createSdkMcpServer, tool)", () => {
  it("the model calls mcp__calc__add through the loop and gets 5 back", async () => {
    const calls: Array<{ a: number; b: number }> = [];
    const script = { turns: [mockTurn.toolUse("mcp__calc__add", { a: 2, b: 3 }), mockTurn.text("It is 5.")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "2+3?", {
        tools: [],
        mcpServers: { calc: calcServer(calls) },
        allowedTools: ["mcp__calc__add"],
      });
      expect(initOf(messages).mcp_servers).toEqual([{ name: "calc", status: "connected" }]);
      expect(initOf(messages).tools).toEqual(["mcp__calc__add", "mcp__calc__peek"]);
      expect(calls).toEqual([{ a: 2, b: 3 }]);
      expect(toolResults(messages)).toEqual([expect.objectContaining({ content: "5" })]);
      expect(toolResults(messages)[0]?.is_error).toBeUndefined();
      expect(JSON.stringify(server.requests[1]?.body)).toContain('"5"');
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "It is 5." });
    });
  });

  it("offers the server's input JSON Schema to the model unchanged", async () => {
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      await runQuery(server, anthropic, "hi", { tools: [], mcpServers: { calc: calcServer() } });
      const body = server.requests[0]?.body as { tools: Array<{ name: string; input_schema: unknown }> };
      const add = body.tools.find((t) => t.name === "mcp__calc__add");
      expect(add?.input_schema).toMatchObject({
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      });
    });
  });

  it("checks input against that schema before calling the server", async () => {
    const calls: Array<{ a: number; b: number }> = [];
    const script = { turns: [mockTurn.toolUse("mcp__calc__add", { a: "two" }), mockTurn.text("sorry")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "2+3?", {
        tools: [],
        mcpServers: { calc: calcServer(calls) },
        allowedTools: ["mcp__calc"],
      });
      expect(calls).toEqual([]);
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(String(toolResults(messages)[0]?.content)).toContain("InputValidationError");
    });
  });

  describe("permissions apply as to any tool", () => {
    const script = () => ({ turns: [mockTurn.toolUse("mcp__calc__add", { a: 2, b: 3 }), mockTurn.text("done")] });

    it("a tool no rule allows is denied in dontAsk mode, and the server is never called", async () => {
      const calls: Array<{ a: number; b: number }> = [];
      await withMock(script(), async (server) => {
        const messages = await runQuery(server, anthropic, "2+3?", {
          tools: [],
          mcpServers: { calc: calcServer(calls) },
          permissionMode: "dontAsk",
        });
        expect(calls).toEqual([]);
        expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
        expect(resultOf(messages).permission_denials).toEqual([
          expect.objectContaining({ tool_name: "mcp__calc__add" }),
        ]);
      });
    });

    it("without annotations a tool is not read-only: with no rule and no canUseTool it is denied", async () => {
      const calls: Array<{ a: number; b: number }> = [];
      await withMock(script(), async (server) => {
        const messages = await runQuery(server, anthropic, "2+3?", {
          tools: [],
          mcpServers: { calc: calcServer(calls) },
        });
        expect(calls).toEqual([]);
        expect(resultOf(messages).permission_denials).toHaveLength(1);
      });
    });

    it.each([["mcp__calc"], ["mcp__calc__*"], ["mcp__calc__add"]])("the rule %s allows it", async (rule) => {
      const calls: Array<{ a: number; b: number }> = [];
      await withMock(script(), async (server) => {
        const messages = await runQuery(server, anthropic, "2+3?", {
          tools: [],
          mcpServers: { calc: calcServer(calls) },
          allowedTools: [rule],
          permissionMode: "dontAsk",
        });
        expect(calls).toEqual([{ a: 2, b: 3 }]);
        expect(toolResults(messages)[0]).toMatchObject({ content: "5" });
      });
    });

    it("a rule for another tool or server does not", async () => {
      const calls: Array<{ a: number; b: number }> = [];
      await withMock(script(), async (server) => {
        await runQuery(server, anthropic, "2+3?", {
          tools: [],
          mcpServers: { calc: calcServer(calls) },
          allowedTools: ["mcp__calc__peek", "mcp__calculator", "mcp__cal"],
          permissionMode: "dontAsk",
        });
        expect(calls).toEqual([]);
      });
    });

    it("a deny rule for the server wins over an allow rule for the tool", async () => {
      const calls: Array<{ a: number; b: number }> = [];
      await withMock(script(), async (server) => {
        await runQuery(server, anthropic, "2+3?", {
          tools: [],
          mcpServers: { calc: calcServer(calls) },
          allowedTools: ["mcp__calc__add"],
          disallowedTools: ["mcp__calc"],
        });
        expect(calls).toEqual([]);
      });
    });

    it("disallowedTools naming the server hides its tools from the model", async () => {
      await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
        const messages = await runQuery(server, anthropic, "hi", {
          tools: [],
          mcpServers: { calc: calcServer() },
          disallowedTools: ["mcp__calc__add"],
        });
        expect(initOf(messages).tools).toEqual(["mcp__calc__peek"]);
        const hidden = await runQuery(server, anthropic, "hi", {
          tools: [],
          mcpServers: { calc: calcServer() },
          disallowedTools: ["mcp__calc"],
        });
        expect(initOf(hidden).tools).toEqual([]);
      });
    });

    it("a readOnlyHint tool runs without a rule; PreToolUse and PostToolUse hooks see MCP calls and their server", async () => {
      const seen: string[] = [];
      const hook = async (input: unknown) => {
        const { hook_event_name, tool_name, mcp_server } = input as Record<string, string>;
        seen.push(`${hook_event_name} ${tool_name} ${mcp_server}`);
        return {};
      };
      await withMock({ turns: [mockTurn.toolUse("mcp__calc__peek"), mockTurn.text("done")] }, async (server) => {
        const messages = await runQuery(server, anthropic, "peek", {
          tools: [],
          mcpServers: { calc: calcServer() },
          permissionMode: "dontAsk",
          hooks: {
            PreToolUse: [{ matcher: "mcp__calc__.*", hooks: [hook] }],
            PostToolUse: [{ matcher: "mcp__calc__.*", hooks: [hook] }],
          },
        });
        expect(seen).toEqual(["PreToolUse mcp__calc__peek calc", "PostToolUse mcp__calc__peek calc"]);
        expect(toolResults(messages)[0]).toMatchObject({ content: "memory: 0" });
      });
    });
  });

  it("a handler that throws gives an is_error result; the run goes on", async () => {
    const broken = createSdkMcpServer({
      name: "broken",
      tools: [
        tool("boom", "Fails.", {}, async () => {
          throw new Error("kaput");
        }),
      ],
    });
    await withMock({ turns: [mockTurn.toolUse("mcp__broken__boom"), mockTurn.text("oh well")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "boom", {
        tools: [],
        mcpServers: { broken },
        allowedTools: ["mcp__broken"],
      });
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(String(toolResults(messages)[0]?.content)).toContain("kaput");
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "oh well" });
    });
  });

  it("interrupting the run cancels a running call: the server's handler sees its signal abort", async () => {
    let started: () => void = () => {};
    const running = new Promise<void>((done) => {
      started = done;
    });
    let cancelled: () => void = () => {};
    const serverSawAbort = new Promise<void>((done) => {
      cancelled = done;
    });
    const slow = createSdkMcpServer({
      name: "slow",
      tools: [
        tool("wait", "Waits until cancelled.", {}, (_args, extra) => {
          const { signal } = extra as { signal: AbortSignal };
          signal.addEventListener("abort", () => cancelled());
          started();
          return new Promise(() => {});
        }),
      ],
    });
    await withMock({ turns: [mockTurn.toolUse("mcp__slow__wait"), mockTurn.text("never")] }, async (server) => {
      const q = query({
        prompt: "wait",
        options: {
          model: anthropic.model,
          env: mockEnv(server),
          persistSession: false,
          tools: [],
          mcpServers: { slow },
          allowedTools: ["mcp__slow"],
        },
      });
      void running.then(() => q.interrupt());
      const messages: SDKMessage[] = [];
      for await (const message of q) messages.push(message);
      await serverSawAbort;
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(String(toolResults(messages)[0]?.content)).toContain("interrupted");
      expect(resultOf(messages).terminal_reason).toBe("interrupted");
    });
  });

  it("the same server instance serves one run after another", async () => {
    const calc = calcServer();
    for (let i = 0; i < 2; i++) {
      await withMock({ turns: [mockTurn.toolUse("mcp__calc__peek"), mockTurn.text("done")] }, async (server) => {
        const messages = await runQuery(server, anthropic, "peek", { tools: [], mcpServers: { calc } });
        expect(initOf(messages).mcp_servers).toEqual([{ name: "calc", status: "connected" }]);
        expect(toolResults(messages)[0]).toMatchObject({ content: "memory: 0" });
      });
    }
  });
  it("two runs at the same time share one createSdkMcpServer: both connected, one waits on the other's call", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const latch = createSdkMcpServer({
      name: "latch",
      tools: [
        tool("wait", "Wait until released.", {}, async () => {
          await released;
          return { content: [{ type: "text", text: "released" }] };
        }),
        tool("release", "Release the waiter.", {}, async () => {
          release();
          return { content: [{ type: "text", text: "done" }] };
        }),
      ],
    });
    const options = { tools: [], mcpServers: { latch }, permissionMode: "bypassPermissions" as const };
    await withMock({ turns: [mockTurn.toolUse("mcp__latch__wait"), mockTurn.text("A")] }, (a) =>
      withMock({ turns: [mockTurn.toolUse("mcp__latch__release"), mockTurn.text("B")] }, async (b) => {
        // Run A's call returns only once run B's call has run: B must connect while A is connected.
        const [first, second] = await Promise.all([
          runQuery(a, anthropic, "wait", options),
          runQuery(b, anthropic, "release", options),
        ]);
        for (const messages of [first, second])
          expect(initOf(messages).mcp_servers).toEqual([{ name: "latch", status: "connected" }]);
        expect(toolResults(first)[0]).toMatchObject({ content: "released" });
        expect(toolResults(second)[0]).toMatchObject({ content: "done" });
      }),
    );
  });

  it("an McpServer of the caller's serves one run at a time: a second run at the same time gets a clear failure", async () => {
    const own = new McpServer({ name: "own", version: "1.0.0" });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let waiting = false;
    own.registerTool("wait", { description: "Wait." }, async () => {
      waiting = true;
      await released;
      return { content: [{ type: "text", text: "released" }] };
    });
    const config = { type: "sdk" as const, name: "own", instance: own };
    const options = { tools: [], mcpServers: { own: config }, permissionMode: "bypassPermissions" as const };
    await withMock({ turns: [mockTurn.toolUse("mcp__own__wait"), mockTurn.text("A")] }, (a) =>
      withMock({ turns: [mockTurn.text("B")] }, async (b) => {
        const first = runQuery(a, anthropic, "wait", options);
        // Wait until run A's call reached the server, then start run B.
        while (!waiting) await new Promise((r) => setImmediate(r));
        const second = await runQuery(b, anthropic, "hi", options);
        release();
        expect(initOf(second).mcp_servers).toEqual([
          expect.objectContaining({
            name: "own",
            status: "failed",
            error: expect.stringContaining("serving another run"),
          }),
        ]);
        expect(toolResults(await first)[0]).toMatchObject({ content: "released" });
      }),
    );
  });
});

describe("streamable HTTP MCP servers", () => {
  let http: Server;
  let url: string;
  const headersSeen: Array<string | undefined> = [];

  beforeAll(async () => {
    // Stateless: every request gets its own server and transport, as the MCP SDK's examples do.
    http = createServer((req, res) => {
      headersSeen.push(req.headers["x-token"] as string | undefined);
      const mcp = new McpServer({ name: "http-calc", version: "0.0.1" });
      mcp.registerTool(
        "mul",
        { description: "Multiply.", inputSchema: { a: z.number(), b: z.number() } },
        async ({ a, b }) => ({ content: [{ type: "text", text: String(a * b) }] }),
      );
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void mcp.close();
      });
      void mcp.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((done) => http.close(done));
  });

  it("connects, sends the headers, and calls a tool through the loop", async () => {
    const script = { turns: [mockTurn.toolUse("mcp__remote__mul", { a: 6, b: 7 }), mockTurn.text("42")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "6*7?", {
        tools: [],
        mcpServers: { remote: { type: "http", url, headers: { "x-token": "secret-1" } } },
        allowedTools: ["mcp__remote"],
      });
      expect(initOf(messages).mcp_servers).toEqual([{ name: "remote", status: "connected" }]);
      expect(toolResults(messages)[0]).toMatchObject({ content: "42" });
      expect(headersSeen).toContain("secret-1");
    });
  });

  it("a server that is not there is failed with its error; the run completes", async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    await withMock({ turns: [mockTurn.text("fine")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", {
        tools: [],
        mcpServers: { gone: { type: "http", url: `http://127.0.0.1:${port}/mcp` } },
      });
      const [status] = initOf(messages).mcp_servers as Array<{ name: string; status: string; error?: string }>;
      expect(status).toMatchObject({ name: "gone", status: "failed" });
      expect(status?.error).toBeTruthy();
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "fine" });
    });
  });
});
