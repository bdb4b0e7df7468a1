import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import { addMcpServer, removeMcpServer } from "./config-edit.js";
import { byPrecedence, type McpFileServer, readMcpConfigFiles } from "./config-files.js";
import { expandServerConfig, expandString } from "./expand-env.js";

let root: string;
let home: string;
let cwd: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-mcp-config-")));
  home = path.join(root, "home");
  cwd = path.join(root, "project");
  mkdirSync(home);
  mkdirSync(cwd);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function writeJson(file: string, json: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof json === "string" ? json : JSON.stringify(json));
}

const stdio = (command: string) => ({ command });
const claudeJson = () => path.join(home, ".claude.json");
const gyreJson = () => path.join(home, ".gyre", "mcp.json");
const projectJson = () => path.join(cwd, ".mcp.json");

/** Every file has a server "shared" and one of its own, so precedence and presence both show. */
function writeAllScopes(): void {
  writeJson(claudeJson(), {
    numStartups: 12,
    mcpServers: { shared: stdio("claude-user"), claudeUser: stdio("a") },
    projects: { [cwd]: { mcpServers: { shared: stdio("claude-local"), claudeLocal: stdio("b") } } },
  });
  writeJson(gyreJson(), {
    mcpServers: { shared: stdio("gyre-user"), gyreUser: stdio("c") },
    projects: { [cwd]: { mcpServers: { shared: stdio("gyre-local"), gyreLocal: stdio("d") } } },
  });
  writeJson(projectJson(), { mcpServers: { shared: stdio("project"), project: { type: "stdio", command: "e" } } });
}

function commands(servers: Map<string, McpFileServer>): Record<string, string> {
  return Object.fromEntries(
    [...servers].map(([name, server]) => [
      name,
      "command" in server.config ? server.config.command : server.config.url,
    ]),
  );
}

describe("reading MCP config files", () => {
  it("reads every scope; on a clash local > project > user, and Gyre's file over Claude Code's", async () => {
    writeAllScopes();
    const found = await readMcpConfigFiles({ cwd, home });
    expect(found.map((server) => `${server.scope}:${server.name}`)).toEqual([
      "user:shared",
      "user:claudeUser",
      "user:shared",
      "user:gyreUser",
      "project:shared",
      "project:project",
      "local:shared",
      "local:claudeLocal",
      "local:shared",
      "local:gyreLocal",
    ]);
    const servers = byPrecedence(found);
    expect(commands(servers)).toEqual({
      claudeUser: "a",
      gyreUser: "c",
      project: "e",
      claudeLocal: "b",
      gyreLocal: "d",
      shared: "gyre-local",
    });
    expect(servers.get("shared")).toMatchObject({ scope: "local", path: gyreJson() });
    expect(servers.get("project")).toMatchObject({ scope: "project", path: projectJson() });
  });

  it("without local, the project's .mcp.json wins over user files; without project, user wins", async () => {
    writeAllScopes();
    const noLocal = byPrecedence(await readMcpConfigFiles({ cwd, home, sources: ["user", "project"] }));
    expect(commands(noLocal).shared).toBe("project");
    const userOnly = byPrecedence(await readMcpConfigFiles({ cwd, home, sources: ["user"] }));
    expect(commands(userOnly)).toEqual({ shared: "gyre-user", claudeUser: "a", gyreUser: "c" });
    expect(await readMcpConfigFiles({ cwd, home, sources: [] })).toEqual([]);
  });

  it("finds the local entry by the project's real path when it is reached through a symlink", async () => {
    writeAllScopes();
    const link = path.join(root, "link");
    symlinkSync(cwd, link);
    const servers = byPrecedence(await readMcpConfigFiles({ cwd: link, home, sources: ["local"] }));
    expect(Object.keys(commands(servers)).sort()).toEqual(["claudeLocal", "gyreLocal", "shared"]);
  });

  it("missing files and an empty file have no servers; another project's entry is not read", async () => {
    expect(await readMcpConfigFiles({ cwd, home })).toEqual([]);
    writeJson(projectJson(), "  \n");
    writeJson(claudeJson(), { projects: { "/elsewhere": { mcpServers: { other: stdio("x") } } } });
    expect(await readMcpConfigFiles({ cwd, home })).toEqual([]);
  });

  it("keeps a Claude Code entry's keys Gyre does not use out of the config, and reads http and sse", async () => {
    writeJson(projectJson(), {
      mcpServers: {
        remote: { type: "http", url: "https://example.com/mcp", headers: { A: "b" }, oauth: { clientId: "x" } },
        legacy: { type: "sse", url: "https://example.com/sse" },
      },
    });
    const [remote, legacy] = await readMcpConfigFiles({ cwd, home });
    expect(remote?.config).toEqual({ type: "http", url: "https://example.com/mcp", headers: { A: "b" } });
    expect(legacy?.config).toEqual({ type: "sse", url: "https://example.com/sse" });
  });

  it.each([
    ["bad JSON", "{ mcpServers: ", /MCP config .*\.mcp\.json is not valid JSON/],
    ["a top-level array", "[]", /\.mcp\.json is invalid: not a JSON object/],
    ["mcpServers not an object", { mcpServers: [] }, /\.mcp\.json is invalid: mcpServers must be an object/],
    ["a stdio server without command", { mcpServers: { s: { args: ["x"] } } }, /mcpServers\.s: command: /],
    ["args not an array", { mcpServers: { s: { command: "x", args: "y" } } }, /mcpServers\.s: args: /],
    ["an unknown type", { mcpServers: { s: { type: "ws", url: "ws://x" } } }, /mcpServers\.s: type must be "stdio"/],
    ["an http server without url", { mcpServers: { s: { type: "http" } } }, /mcpServers\.s: url: /],
  ])("%s is a config_error naming the file and the problem", async (_what, content, message) => {
    writeJson(projectJson(), content);
    const error = await readMcpConfigFiles({ cwd, home }).catch((caught: unknown) => caught);
    expect(isGyreError(error, "config_error")).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain(projectJson());
  });

  it("a malformed local entry in ~/.claude.json names the entry", async () => {
    writeJson(claudeJson(), { projects: { [cwd]: { mcpServers: { s: { command: 3 } } } } });
    await expect(readMcpConfigFiles({ cwd, home })).rejects.toThrow(
      `projects[${JSON.stringify(cwd)}].mcpServers.s: command:`,
    );
  });
});

