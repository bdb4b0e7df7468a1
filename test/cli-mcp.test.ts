import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SDKMessage } from "../src/index.js";
import { type MockLLMServer, mockTurn, startMockLLM } from "../src/testing/index.js";
import { FORMATS } from "./helpers.js";

// `gyre mcp …` and `gyre run` with MCP config files, as real processes with HOME in a
// throwaway folder (never the person's ~/.claude.json).

const exec = promisify(execFile);
const CLI = path.resolve("dist/bin/gyre.js");
const TEST_SERVER = path.resolve("test/fixtures/mcp-test-server.mjs");
const testServer = { command: process.execPath, args: [TEST_SERVER] };

let root: string;
let home: string;
let project: string;
let server: MockLLMServer | undefined;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
});

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-cli-mcp-")));
  home = path.join(root, "home");
  project = path.join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function gyre(args: string[], extraEnv: Record<string, string> = {}): Promise<Outcome> {
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "mock",
    ANTHROPIC_BASE_URL: server?.baseURL ?? "http://127.0.0.1:9/v1",
    OPENAI_API_KEY: "mock",
    OPENAI_BASE_URL: server?.baseURL ?? "http://127.0.0.1:9/v1",
    ...extraEnv,
  };
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd: project, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as Outcome & { code: number };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

function writeJson(file: string, json: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(json));
}

const gyreJson = () => path.join(home, ".gyre", "mcp.json");
const projectJson = () => path.join(project, ".mcp.json");

