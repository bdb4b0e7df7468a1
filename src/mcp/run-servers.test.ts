import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RunMcpServersInput, startRunMcpServers } from "./run-servers.js";

let root: string;
let home: string;
let cwd: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-mcp-run-")));
  home = path.join(root, "home");
  cwd = path.join(root, "project");
  mkdirSync(path.join(home, ".gyre"), { recursive: true });
  mkdirSync(cwd);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function input(extra: Partial<RunMcpServersInput> = {}): RunMcpServersInput {
  return {
    sources: ["user", "project", "local"],
    requireTrust: false,
    cwd,
    home,
    env: {},
    signal: new AbortController().signal,
    ...extra,
  };
}

describe("a run's MCP servers from files", () => {
  it("reads no file with strictMcpConfig or without settingSources (a malformed one is not even noticed)", async () => {
    writeFileSync(path.join(cwd, ".mcp.json"), "{ not json");
    expect(await startRunMcpServers(input({ strict: true }))).toEqual({});
    expect(await startRunMcpServers(input({ sources: [] }))).toEqual({});
    await expect(startRunMcpServers(input())).rejects.toThrow(/\.mcp\.json is not valid JSON/);
  });

  it("a url that is not http(s) once expanded is a failed server, naming the file", async () => {
    const file = path.join(cwd, ".mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { remote: { type: "http", url: "${BASE:-file:///etc}/mcp" } } }));
    const { servers } = await startRunMcpServers(input());
    expect(servers?.statuses).toEqual([
      {
        name: "remote",
        status: "failed",
        error: `MCP server "remote" in ${file}: url must be an http or https URL, not "file:///etc/mcp"`,
      },
    ]);
    await servers?.close();
  });

  it("in an untrusted folder every .mcp.json server is reported and dropped; local ones stay", async () => {
    const evil = { command: "/nonexistent/evil" };
    writeFileSync(path.join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { one: evil, two: evil } }));
    const local = { projects: { [cwd]: { mcpServers: { mine: { command: "/nonexistent/mine" } } } } };
    writeFileSync(path.join(home, ".gyre", "mcp.json"), JSON.stringify(local));
    const { servers, ignored } = await startRunMcpServers(input({ requireTrust: true }));
    expect(ignored).toEqual({
      folder: cwd,
      files: [{ path: path.join(cwd, ".mcp.json"), ignored: ["mcpServers.one", "mcpServers.two"] }],
    });
    expect(servers?.statuses.map((status) => status.name)).toEqual(["mine"]);
    await servers?.close();
  });
});