describe("${VAR} expansion", () => {
  const env = { HOST: "example.com", EMPTY: "", TOKEN: "s3cret" };

  it("expands ${VAR} and ${VAR:-default} as Claude Code does", () => {
    expect(expandString("https://${HOST}/mcp", env)).toEqual({ text: "https://example.com/mcp", missing: [] });
    expect(expandString("${PORT:-8080}", env).text).toBe("8080");
    expect(expandString("${HOST:-other}", env).text).toBe("example.com");
    // Set but empty is a value, as in Claude Code.
    expect(expandString("[${EMPTY:-default}]", env).text).toBe("[]");
    expect(expandString("${URL:-http://a:1/x}", env).text).toBe("http://a:1/x");
    expect(expandString("$HOST and {HOST} stay", env).text).toBe("$HOST and {HOST} stay");
  });

  it("lists each variable without a value or a default and leaves it as written", () => {
    expect(expandString("${A}-${HOST}-${B}", env)).toEqual({ text: "${A}-example.com-${B}", missing: ["A", "B"] });
  });

  it("expands command, args, env values, url and header values; not keys", () => {
    const stdioConfig = {
      command: "${HOST}/bin",
      args: ["--token=${TOKEN}", "${NONE:-x}"],
      env: { "KEY_${HOST}": "${TOKEN}" },
    };
    expect(expandServerConfig(stdioConfig, env)).toEqual({
      config: { command: "example.com/bin", args: ["--token=s3cret", "x"], env: { "KEY_${HOST}": "s3cret" } },
      missing: [],
    });
    const http = { type: "http" as const, url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } };
    expect(expandServerConfig(http, env).config).toEqual({
      type: "http",
      url: "https://example.com/mcp",
      headers: { Authorization: "Bearer s3cret" },
    });
    expect(expandServerConfig({ command: "${A}", args: ["${A}", "${B}"] }, env).missing).toEqual(["A", "B"]);
  });
});

describe("writing MCP config files", () => {
  it("adds to each scope's file, keeps the file's other keys, and reads back what it wrote", async () => {
    writeJson(gyreJson(), { theme: "dark", mcpServers: { old: stdio("o") } });
    writeJson(projectJson(), { $schema: "x", mcpServers: {} });
    expect(await addMcpServer("u", stdio("user-cmd"), { scope: "user", cwd, home })).toBe(gyreJson());
    expect(await addMcpServer("p", stdio("project-cmd"), { scope: "project", cwd, home })).toBe(projectJson());
    expect(await addMcpServer("l", stdio("local-cmd"), { scope: "local", cwd, home })).toBe(gyreJson());
    expect(JSON.parse(readFileSync(gyreJson(), "utf8"))).toEqual({
      theme: "dark",
      mcpServers: { old: { command: "o" }, u: { command: "user-cmd" } },
      projects: { [cwd]: { mcpServers: { l: { command: "local-cmd" } } } },
    });
    expect(JSON.parse(readFileSync(projectJson(), "utf8"))).toEqual({
      $schema: "x",
      mcpServers: { p: { command: "project-cmd" } },
    });
    const read = await readMcpConfigFiles({ cwd, home });
    expect(read.map((server) => `${server.scope}:${server.name}`)).toEqual([
      "user:old",
      "user:u",
      "project:p",
      "local:l",
    ]);
  });

  it("creates ~/.gyre/mcp.json private (it may hold tokens); .mcp.json as any file", async () => {
    await addMcpServer("u", stdio("x"), { scope: "user", cwd, home });
    expect(statSync(gyreJson()).mode & 0o777).toBe(0o600);
    await addMcpServer("p", stdio("x"), { scope: "project", cwd, home });
    expect(statSync(projectJson()).mode & 0o077).not.toBe(0);
  });

  it("refuses a name the scope has; removes from one scope only", async () => {
    await addMcpServer("s", stdio("one"), { scope: "local", cwd, home });
    await addMcpServer("s", stdio("two"), { scope: "user", cwd, home });
    await expect(addMcpServer("s", stdio("three"), { scope: "local", cwd, home })).rejects.toThrow(
      /"s" already exists in local scope/,
    );
    expect(await removeMcpServer("s", { scope: "local", cwd, home })).toBe(true);
    expect(await removeMcpServer("s", { scope: "local", cwd, home })).toBe(false);
    const left = await readMcpConfigFiles({ cwd, home });
    expect(left.map((server) => [server.scope, server.config])).toEqual([["user", { command: "two" }]]);
  });

  it("leaves a malformed file as it is", async () => {
    writeJson(projectJson(), "{ not json");
    await expect(addMcpServer("p", stdio("x"), { scope: "project", cwd, home })).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(projectJson(), "utf8")).toBe("{ not json");
  });
});