describe("gyre mcp add, list, get, remove", () => {
  it("writes to Gyre's data folder, $GYRE_HOME when set, where the sessions are too", async () => {
    const data = path.join(home, "gyre-data");
    const sse = JSON.stringify({ type: "sse", url: "https://example.com/data-folder" });
    const added = await gyre(["mcp", "add-json", "--scope", "user", "in-data", sse], { GYRE_HOME: data });
    expect(added.code).toBe(0);
    expect(readJson(path.join(data, "mcp.json"))).toEqual({
      mcpServers: { "in-data": { type: "sse", url: "https://example.com/data-folder" } },
    });
    expect((await gyre(["mcp", "list"], { GYRE_HOME: data })).stdout).toContain("in-data");
    expect((await gyre(["mcp", "list"])).stdout).not.toContain("in-data");
  });

  it("round trip over the three scopes, in the files Claude Code's shapes", async () => {
    const add = await gyre(["mcp", "add", "srv", "-e", "TOKEN=abc", "--", "node", "server.js", "--port", "3"]);
    expect(add).toMatchObject({ code: 0, stdout: `added stdio MCP server "srv" to local scope: ${gyreJson()}\n` });
    const http = ["mcp", "add", "-t", "http", "-s", "project", "web", "https://example.com/mcp"];
    const addHttp = await gyre([...http, "-H", "Authorization: Bearer x"]);
    expect(addHttp.code).toBe(0);
    expect(addHttp.stderr).toContain("this folder is not trusted: gyre run starts its .mcp.json servers once it is");
    const sse = JSON.stringify({ type: "sse", url: "https://example.com/sse" });
    expect((await gyre(["mcp", "add-json", "--scope", "user", "old", sse])).code).toBe(0);

    expect(readJson(gyreJson())).toEqual({
      projects: {
        [project]: {
          mcpServers: {
            srv: { type: "stdio", command: "node", args: ["server.js", "--port", "3"], env: { TOKEN: "abc" } },
          },
        },
      },
      mcpServers: { old: { type: "sse", url: "https://example.com/sse" } },
    });
    expect(readJson(projectJson())).toEqual({
      mcpServers: { web: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer x" } } },
    });

    const list = await gyre(["mcp", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout.split("\n")).toEqual([
      "old  user     sse https://example.com/sse",
      "web  project  http https://example.com/mcp  (not started: folder not trusted; gyre trust)",
      "srv  local    node server.js --port 3",
      "",
    ]);
    const get = await gyre(["mcp", "get", "srv"]);
    expect(get.stdout).toBe(
      [
        "srv:",
        `  scope: local (${gyreJson()})`,
        "  type: stdio",
        "  command: node",
        "  args: server.js --port 3",
        "  env: TOKEN=abc",
        "",
      ].join("\n"),
    );

    // Without --scope, remove finds the one scope that has the name.
    expect(await gyre(["mcp", "remove", "web"])).toMatchObject({
      code: 0,
      stdout: `removed MCP server "web" from project scope: ${projectJson()}\n`,
    });
    expect(readJson(projectJson())).toEqual({ mcpServers: {} });
    const wrongScope = await gyre(["mcp", "remove", "srv", "--scope", "user"]);
    expect(wrongScope.code).toBe(1);
    expect(wrongScope.stderr).toContain(`No MCP server named "srv" in user scope (${gyreJson()})`);
    expect((await gyre(["mcp", "remove", "srv"])).code).toBe(0);
    expect((await gyre(["mcp", "list"])).stdout).toBe("old  user     sse https://example.com/sse\n");
    const gone = await gyre(["mcp", "get", "srv"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('No MCP server named "srv"');
  });

  it("lists Claude Code's servers from ~/.claude.json but does not edit that file", async () => {
    const claude = path.join(home, ".claude.json");
    const content = {
      numStartups: 7,
      mcpServers: { fromClaude: testServer },
      projects: { [project]: { mcpServers: { claudeLocal: { type: "http", url: "http://127.0.0.1:1/mcp" } } } },
    };
    writeJson(claude, content);
    const list = await gyre(["mcp", "list"]);
    expect(list.stdout).toContain(`fromClaude   user     ${process.execPath} ${TEST_SERVER}\n`);
    expect(list.stdout).toContain("claudeLocal  local    http http://127.0.0.1:1/mcp\n");
    const remove = await gyre(["mcp", "remove", "fromClaude"]);
    expect(remove.code).toBe(1);
    expect(remove.stderr).toContain(`only in ${claude}, which gyre does not edit; use claude mcp remove`);
    expect(readJson(claude)).toEqual(content);
    // A name of Claude Code's can be added to Gyre's own file, whose entry then wins.
    expect((await gyre(["mcp", "add", "-s", "user", "fromClaude", "--", "other"])).code).toBe(0);
    expect((await gyre(["mcp", "get", "fromClaude"])).stdout).toContain(`  overrides: user (${claude})\n`);
  });

  it.each([
    [["mcp"], "which subcommand?"],
    [["mcp", "frob"], 'unknown subcommand "frob"'],
    [["mcp", "add"], "gyre mcp add needs a server name"],
    [["mcp", "add", "srv"], "gyre mcp add srv needs a command"],
    [["mcp", "add", "srv", "-e", "A=1", "B=2", "--", "x"], "only the server name goes before --, not B=2"],
    [["mcp", "add", "srv", "node", "-y"], "unknown option '-y'"],
    [["mcp", "add", "--bogus", "srv", "--", "x"], "unknown option '--bogus'"],
    [["mcp", "add", "-s", "galaxy", "srv", "--", "x"], '--scope must be one of local, project, user, not "galaxy"'],
    [["mcp", "add", "-t", "ws", "srv", "ws://x"], '--transport must be one of stdio, http, sse, not "ws"'],
    [["mcp", "add", "-t", "http", "srv", "file:///etc/passwd"], "is not an http or https URL"],
    [["mcp", "add", "-t", "http", "srv"], "needs a URL"],
    [["mcp", "add", "-e", "NOEQUALS", "srv", "--", "x"], '-e takes KEY=VALUE, not "NOEQUALS"'],
    [["mcp", "add", "-H", "x: y", "srv", "--", "x"], "-H/--header is for http and sse servers"],
    [["mcp", "add", "bad/name", "--", "x"], 'server name "bad/name" may only have'],
    [["mcp", "add-json", "srv", "{nope"], "the server config is not valid JSON"],
    [["mcp", "add-json", "srv", '{"type":"http"}'], "the server config is invalid: url:"],
    [["mcp", "get"], "gyre mcp get needs a server name"],
    [["mcp", "remove", "a", "b"], "gyre mcp remove takes one name"],
  ])("gyre %j is a usage error: exit code 2, the reason and the usage", async (args, reason) => {
    const outcome = await gyre(args);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^gyre mcp: /);
    expect(outcome.stderr.split("\n")[0]).toContain(reason);
    expect(outcome.stderr).toContain("usage:\n  gyre mcp list");
    expect(existsSync(gyreJson())).toBe(false);
  });

  it("a malformed file is reported and left as it is", async () => {
    writeFileSync(projectJson(), "{ not json");
    const add = await gyre(["mcp", "add", "-s", "project", "srv", "--", "x"]);
    expect(add.code).toBe(1);
    expect(add.stderr).toContain(`gyre: config_error: MCP config ${projectJson()} is not valid JSON`);
    expect(readFileSync(projectJson(), "utf8")).toBe("{ not json");
  });
});

/** A scripted model that adds 2 and 3 with `tool`, then says it is done. */
async function modelCalling(...tools: string[]): Promise<MockLLMServer> {
  server = await startMockLLM({
    script: { turns: [...tools.map((tool) => mockTurn.toolUse(tool, { a: 2, b: 3 })), mockTurn.text("done")] },
  });
  return server;
}

const RUN = [
  "run",
  "add",
  "--output-format",
  "stream-json",
  "--no-session-persistence",
  "--permission-mode",
  "dontAsk",
];

/** The stream-json lines of a run that succeeded. */
function messagesOf(outcome: Outcome): SDKMessage[] {
  expect(outcome.code, outcome.stderr).toBe(0);
  return outcome.stdout
    .trim()
    .split("\n")
    .map((line) => SDKMessage.parse(JSON.parse(line)));
}

function initOf(messages: SDKMessage[]) {
  const init = messages[0];
  if (init?.type !== "system" || init.subtype !== "init") throw new Error("no init message");
  return init;
}

function toolResultTexts(messages: SDKMessage[]): unknown[] {
  return messages.flatMap((message) =>
    message.type === "user" && Array.isArray(message.message.content)
      ? message.message.content.flatMap((block) => (block.type === "tool_result" ? [block.content] : []))
      : [],
  );
}

function processLeaving(file: string) {
  return { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(file)}, "")`] };
}

describe("gyre run with MCP config files", () => {
  it.each([FORMATS[0], FORMATS[1]])(
    "$name: a trusted project's .mcp.json server is started and its result reaches the model",
    async (format) => {
      writeJson(projectJson(), { mcpServers: { calc: { type: "stdio", ...testServer } } });
      expect((await gyre(["trust", project])).code).toBe(0);
      const model = await modelCalling("mcp__calc__add");
      const messages = messagesOf(await gyre([...RUN, "--model", format.model]));
      expect(initOf(messages).mcp_servers).toEqual([{ name: "calc", status: "connected" }]);
      expect(toolResultTexts(messages)).toEqual(["5"]);
      const sent = JSON.stringify(model.requests[1]?.body);
      expect(sent).toMatch(format.name === "anthropic" ? /"type":"tool_result"[^}]*"content":"5"/ : /"output":"5"/);
    },
  );

  it("ENABLE_TOOL_SEARCH from a settings file's env defers the MCP tools: ToolSearch loads one, which then runs", async () => {
    writeJson(gyreJson(), { mcpServers: { calc: testServer } });
    writeJson(path.join(home, ".claude", "settings.json"), { env: { ENABLE_TOOL_SEARCH: "true" } });
    server = await startMockLLM({
      script: {
        turns: [
          mockTurn.toolUse("ToolSearch", { query: "select:mcp__calc__add" }),
          mockTurn.toolUse("mcp__calc__add", { a: 2, b: 3 }),
          mockTurn.text("done"),
        ],
      },
    });
    const messages = messagesOf(await gyre(RUN));
    const sent = (index: number) =>
      ((server?.requests[index]?.body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);
    expect(sent(0).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    expect(sent(0)).toContain("ToolSearch");
    expect(sent(1).filter((name) => name.startsWith("mcp__"))).toEqual(["mcp__calc__add"]);
    expect(toolResultTexts(messages).at(-1)).toBe("5");
  });

  it("an untrusted project's .mcp.json server is not started, and stderr says so", async () => {
    const pwned = path.join(project, "pwned");
    writeJson(projectJson(), { mcpServers: { evil: processLeaving(pwned) } });
    await modelCalling();
    const outcome = await gyre(RUN);
    expect(initOf(messagesOf(outcome)).mcp_servers).toEqual([]);
    expect(existsSync(pwned)).toBe(false);
    expect(outcome.stderr).toContain(
      `gyre: ignored settings of untrusted folder ${project}: .mcp.json (mcpServers.evil); its deny and ask rules still apply. To trust it: gyre trust ${project}\n`,
    );
  });

  it("--mcp-config takes a file and a JSON string (repeatable), with ${VAR} expanded, besides the files' servers", async () => {
    const configFile = path.join(root, "servers.json");
    writeJson(configFile, { mcpServers: { fromFile: { command: "${GYRE_TEST_NODE}", args: [TEST_SERVER] } } });
    writeJson(gyreJson(), { mcpServers: { fromHome: testServer } });
    await modelCalling("mcp__fromFile__add", "mcp__inline__add", "mcp__fromHome__add");
    const inline = JSON.stringify({ mcpServers: { inline: testServer } });
    const outcome = await gyre([...RUN, "--mcp-config", configFile, "--mcp-config", inline], {
      GYRE_TEST_NODE: process.execPath,
    });
    const messages = messagesOf(outcome);
    expect(initOf(messages).mcp_servers.map((status) => [status.name, status.status])).toEqual([
      ["fromHome", "connected"],
      ["fromFile", "connected"],
      ["inline", "connected"],
    ]);
    expect(toolResultTexts(messages)).toEqual(["5", "5", "5"]);
  });

  it("--strict-mcp-config: only --mcp-config's servers; a trusted project's .mcp.json server is not started", async () => {
    const started = path.join(root, "started");
    writeJson(projectJson(), { mcpServers: { leaves: processLeaving(started) } });
    writeJson(gyreJson(), { mcpServers: { fromHome: processLeaving(started) } });
    expect((await gyre(["trust", project])).code).toBe(0);
    await modelCalling("mcp__only__add");
    const inline = JSON.stringify({ mcpServers: { only: testServer } });
    const messages = messagesOf(await gyre([...RUN, "--strict-mcp-config", "--mcp-config", inline]));
    expect(initOf(messages).mcp_servers).toEqual([{ name: "only", status: "connected" }]);
    expect(toolResultTexts(messages)).toEqual(["5"]);
    expect(existsSync(started)).toBe(false);
  });

  it("a --mcp-config that cannot be used stops gyre run before any request", async () => {
    const model = await modelCalling();
    const unset = JSON.stringify({ mcpServers: { s: { command: "${GYRE_TEST_UNSET_VARIABLE}" } } });
    const cases: Array<[string, string]> = [
      [unset, 'MCP server "s" in --mcp-config JSON uses ${GYRE_TEST_UNSET_VARIABLE}, which is not set'],
      [path.join(root, "missing.json"), `--mcp-config: no such file ${path.join(root, "missing.json")}`],
      ['{"servers": {}}', '--mcp-config: --mcp-config JSON has no "mcpServers" object'],
    ];
    for (const [value, message] of cases) {
      const outcome = await gyre([...RUN, "--mcp-config", value]);
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toContain(`gyre: config_error: ${message}`);
    }
    expect(model.requests).toHaveLength(0);
  });
});
