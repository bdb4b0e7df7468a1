import { type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type McpServerConfig,
  type McpServerStatus,
  type Query,
  query,
  type QueryOptions,
  type SDKMessage,
} from "../src/index.js";
import { type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { FORMATS, type Format, mockEnv, resultOf, toolResults, withMock } from "./helpers.js";
import {
  initOf,
  isRunning,
  offeredTools,
  processesWith,
  sentToolResults,
  TEST_SERVER,
  testServer,
  text,
  uniqueMarker,
  waitUntil,
} from "./mcp-support.js";
import { compileAllForChild, killHard, startLockHolder } from "./sessions-child.js";

/** The Anthropic and the OpenAI (Responses) wire formats. */
const WIRE_FORMATS = [FORMATS[0], FORMATS[1]] as const;

/** Runs a query to its end; returns its messages and the query (for its MCP controls). */
async function runWith(
  server: MockLLMServer,
  format: Format,
  options: QueryOptions,
): Promise<{ messages: SDKMessage[]; q: Query }> {
  const q = query({
    prompt: "use the server",
    // The tests repeat a call on purpose: the doom-loop check stays out of the way.
    options: {
      model: format.model,
      env: mockEnv(server),
      persistSession: false,
      tools: [],
      doomLoopThreshold: 100,
      ...options,
    },
  });
  const messages: SDKMessage[] = [];
  for await (const message of q) messages.push(message);
  return { messages, q };
}

function servers(mcpServers: Record<string, McpServerConfig>): QueryOptions {
  return { mcpServers, allowedTools: Object.keys(mcpServers).map((name) => `mcp__${name}`) };
}

describe.each(WIRE_FORMATS)("a stdio server that fails mid-run ($name)", (format) => {
  it("crashes mid-call: the model gets an is_error result naming server and tool; the next call restarts it", async () => {
    const turns = [
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.toolUse("mcp__test__crash"),
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.text("recovered"),
    ];
    await withMock({ turns }, async (server) => {
      const { messages } = await runWith(server, format, servers({ test: testServer() }));
      const [before, crash, after] = toolResults(messages);
      expect(crash?.is_error).toBe(true);
      const told = text(crash?.content);
      expect(told).toContain('MCP server "test": tool "crash" failed');
      expect(told).toContain("it is restarted at the next call");
      // What the model was sent, in its own wire format.
      expect(sentToolResults(server.requests[2]?.body).join("\n")).toContain('MCP server "test": tool "crash" failed');
      const [first, second] = [Number(before?.content), Number(after?.content)];
      expect(second).toBeGreaterThan(0);
      expect(second).not.toBe(first);
      expect(after?.is_error).toBeUndefined();
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "recovered" });
    });
  });

  it("writes garbage to stdout: an is_error result, and a restarted server for the next call", async () => {
    const turns = [
      mockTurn.toolUse("mcp__test__garbage"),
      mockTurn.toolUse("mcp__test__add", { a: 2, b: 3 }),
      mockTurn.text("ok"),
    ];
    await withMock({ turns }, async (server) => {
      const { messages } = await runWith(server, format, servers({ test: testServer() }));
      const [garbage, sum] = toolResults(messages);
      expect(garbage?.is_error).toBe(true);
      expect(text(garbage?.content)).toContain('MCP server "test": tool "garbage" failed');
      expect(text(garbage?.content)).toContain("it is restarted at the next call");
      expect(sentToolResults(server.requests[1]?.body).join("\n")).toContain("not JSON-RPC");
      expect(sum).toMatchObject({ content: "5" });
      expect(sum?.is_error).toBeUndefined();
    });
  });
});

