import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../src/index.js";
import { trustFolder } from "../src/settings/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, mockEnv, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { initOf, text } from "./mcp-support.js";

// MCP servers from config files (.mcp.json, ~/.claude.json, ~/.gyre/mcp.json), through the
// loop: the scripted model calls the server's tool and the result reaches it.

const EVERYTHING = path.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const TEST_SERVER = path.resolve("test/fixtures/mcp-test-server.mjs");
const testServer = { command: process.execPath, args: [TEST_SERVER] };
const missingServer = { command: "/nonexistent/gyre-no-such-mcp-server" };

let root: string;
let home: string;
let project: string;
let savedHome: string | undefined;
let savedDataFolder: string | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-mcp-files-")));
  home = path.join(root, "home");
  project = path.join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  // The user and local files and the trust record are read from the home folder: a throwaway
  // one, with Gyre's data folder (its mcp.json) in it, at ~/.gyre.
  savedHome = process.env.HOME;
  savedDataFolder = process.env.GYRE_HOME;
  process.env.HOME = home;
  process.env.GYRE_HOME = path.join(home, ".gyre");
});

afterEach(() => {
  process.env.HOME = savedHome;
  process.env.GYRE_HOME = savedDataFolder;
  rmSync(root, { recursive: true, force: true });
});

function writeJson(file: string, json: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof json === "string" ? json : JSON.stringify(json));
}

function writeMcpJson(servers: Record<string, unknown>): void {
  writeJson(path.join(project, ".mcp.json"), { mcpServers: servers });
}

