import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

/**
 * A server on MCP's older HTTP+SSE transport (the MCP SDK's SSEServerTransport), on
 * 127.0.0.1: GET /sse opens a session's event stream, POST /messages?sessionId= carries the
 * client's messages.
 */
describe("SSE MCP servers (legacy HTTP+SSE transport)", () => {
  let http: Server;
  let url: string;
  const sessions = new Map<string, SSEServerTransport>();
  const headersSeen: Array<string | undefined> = [];

  beforeAll(async () => {
    http = createServer((req, res) => {
      headersSeen.push(req.headers.authorization);
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      if (req.method === "GET" && path === "/sse") {
        const transport = new SSEServerTransport("/messages", res);
        sessions.set(transport.sessionId, transport);
        const mcp = new McpServer({ name: "sse-calc", version: "0.0.2" });
        mcp.registerTool(
          "sub",
          { description: "Subtract b from a.", inputSchema: { a: z.number(), b: z.number() } },
          async ({ a, b }) => ({ content: [{ type: "text", text: String(a - b) }] }),
        );
        res.on("close", () => {
          sessions.delete(transport.sessionId);
          void mcp.close();
        });
        void mcp.connect(transport);
        return;
      }
      const sessionId = new URL(req.url ?? "/", "http://127.0.0.1").searchParams.get("sessionId") ?? "";
      const transport = sessions.get(sessionId);
      if (req.method === "POST" && path === "/messages" && transport) {
        void transport.handlePostMessage(req, res);
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`;
  });

  afterAll(async () => {
    http.closeAllConnections();
    await new Promise((done) => http.close(done));
  });

  for (const format of FORMATS.slice(0, 2)) {
    it(`connects with the headers and the model's call comes back through the loop (${format.name})`, async () => {
      const script = { turns: [mockTurn.toolUse("mcp__legacy__sub", { a: 50, b: 8 }), mockTurn.text("42")] };
      await withMock(script, async (server) => {
        const messages: SDKMessage[] = await runQuery(server, format, "50-8?", {
          tools: [],
          mcpServers: { legacy: { type: "sse", url, headers: { Authorization: "Bearer sse-token" } } },
          allowedTools: ["mcp__legacy__sub"],
        });
        const init = messages[0];
        expect(init).toMatchObject({ type: "system", subtype: "init" });
        expect(init?.type === "system" && init.subtype === "init" && init.mcp_servers).toEqual([
          { name: "legacy", status: "connected" },
        ]);
        expect(toolResults(messages)[0]).toMatchObject({ content: "42" });
        expect(toolResults(messages)[0]?.is_error).toBeUndefined();
        // The model's second request carries the server's answer.
        expect(JSON.stringify(server.requests[1]?.body)).toContain('"42"');
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "42" });
        expect(headersSeen).toContain("Bearer sse-token");
        // The run's end closed the event stream (the server sees it close a moment later).
        await vi.waitFor(() => expect(sessions.size).toBe(0));
      });
    });
  }
});
