import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { McpStdioServerConfig, SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { compatPeer } from "./compat-peers.js";
import { FORMATS, runQuery, toolResults, withMock } from "./helpers.js";

// Issue 15: a stdio MCP server started with `sandbox: true` is held by the same sandbox as Bash.

const [anthropic] = FORMATS;
const FILESYSTEM = join(
  compatPeer("mcp-filesystem"),
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);
const SANDBOX = { enabled: true };
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

  it("starts when its program and package live under /tmp, which the sandbox hides", async () => {
    const { cwd } = folders();
    const server = mkdtempSync(join(tmpdir(), "gyre-sandbox-mcp-package-"));
    made.push(server);
    mkdirSync(join(server, "dist"));
    copyFileSync(resolve("test/fixtures/mcp-plain-server.mjs"), join(server, "dist", "server.mjs"));
    writeFileSync(join(server, "package.json"), JSON.stringify({ name: "plain-under-tmp" }));
    // The program under /tmp too, as when a Node is unpacked there: a link, so its own folder is /tmp's.
    const program = join(server, "bin", "node");
    mkdirSync(join(server, "bin"));
    symlinkSync(process.execPath, program);
    const messages = await withMock(
      { mode: "sequential", turns: [mockTurn.toolUse("mcp__plain__package_name", {}), mockTurn.text("done")] },
      (mock) =>
        runQuery(mock, anthropic, "go", {
          cwd,
          tools: [],
          mcpServers: { plain: { command: program, args: ["dist/server.mjs"], cwd: server, sandbox: true } },
          permissionMode: "bypassPermissions",
          sandbox: SANDBOX,
        }),
    );
    const init = initOf(messages);
    expect(init?.type === "system" && init.subtype === "init" && init.mcp_servers).toEqual([
      { name: "plain", status: "connected" },
    ]);
    expect(JSON.stringify(toolResults(messages)[0]?.content)).toContain("plain-under-tmp");
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
