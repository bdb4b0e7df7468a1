// Issue 26, finding 6: gyre serve reaches a request's MCP server only at an address it checked —
// never one of this machine's own (a listener on 0.0.0.0 answers on all of them), never a second
// DNS answer (rebinding), never a redirect's refused target. Real servers on real sockets.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, connect } from "node:net";
import { networkInterfaces } from "node:os";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OAuthTokenStore } from "../src/mcp/index.js";
import { McpHostGuard } from "../src/server/remote-mcp/host-guard.js";
import { pinnedFetch } from "../src/server/remote-mcp/pinned-fetch.js";
import { mockTurn } from "../src/testing/index.js";
import { type Everything, freePort, startEverything } from "./serve-mcp-support.js";
import { withServer } from "./serve-support.js";

const EVERYTHING = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");

/** This machine's first non-loopback IPv4 address (the test machine has one: eth0 or the like). */
function interfaceAddress(): string {
  const address = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .find((entry) => entry.family === "IPv4" && !entry.internal)?.address;
  if (!address) throw new Error("this machine has no non-loopback IPv4 address to test with");
  return address;
}

function listening(port: number, host: string): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, host);
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

/** server-everything on every interface (0.0.0.0), as the finding's listener was. */
async function startOnAllInterfaces(): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore",
  });
  const deadline = Date.now() + 15_000;
  while (!(await listening(port, "127.0.0.1"))) {
    if (Date.now() > deadline) throw new Error("server-everything did not start listening");
    await new Promise((done) => setTimeout(done, 20));
  }
  return { port, child };
}

const mcpTool = (server_url: string) => ({
  type: "mcp" as const,
  server_label: "web",
  server_url,
  require_approval: "never" as const,
});

describe("gyre serve's mcp server_url guard (issue 26, finding 6)", () => {
  let everything: Everything;
  beforeAll(async () => {
    everything = await startEverything();
  });
  afterAll(() => everything.close());

  it("refuses an MCP server on 0.0.0.0 reached through this machine's non-loopback address", async () => {
    const address = interfaceAddress();
    const { port, child } = await startOnAllInterfaces();
    try {
      // The server does answer there: only the guard stands between.
      expect(await listening(port, address)).toBe(true);
      await withServer({ turns: [mockTurn.text("never")] }, async ({ client, mock }) => {
        const error = await client()
          .responses.create({
            model: "anthropic/claude-sonnet-4-5",
            input: "Hi.",
            tools: [mcpTool(`http://${address}:${port}/mcp`)] as never,
          })
          .catch((caught: unknown) => caught);
        expect(error).toMatchObject({ status: 400, param: "tools[0].server_url" });
        expect(mock.requests).toHaveLength(0);
      });
    } finally {
      child.kill();
    }
  });

  it("resolves a name once and connects to the address it checked, not to a second answer", async () => {
    const port = Number(new URL(everything.url).port);
    // Whatever reaches 127.0.0.2 on the MCP server's port is counted: it must be nothing.
    let trapped = 0;
    const trap = createTcpServer((socket) => {
      trapped++;
      socket.destroy();
    });
    await new Promise<void>((done) => trap.listen(port, "127.0.0.2", done));
    const answers = [["127.0.0.1"], ["127.0.0.2"]];
    const asked: string[] = [];
    const mcpLookup = async (hostname: string) => {
      asked.push(hostname);
      return answers[asked.length - 1] ?? ["127.0.0.2"];
    };
    try {
      const turns = [mockTurn.toolUse("mcp__web__echo", { message: "pinned" }), mockTurn.text("Done.")];
      await withServer(
        { turns },
        async ({ client }) => {
          const response = await client().responses.create({
            model: "anthropic/claude-sonnet-4-5",
            input: "Echo.",
            tools: [mcpTool(`http://mcp.rebind.test:${port}/mcp`)] as never,
          });
          const [listing, call] = response.output as unknown as Array<Record<string, unknown>>;
          expect(listing).toMatchObject({ type: "mcp_list_tools", error: null });
          expect(call).toMatchObject({ type: "mcp_call", name: "echo", error: null });
          expect(String(call?.output)).toContain("pinned");
        },
        { mcpAllowedHosts: ["127.0.0.1"], mcpLookup },
      );
      expect(asked).toEqual(["mcp.rebind.test"]);
      expect(trapped).toBe(0);
    } finally {
      await new Promise((done) => trap.close(done));
    }
  });

  it("refuses a redirect to a refused address, checking each hop", async () => {
    const target = `http://127.0.0.2:${Number(new URL(everything.url).port)}/mcp`;
    const redirects: Server = createServer((_request, response) => {
      response.writeHead(307, { location: target });
      response.end();
    });
    await new Promise<void>((done) => redirects.listen(0, "127.0.0.1", done));
    const { port } = redirects.address() as { port: number };
    const guard = new McpHostGuard([`127.0.0.1:${port}`]);
    const pinned = pinnedFetch(guard);
    try {
      // Followed by the fetch (as the MCP SDK's OAuth requests are): refused at the second hop.
      await expect(pinned.fetch(`http://127.0.0.1:${port}/mcp`)).rejects.toMatchObject({ code: "mcp_url_refused" });
      // Through gyre serve: the server is listed with an error, and nothing ran.
      await withServer(
        { turns: [mockTurn.text("No tools.")] },
        async ({ client }) => {
          const response = await client().responses.create({
            model: "anthropic/claude-sonnet-4-5",
            input: "Hi.",
            tools: [mcpTool(`http://127.0.0.1:${port}/mcp`)] as never,
          });
          expect(response.output[0]).toMatchObject({ type: "mcp_list_tools", tools: [] });
          expect((response.output[0] as { error: string | null }).error).toBeTruthy();
        },
        { mcpAllowedHosts: [`127.0.0.1:${port}`] },
      );
    } finally {
      await pinned.close();
      await new Promise((done) => redirects.close(done));
    }
  });

  it("connects a client's server with the client's headers only, never the operator's stored OAuth tokens", async () => {
    const seen: Array<string | undefined> = [];
    const recorder: Server = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(401, { "content-type": "application/json" });
      response.end("{}");
    });
    await new Promise<void>((done) => recorder.listen(0, "127.0.0.1", done));
    const { port } = recorder.address() as { port: number };
    const url = `http://127.0.0.1:${port}/mcp`;
    // What `gyre mcp auth --url <url>` leaves for the operator (the tests' GYRE_HOME).
    const store = new OAuthTokenStore();
    await store.update(url, (record) => ({
      ...record,
      tokens: { access_token: "operator-token", token_type: "Bearer" },
    }));
    try {
      await withServer(
        { turns: [mockTurn.text("No tools.")] },
        async ({ client }) => {
          const response = await client().responses.create({
            model: "anthropic/claude-sonnet-4-5",
            input: "Hi.",
            tools: [mcpTool(url)] as never,
          });
          expect(response.output[0]).toMatchObject({ type: "mcp_list_tools", tools: [] });
        },
        { mcpAllowedHosts: [`127.0.0.1:${port}`] },
      );
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.filter((header) => header !== undefined)).toEqual([]);
    } finally {
      await store.remove(url);
      await new Promise((done) => recorder.close(done));
    }
  });
});