describe("a stdio server that does not answer", () => {
  it("a hung call times out with an error naming the server's tool; a server that still answers pings is kept", async () => {
    const turns = [
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.toolUse("mcp__test__hang"),
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.text("done"),
    ];
    await withMock({ turns }, async (server) => {
      const { messages } = await runWith(server, FORMATS[0], servers({ test: { ...testServer(), timeout: 3000 } }));
      const [before, hang, after] = toolResults(messages);
      expect(hang).toMatchObject({ is_error: true });
      expect(text(hang?.content)).toContain(`MCP server "test": tool "hang" timed out after 3000 ms`);
      expect(after?.content).toBe(before?.content);
    });
  });

  it("a frozen server (no answer to a ping either) is failed, ended, and restarted at the next call", async () => {
    const turns = [
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.toolUse("mcp__test__freeze"),
      mockTurn.toolUse("mcp__test__pid"),
      mockTurn.text("done"),
    ];
    await withMock({ turns }, async (server) => {
      let calls = 0;
      let statusAfterFreeze: McpServerStatus | undefined;
      // The permission prompt before the third call waits for the ping's verdict (the status), so
      // that the restart, not the wait, is what that call's timeout bounds.
      const canUseTool: QueryOptions["canUseTool"] = async (_name, input) => {
        if (++calls === 3) {
          await waitUntil(async () => (await q.mcpServerStatus())[0]?.status === "failed");
          statusAfterFreeze = (await q.mcpServerStatus())[0];
        }
        return { behavior: "allow", updatedInput: input };
      };
      const q: Query = query({
        prompt: "freeze",
        options: {
          model: FORMATS[1].model,
          env: mockEnv(server),
          persistSession: false,
          tools: [],
          doomLoopThreshold: 100,
          mcpServers: { test: { ...testServer(), timeout: 3000 } },
          canUseTool,
        },
      });
      const messages: SDKMessage[] = [];
      for await (const message of q) messages.push(message);
      const [before, freeze, after] = toolResults(messages);
      expect(text(freeze?.content)).toContain(`MCP server "test": tool "freeze" timed out after 3000 ms`);
      expect(statusAfterFreeze).toEqual({
        name: "test",
        status: "failed",
        error: expect.stringContaining("the server stopped answering"),
      });
      const frozen = Number(before?.content);
      expect(Number(after?.content)).toBeGreaterThan(0);
      expect(Number(after?.content)).not.toBe(frozen);
      await waitUntil(() => !isRunning(frozen));
    });
  });
});

describe("bounded restarts", () => {
  it("after 3 restarts a crashing server stays failed: its tools are withdrawn and a call says it is unavailable", async () => {
    const crash = () => mockTurn.toolUse("mcp__test__crash");
    const turns = [crash(), crash(), crash(), crash(), crash(), mockTurn.text("gave up")];
    await withMock({ turns }, async (server) => {
      const { messages, q } = await runWith(server, FORMATS[0], servers({ test: testServer() }));
      const results = toolResults(messages).map((result) => text(result.content));
      expect(results.slice(0, 3).every((told) => told.includes("it is restarted at the next call"))).toBe(true);
      expect(results[3]).toContain("it is unavailable for the rest of this run");
      expect(results[4]).toContain('MCP server "test" is unavailable');
      expect(results[4]).toContain("the server closed its connection (it exited?); gave up after 3 restarts");
      expect(offeredTools(server.requests[0]?.body)).toContain("mcp__test__crash");
      expect(offeredTools(server.requests[5]?.body).filter((name) => name.startsWith("mcp__test__"))).toEqual([]);
      expect(await q.mcpServerStatus()).toEqual([
        { name: "test", status: "failed", error: expect.stringContaining("gave up after 3 restarts") },
      ]);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "gave up" });
    });
  });
});

describe("start-up", () => {
  it("servers connect in parallel: a slow one and a quick one are both connected at init and usable", async () => {
    const turns = [
      mockTurn.toolUse("mcp__slow__add", { a: 1, b: 2 }),
      mockTurn.toolUse("mcp__quick__add", { a: 3, b: 4 }),
      mockTurn.text("both"),
    ];
    await withMock({ turns }, async (server) => {
      const { messages } = await runWith(server, FORMATS[0], {
        mcpServers: { slow: testServer("--slow-start=1500"), quick: testServer() },
      });
      expect(initOf(messages).mcp_servers).toEqual([
        { name: "slow", status: "connected" },
        { name: "quick", status: "connected" },
      ]);
      expect(toolResults(messages).map((result) => result.content)).toEqual(["3", "7"]);
    });
  });
});