/** A stdio "server" that only leaves a file behind: proof that its process was started. */
function processLeaving(file: string) {
  return { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(file)}, "")`] };
}

describe("MCP servers from a project's .mcp.json", () => {
  it.each([FORMATS[0], FORMATS[1]])(
    "$name: a Claude Code .mcp.json server starts with ${VAR} expanded from the run's env; its result reaches the model",
    async (format) => {
      writeMcpJson({
        everything: {
          type: "stdio",
          command: "${GYRE_TEST_NODE}",
          args: [EVERYTHING, "stdio"],
          env: { GREETING: "${GYRE_TEST_GREETING:-hello from the default}", TOKEN: "${GYRE_TEST_TOKEN}" },
        },
      });
      const script = { turns: [mockTurn.toolUse("mcp__everything__get-env"), mockTurn.text("seen")] };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "what env?", {
          cwd: project,
          tools: [],
          settingSources: ["project"],
          env: { ...mockEnv(server), GYRE_TEST_NODE: process.execPath, GYRE_TEST_TOKEN: "t0ken-from-options-env" },
        });
        expect(initOf(messages).mcp_servers).toEqual([{ name: "everything", status: "connected" }]);
        const [result] = toolResults(messages);
        expect(result?.is_error).toBeUndefined();
        // get-env answers with the server process's environment as JSON.
        const serverEnv = JSON.parse(text(result?.content)) as Record<string, string>;
        expect(serverEnv).toMatchObject({ GREETING: "hello from the default", TOKEN: "t0ken-from-options-env" });
        // What the model was sent in its next request.
        expect(JSON.stringify(server.requests[1]?.body)).toContain("t0ken-from-options-env");
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "seen" });
      });
    },
  );

  it("a server whose variable is unset is failed, naming the variable and the file; the others still serve", async () => {
    writeMcpJson({
      needsKey: { command: process.execPath, args: [TEST_SERVER], env: { KEY: "${GYRE_TEST_UNSET_VARIABLE}" } },
      test: testServer,
    });
    const script = { turns: [mockTurn.toolUse("mcp__test__add", { a: 2, b: 3 }), mockTurn.text("five")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, FORMATS[0], "add", {
        cwd: project,
        tools: [],
        settingSources: ["project"],
      });
      const statuses = initOf(messages).mcp_servers;
      expect(statuses).toEqual([
        { name: "needsKey", status: "failed", error: expect.stringContaining("${GYRE_TEST_UNSET_VARIABLE}") },
        { name: "test", status: "connected" },
      ]);
      expect(statuses[0]?.error).toContain(path.join(project, ".mcp.json"));
      expect(initOf(messages).tools).toEqual(expect.arrayContaining(["mcp__test__add"]));
      expect(initOf(messages).tools.some((name) => name.startsWith("mcp__needsKey"))).toBe(false);
      expect(toolResults(messages)[0]).toMatchObject({ content: "5" });
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    });
  });

  it("a malformed .mcp.json fails the run with a config_error naming the file, before any request", async () => {
    writeJson(path.join(project, ".mcp.json"), { mcpServers: { broken: { args: ["no command"] } } });
    await withMock({ turns: [mockTurn.text("never")] }, async (server) => {
      const error = await runQuery(server, FORMATS[0], "hi", {
        cwd: project,
        tools: [],
        settingSources: ["project"],
      }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(isGyreError(error, "config_error")).toBe(true);
      expect((error as Error).message).toContain(`${path.join(project, ".mcp.json")} is invalid: mcpServers.broken`);
      expect(server.requests).toHaveLength(0);
    });
  });

  it("files are read only for the scopes in settingSources: none by default", async () => {
    const started = path.join(root, "started");
    writeMcpJson({ leaves: processLeaving(started) });
    writeJson(path.join(home, ".gyre", "mcp.json"), { mcpServers: { leaves: processLeaving(started) } });
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const messages = await runQuery(server, FORMATS[0], "hi", { cwd: project, tools: [] });
      expect(initOf(messages).mcp_servers).toEqual([]);
    });
    expect(existsSync(started)).toBe(false);
  });

  it("strictMcpConfig: only the mcpServers option; the .mcp.json server is not started", async () => {
    const started = path.join(root, "started");
    writeMcpJson({ leaves: processLeaving(started) });
    const script = { turns: [mockTurn.toolUse("mcp__test__add", { a: 1, b: 1 }), mockTurn.text("two")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, FORMATS[0], "add", {
        cwd: project,
        tools: [],
        settingSources: ["user", "project", "local"],
        strictMcpConfig: true,
        mcpServers: { test: testServer },
      });
      expect(initOf(messages).mcp_servers).toEqual([{ name: "test", status: "connected" }]);
      expect(toolResults(messages)[0]).toMatchObject({ content: "2" });
    });
    expect(existsSync(started)).toBe(false);
  });
});

describe("scopes and precedence", () => {
  it("a .mcp.json server named in Claude Code's disabledMcpjsonServers is not started", async () => {
    const started = path.join(root, "started");
    writeMcpJson({ leaves: processLeaving(started), test: testServer });
    writeJson(path.join(project, ".claude", "settings.local.json"), { disabledMcpjsonServers: ["leaves"] });
    // A later file's list does not bring the server back: the lists add up.
    writeJson(path.join(project, ".gyre", "settings.local.json"), { disabledMcpjsonServers: [] });
    const script = { turns: [mockTurn.toolUse("mcp__test__add", { a: 1, b: 2 }), mockTurn.text("three")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, FORMATS[0], "add", {
        cwd: project,
        tools: [],
        settingSources: ["project", "local"],
      });
      expect(initOf(messages).mcp_servers).toEqual([{ name: "test", status: "connected" }]);
      expect(toolResults(messages)[0]).toMatchObject({ content: "3" });
    });
    expect(existsSync(started)).toBe(false);
  });

  it("local (~/.claude.json) wins over project over user (~/.gyre/mcp.json); the option wins over all", async () => {
    writeJson(path.join(home, ".gyre", "mcp.json"), { mcpServers: { calc: missingServer, fromUser: testServer } });
    writeMcpJson({ calc: missingServer, byOption: missingServer });
    writeJson(path.join(home, ".claude.json"), {
      numStartups: 3,
      projects: { [project]: { allowedTools: [], mcpServers: { calc: testServer } } },
    });
    const script = {
      turns: [
        mockTurn.toolUse("mcp__calc__add", { a: 20, b: 22 }),
        mockTurn.toolUse("mcp__byOption__add", { a: 1, b: 2 }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, FORMATS[0], "add", {
        cwd: project,
        tools: [],
        settingSources: ["user", "project", "local"],
        mcpServers: { byOption: testServer },
      });
      const statuses = initOf(messages).mcp_servers;
      expect(statuses).toHaveLength(3);
      expect(statuses).toEqual(
        expect.arrayContaining([
          { name: "calc", status: "connected" },
          { name: "fromUser", status: "connected" },
          { name: "byOption", status: "connected" },
        ]),
      );
      expect(toolResults(messages).map((result) => result.content)).toEqual(["42", "3"]);
    });
  });
});

describe("a folder the person has not trusted (requireProjectTrust)", () => {
  it("does not start its .mcp.json servers and reports them with its ignored settings; trusted, it does", async () => {
    const pwned = path.join(project, "pwned");
    writeMcpJson({ evil: processLeaving(pwned) });
    writeJson(path.join(project, ".gyre", "settings.json"), { permissions: { allow: ["Bash"] } });
    // The user's own servers are the person's: they start in any folder.
    writeJson(path.join(home, ".gyre", "mcp.json"), { mcpServers: { mine: testServer } });
    const options = { cwd: project, tools: [], settingSources: ["user", "project", "local"] as const };
    await withMock({ turns: [mockTurn.text("ok"), mockTurn.text("ok")] }, async (server) => {
      const untrusted = await runQuery(server, FORMATS[0], "hi", {
        ...options,
        settingSources: [...options.settingSources],
        requireProjectTrust: true,
      });
      const init = initOf(untrusted);
      expect(init.mcp_servers).toEqual([{ name: "mine", status: "connected" }]);
      expect(init.ignored_settings).toEqual({
        folder: project,
        files: [
          { path: path.join(project, ".gyre", "settings.json"), ignored: ["permissions.allow"] },
          { path: path.join(project, ".mcp.json"), ignored: ["mcpServers.evil"] },
        ],
      });
      expect(existsSync(pwned)).toBe(false);

      // The same run once the person trusts the folder: the server is started.
      await trustFolder(project, { home });
      const trusted = await runQuery(server, FORMATS[0], "hi", {
        ...options,
        settingSources: [...options.settingSources],
        requireProjectTrust: true,
      });
      expect(initOf(trusted).ignored_settings).toBeUndefined();
      expect(initOf(trusted).mcp_servers.map((status) => status.name)).toEqual(["mine", "evil"]);
      expect(existsSync(pwned)).toBe(true);
    });
  });
});
