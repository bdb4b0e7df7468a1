import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { McpStdioServerConfig, SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, runQuery, toolResults, withMock } from "./helpers.js";

// Issue 15: a stdio MCP server started with `sandbox: true` is held by the same sandbox as Bash.

const [anthropic] = FORMATS;
const FILESYSTEM = resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
// The sandbox hides /tmp but for the workspace and its own temp, and CI may clone this repository
// (and install the Node it tests with) under /tmp: the server's files (this repository's
// node_modules) and the Node that runs it are made visible, read-only.
const SANDBOX = { enabled: true, filesystem: { denyWrite: [resolve("."), dirname(dirname(process.execPath))] } };
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function folders() {
  const cwd = mkdtempSync(join(tmpdir(), "gyre-sandbox-mcp-"));
  const outside = mkdtempSync("/var/tmp/gyre-sandbox-mcp-out-");
  made.push(cwd, outside);
  // The server itself may write in both: only the sandbox stands in its way outside the workspace.
  const config: McpStdioServerConfig = { command: process.execPath, args: [FILESYSTEM, cwd, outside], sandbox: true };
  return { cwd, outside, config };
}

const write = (path: string) => mockTurn.toolUse("mcp__fs__write_file", { path, content: "written" });
const initOf = (messages: SDKMessage[]) => messages.find((m) => m.type === "system" && m.subtype === "init");

describe("stdio MCP servers with sandbox: true", () => {
  it("write inside the workspace and cannot write outside it", async () => {
    const { cwd, outside, config } = folders();
    const messages = await withMock(
      {
        mode: "sequential",
        turns: [write(join(cwd, "in.txt")), write(join(outside, "out.txt")), mockTurn.text("done")],
      },
      (server) =>
        runQuery(server, anthropic, "go", {
          cwd,
          tools: [],
          mcpServers: { fs: config },
          permissionMode: "bypassPermissions",
          sandbox: SANDBOX,
        }),
    );
    const [inside, outsideResult] = toolResults(messages);
    expect(inside?.is_error).toBeFalsy();
    expect(readFileSync(join(cwd, "in.txt"), "utf8")).toBe("written");
    expect(outsideResult?.is_error).toBe(true);
    expect(JSON.stringify(outsideResult?.content)).toMatch(/EROFS|read-only file system/i);
    expect(existsSync(join(outside, "out.txt"))).toBe(false);
  });

  it("is not started at all when the run has no sandbox", async () => {
    const { cwd, config } = folders();
    const messages = await withMock({ turns: [mockTurn.text("done")] }, (server) =>
      runQuery(server, anthropic, "go", { cwd, tools: [], mcpServers: { fs: config } }),
    );
    const init = initOf(messages);
    expect(init?.type === "system" && init.subtype === "init" && init.mcp_servers).toEqual([
      { name: "fs", status: "failed", error: expect.stringContaining("sandbox.enabled") },
    ]);
  });
});