/** A streamable HTTP MCP server on 127.0.0.1 (stateless: each request gets its own server). */
async function startHttpMcp(port: number, instance: number): Promise<{ port: number; http: Server }> {
  const http = createServer(async (request, response) => {
    if (request.method !== "POST") return void response.writeHead(405).end();
    const mcp = new McpServer({ name: "web", version: "1.0.0" });
    mcp.registerTool("where", { description: "Which server instance answers." }, async () => ({
      content: [{ type: "text", text: `instance ${instance}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => void mcp.close());
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((listening) => http.listen(port, "127.0.0.1", listening));
  return { port: (http.address() as AddressInfo).port, http };
}

function stopHttp(http: Server): Promise<void> {
  http.closeAllConnections();
  return new Promise((closed) => http.close(() => closed()));
}

describe.each(WIRE_FORMATS)("an HTTP server that goes away ($name)", (format) => {
  it("the call fails naming the server; later calls reconnect with backoff (bounded), and succeed once it is back", async () => {
    const where = () => mockTurn.toolUse("mcp__web__where");
    const turns = [where(), where(), where(), where(), mockTurn.text("back")];
    let web = await startHttpMcp(0, 1);
    const port = web.port;
    let calls = 0;
    // Permission prompts are the test's hook into the run: the server is stopped and started between calls.
    const canUseTool: QueryOptions["canUseTool"] = async (_name, input) => {
      calls++;
      if (calls === 2) await stopHttp(web.http);
      if (calls === 4) web = await startHttpMcp(port, 2);
      return { behavior: "allow", updatedInput: input };
    };
    try {
      await withMock({ turns }, async (server) => {
        const { messages } = await runWith(server, format, {
          mcpServers: { web: { type: "http", url: `http://127.0.0.1:${port}/mcp` } },
          canUseTool,
        });
        expect(initOf(messages).mcp_servers).toEqual([{ name: "web", status: "connected" }]);
        const [first, gone, still, back] = toolResults(messages);
        expect(first).toMatchObject({ content: "instance 1" });
        expect(gone?.is_error).toBe(true);
        expect(text(gone?.content)).toContain('MCP server "web": tool "where" failed');
        expect(text(gone?.content)).toContain("it is reconnected at the next call");
        expect(still?.is_error).toBe(true);
        expect(text(still?.content)).toContain('MCP server "web" is unavailable');
        expect(text(still?.content)).toContain("reconnect 1 of 3 failed (3 attempts)");
        expect(sentToolResults(server.requests[3]?.body).join("\n")).toContain("reconnect 1 of 3 failed (3 attempts)");
        expect(back).toMatchObject({ content: "instance 2" });
        expect(back?.is_error).toBeUndefined();
      });
    } finally {
      await stopHttp(web.http);
    }
  });
});

describe("no orphans", () => {
  let entry: string;
  let cleanup: () => void;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    ({ entry, cleanup } = compileAllForChild());
  });
  afterAll(() => cleanup());
  afterEach(async () => {
    await Promise.all(children.splice(0).map(killHard));
  });

  /** A child process whose run has a stdio server that ignores stdin's end and SIGTERM, mid-call. */
  const CHILD = `
    const { query } = await import(process.env.ENTRY);
    const q = query({
      prompt: "hang",
      options: {
        model: "anthropic/claude-sonnet-4-5",
        env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: process.env.BASE_URL },
        persistSession: false,
        tools: [],
        mcpServers: { stubborn: { command: process.execPath, args: [process.env.SERVER, "--ignore-eof", process.env.MARKER] } },
        allowedTools: ["mcp__stubborn"],
      },
    });
    for await (const message of q) {
      if (message.type === "assistant") process.stdout.write("calling\\n");
    }
  `;

  it("a run's end also ends a server that ignores stdin's end and SIGTERM", async () => {
    const marker = uniqueMarker("stubborn");
    await withMock({ turns: [mockTurn.toolUse("mcp__stubborn__pid"), mockTurn.text("done")] }, async (server) => {
      const { messages } = await runWith(server, FORMATS[0], servers({ stubborn: testServer("--ignore-eof", marker) }));
      const pid = Number(toolResults(messages)[0]?.content);
      expect(pid).toBeGreaterThan(0);
      // SIGKILL was sent before the run ended; the kernel may take a moment to carry it out.
      await waitUntil(() => !isRunning(pid));
      expect(processesWith(marker)).toEqual([]);
    });
  });

  it("kill -9 of the process running a query: its stdio server (which ignores EOF and SIGTERM) ends too", async () => {
    const marker = uniqueMarker("orphan");
    await withMock({ turns: [mockTurn.toolUse("mcp__stubborn__hang"), mockTurn.text("never")] }, async (server) => {
      const env = { ENTRY: entry, BASE_URL: server.baseURL, SERVER: TEST_SERVER, MARKER: marker };
      const child = await startLockHolder(CHILD, env, "calling");
      children.push(child);
      const [serverPid] = processesWith(marker);
      expect(serverPid).toBeGreaterThan(0);
      await killHard(child);
      await waitUntil(() => !isRunning(serverPid as number));
      expect(processesWith(marker)).toEqual([]);
    });
  });
});
