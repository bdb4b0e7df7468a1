import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { McpStdioServerConfig } from "../src/index.js";
import { type MockLLMServer, mockTurn } from "../src/testing/index.js";
// @ts-expect-error -- a plain ES module fixture without types; only its constant is read.
import { PIXEL_PNG } from "./fixtures/mcp-test-server.mjs";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { processesWith } from "./mcp-support.js";

const CLI = resolve("dist/bin/gyre.js");
/** The formats whose behaviour is cheap to check in both: Anthropic's and OpenAI's wire format. */
const TWO_FORMATS = [FORMATS[0], FORMATS[1]] as const;
const SECRET = "the secret word is heliotrope";

let home: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
  // The server's own HOME: no settings file of the machine's user shapes what it allows.
  home = mkdtempSync(join(tmpdir(), "gyre-serve-home-"));
});

/** A project folder with one file the agent reads. */
function project(): { dir: string; notes: string } {
  const dir = mkdtempSync(join(tmpdir(), "gyre-serve-"));
  const notes = join(dir, "notes.txt");
  writeFileSync(notes, `${SECRET}\n`);
  return { dir, notes };
}

/** The environment of a served `gyre`: the mock LLM's provider variables, a throwaway HOME and GYRE_HOME. */
function serveEnv(mock: MockLLMServer, serverHome = home): Record<string, string> {
  const gyreHome = process.env.GYRE_HOME;
  if (!gyreHome) throw new Error("GYRE_HOME is not set: run the tests through vitest (test/global-setup.ts)");
  return { PATH: process.env.PATH ?? "", HOME: serverHome, GYRE_HOME: gyreHome, ...mock.env() };
}

function serveArgs(model: string, cwd: string, ...flags: string[]): string[] {
  return [CLI, "mcp", "serve", "--model", model, "--cwd", cwd, "--no-session-persistence", ...flags];
}

/** An MCP SDK client of `gyre mcp serve` over stdio. */
async function stdioClient(mock: MockLLMServer, args: string[]): Promise<Client> {
  const client = new Client({ name: "gyre-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args, env: serveEnv(mock), stderr: "inherit" }),
  );
  return client;
}

/** Start `gyre mcp serve --http 0` and wait for the line that gives its URL. */
async function startHttpServe(mock: MockLLMServer, args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...args, "--http", "0"], {
    env: serveEnv(mock),
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    const match = /listening on (http:\/\/\S+)/.exec(line);
    if (match?.[1]) return { child, url: match[1] };
  }
  throw new Error("gyre mcp serve --http exited without printing its URL");
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.once("exit", (code) => done(code)));
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
}

/** What the model was sent in request `index`, as text (every wire format carries tool results as strings). */
function sentToModel(mock: MockLLMServer, index: number): string {
  return JSON.stringify(mock.requests[index]?.body);
}

/** Wait until `condition` holds (checked every 25 ms), failing after `ms`. */
async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((done) => setTimeout(done, 25));
  }
}

/** The inner agent's script: read the notes, then answer with what they say. */
function readThenAnswer(notes: string) {
  return { turns: [mockTurn.toolUse("Read", { file_path: notes }), mockTurn.text("The word is heliotrope.")] };
}

/** Calls the agent tool; checks the answer, the outcome in structuredContent, the progress and what the model read. */
async function expectAgentAnswers(client: Client, mock: MockLLMServer, notes: string): Promise<void> {
  const progress: Progress[] = [];
  const result = (await client.callTool(
    { name: "agent", arguments: { prompt: "What is the secret word?" } },
    undefined,
    {
      onprogress: (update) => progress.push(update),
    },
  )) as CallToolResult;
  expect(result.isError).toBeFalsy();
  expect(textOf(result)).toBe("The word is heliotrope.");
  expect(result.structuredContent).toMatchObject({
    subtype: "success",
    terminal_reason: "completed",
    num_turns: 2,
    session_id: expect.any(String),
    permission_denials: 0,
  });
  const outcome = result.structuredContent as { total_cost_usd: number; usage: { input_tokens: number } };
  expect(outcome.total_cost_usd).toBeGreaterThan(0);
  expect(outcome.usage.input_tokens).toBeGreaterThan(0);
  // The server sends both updates before the result, in order; the MCP SDK's client handles
  // notifications a microtask later than responses, so the last one may be dropped when both
  // arrive together (seen on Node 24): what arrived is a prefix, and the Read step always does.
  const expected = [`Read: ${notes}`, "The word is heliotrope."];
  expect(progress.length).toBeGreaterThanOrEqual(1);
  expect(progress.map((update) => update.message)).toEqual(expected.slice(0, progress.length));
  expect(progress.map((update) => update.progress)).toEqual([1, 2].slice(0, progress.length));
  // The inner model got the file's content as the Read result.
  expect(sentToModel(mock, 1)).toContain(SECRET);
}

describe("gyre mcp serve with the MCP SDK's client", () => {
  it.each(TWO_FORMATS)(
    "stdio ($name): lists the agent tool and runs it: answer, cost and turns, progress",
    async (format) => {
      const { dir, notes } = project();
      await withMock(readThenAnswer(notes), async (mock) => {
        const client = await stdioClient(mock, serveArgs(format.model, dir));
        try {
          const { tools } = await client.listTools();
          // Without --tools the agent is the only tool.
          expect(tools.map((tool) => tool.name)).toEqual(["agent"]);
          expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["prompt"] });
          expect(tools[0]?.outputSchema).toMatchObject({ type: "object" });
          await expectAgentAnswers(client, mock, notes);
        } finally {
          await client.close();
        }
      });
    },
  );

  it("a call the settings do not allow is denied inside the run; a client's maxTurns cannot pass the server's", async () => {
    const { dir } = project();
    const script = {
      turns: [
        mockTurn.toolUse("Bash", { command: `touch ${join(dir, "pwned")}` }),
        mockTurn.toolUse("Bash", { command: `echo hi > ${join(dir, "pwned")}` }),
        mockTurn.text("never reached"),
      ],
    };
    await withMock(script, async (mock) => {
      const client = await stdioClient(mock, serveArgs(FORMATS[0].model, dir, "--max-turns", "2"));
      try {
        const result = (await client.callTool({
          name: "agent",
          arguments: { prompt: "make a file", maxTurns: 10 },
        })) as CallToolResult;
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain("error_max_turns");
        expect(result.structuredContent).toMatchObject({
          subtype: "error_max_turns",
          terminal_reason: "max_turns",
          num_turns: 2,
          permission_denials: 2,
        });
        // Nobody could be asked: the inner model was told no, and nothing was written.
        expect(sentToModel(mock, 1)).toContain("Permission to use Bash is required");
        expect(mock.requests).toHaveLength(2);
        expect(existsSync(join(dir, "pwned"))).toBe(false);
      } finally {
        await client.close();
      }
    });
  });

  it("the agent's runs get the servers of --mcp-config, as gyre run's do", async () => {
    const { dir } = project();
    const everything = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    const config = JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } },
    });
    const script = {
      turns: [mockTurn.toolUse("mcp__everything__echo", { message: "through two servers" }), mockTurn.text("echoed")],
    };
    await withMock(script, async (mock) => {
      const flags = ["--mcp-config", config, "--allowed-tools", "mcp__everything__echo"];
      const client = await stdioClient(mock, serveArgs(FORMATS[0].model, dir, ...flags));
      try {
        const result = (await client.callTool({ name: "agent", arguments: { prompt: "echo" } })) as CallToolResult;
        expect(textOf(result)).toBe("echoed");
        expect(sentToModel(mock, 1)).toContain("through two servers");
      } finally {
        await client.close();
      }
    });
  });

  it("--http 0: streamable HTTP on 127.0.0.1 with a session per client; a web page's request is refused; SIGTERM ends it", async () => {
    const { dir, notes } = project();
    await withMock(readThenAnswer(notes), async (mock) => {
      const { child, url } = await startHttpServe(mock, serveArgs(FORMATS[0].model, dir));
      try {
        expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
        const transport = new StreamableHTTPClientTransport(new URL(url));
        const client = new Client({ name: "gyre-test", version: "1.0.0" });
        await client.connect(transport);
        const other = new StreamableHTTPClientTransport(new URL(url));
        const otherClient = new Client({ name: "gyre-test-2", version: "1.0.0" });
        await otherClient.connect(other);
        expect(transport.sessionId).toEqual(expect.any(String));
        expect(other.sessionId).toEqual(expect.any(String));
        expect(other.sessionId).not.toBe(transport.sessionId);
        await expectAgentAnswers(client, mock, notes);
        // A page in the person's browser posting to the server (Origin set) drives no agent.
        const fromPage = await fetch(url, {
          method: "POST",
          headers: {
            origin: "https://evil.example",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        });
        expect(fromPage.status).toBe(403);
        await client.close();
        await otherClient.close();
      } finally {
        child.kill("SIGTERM");
      }
      expect(await exitOf(child)).toBe(0);
    });
  });

  it("an unknown flag is a usage error with exit code 2", async () => {
    const child = spawn(process.execPath, [CLI, "mcp", "serve", "--no-such-flag"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toContain("--no-such-flag");
    expect(stderr).toContain("Usage: gyre mcp serve");
  });
});

describe("gyre mcp serve with Gyre's own MCP client, through the loop", () => {
  /** `gyre mcp serve` as a stdio server of a run, on the inner mock LLM. */
  function gyreServer(inner: MockLLMServer, model: string, cwd: string, ...flags: string[]): McpStdioServerConfig {
    return { command: process.execPath, args: serveArgs(model, cwd, ...flags), env: serveEnv(inner) };
  }

  it.each(TWO_FORMATS)(
    "($name) the model calls mcp__gyre__agent and receives the inner agent's answer",
    async (format) => {
      const { dir, notes } = project();
      await withMock(readThenAnswer(notes), async (inner) => {
        const outerScript = {
          turns: [
            mockTurn.toolUse("mcp__gyre__agent", { prompt: "What is the secret word?" }),
            mockTurn.text("heliotrope"),
          ],
        };
        await withMock(outerScript, async (outer) => {
          const messages = await runQuery(outer, format, "ask the other agent", {
            tools: [],
            mcpServers: { gyre: gyreServer(inner, format.model, dir) },
            allowedTools: ["mcp__gyre__agent"],
          });
          const init = messages[0];
          expect(init).toMatchObject({
            type: "system",
            subtype: "init",
            mcp_servers: [{ name: "gyre", status: "connected" }],
          });
          const [result] = toolResults(messages);
          expect(result?.is_error).toBeUndefined();
          expect(result?.content).toBe("The word is heliotrope.");
          // The outer model was sent the inner agent's answer.
          expect(sentToModel(outer, 1)).toContain("The word is heliotrope.");
          expect(sentToModel(inner, 1)).toContain(SECRET);
          expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "heliotrope" });
        });
      });
    },
  );

  it("--tools: hooks of the settings files run around each call, as in a run", async () => {
    const { dir } = project();
    const log = join(dir, "post-tool-use.log");
    // User settings are trusted: their hooks run. PreToolUse blocks a word, PostToolUse logs what ran.
    const userHome = mkdtempSync(join(tmpdir(), "gyre-serve-hooks-home-"));
    mkdirSync(join(userHome, ".gyre"));
    const hook = (command: string) => [{ matcher: "Bash", hooks: [{ type: "command", command }] }];
    writeFileSync(
      join(userHome, ".gyre", "settings.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: hook('if grep -q forbidden; then echo "no forbidden words" >&2; exit 2; fi'),
          PostToolUse: hook(`cat >> ${log}`),
        },
      }),
    );
    const calls = [
      mockTurn.toolUse("mcp__gyre__Bash", { command: "echo forbidden" }),
      mockTurn.toolUse("mcp__gyre__Bash", { command: "echo fine" }),
      mockTurn.text("done"),
    ];
    await withMock({ turns: calls }, async (outer) => {
      const server = gyreServer(outer, FORMATS[0].model, dir, "--tools", "--allowed-tools", "Bash(echo:*)");
      const messages = await runQuery(outer, FORMATS[0], "use Bash", {
        tools: [],
        mcpServers: { gyre: { ...server, env: serveEnv(outer, userHome) } },
        allowedTools: ["mcp__gyre"],
      });
      const [blocked, ran] = toolResults(messages);
      expect(blocked?.is_error).toBe(true);
      expect(String(blocked?.content)).toContain("no forbidden words");
      expect(sentToModel(outer, 1)).toContain("no forbidden words");
      expect(ran?.is_error).toBeUndefined();
      expect(String(ran?.content)).toContain("fine");
      const logged = readFileSync(log, "utf8");
      expect(logged).toContain('"command":"echo fine"');
      expect(logged).not.toContain("forbidden");
    });
  });

  it("--tools: built-in tools listed with their schemas and read-only hints", async () => {
    const { dir } = project();
    await withMock({ turns: [] }, async (mock) => {
      const client = await stdioClient(mock, serveArgs(FORMATS[0].model, dir, "--tools"));
      try {
        const { tools } = await client.listTools();
        const byName = new Map(tools.map((tool) => [tool.name, tool]));
        expect([...byName.keys()]).toEqual(
          expect.arrayContaining(["agent", "Bash", "Read", "Write", "Edit", "Glob", "Grep"]),
        );
        expect(byName.get("Read")?.annotations?.readOnlyHint).toBe(true);
        expect(byName.get("Grep")?.annotations?.readOnlyHint).toBe(true);
        expect(byName.get("Bash")?.annotations?.readOnlyHint).toBe(false);
        expect(byName.get("Write")?.annotations?.readOnlyHint).toBe(false);
        expect(byName.get("Read")?.inputSchema).toMatchObject({ type: "object", required: ["file_path"] });
        expect(byName.get("Bash")?.inputSchema).toMatchObject({ required: ["command"] });
      } finally {
        await client.close();
      }
    });
  });

  it.each(TWO_FORMATS)(
    "($name) --tools: calls meet the server's permission settings, whatever the calling run allows",
    async (format) => {
      const { dir, notes } = project();
      const outside = mkdtempSync(join(tmpdir(), "gyre-serve-outside-"));
      writeFileSync(join(dir, "pixel.png"), Buffer.from(PIXEL_PNG, "base64"));
      writeFileSync(join(dir, "secret.txt"), "do not read\n");
      // The project's settings file is not trusted (gyre trust), but its deny rules apply, as in gyre run.
      mkdirSync(join(dir, ".claude"));
      writeFileSync(
        join(dir, ".claude", "settings.json"),
        JSON.stringify({ permissions: { deny: ["Read(./secret.txt)"] } }),
      );
      const calls = [
        mockTurn.toolUse("mcp__gyre__Read", { file_path: notes }),
        mockTurn.toolUse("mcp__gyre__Read", { file_path: join(dir, "pixel.png") }),
        mockTurn.toolUse("mcp__gyre__Read", { file_path: join(dir, "secret.txt") }),
        mockTurn.toolUse("mcp__gyre__Bash", { command: "echo allowed" }),
        // Starts like the allowed `echo`, then does what no rule allows.
        mockTurn.toolUse("mcp__gyre__Bash", { command: `echo ok && touch ${join(dir, "pwned")}` }),
        mockTurn.toolUse("mcp__gyre__Bash", { command: `echo $(touch ${join(dir, "pwned-too")})` }),
        mockTurn.toolUse("mcp__gyre__Write", { file_path: join(outside, "escaped.txt"), content: "x" }),
        mockTurn.toolUse("mcp__gyre__Write", { file_path: join(dir, "inside.txt"), content: "written" }),
        mockTurn.text("done"),
      ];
      await withMock({ turns: calls }, async (outer) => {
        const messages = await runQuery(outer, format, "use the tools", {
          tools: [],
          mcpServers: {
            gyre: gyreServer(
              outer,
              format.model,
              dir,
              "--tools",
              "--allowed-tools",
              "Bash(echo:*)",
              "--permission-mode",
              "acceptEdits",
            ),
          },
          // The calling run allows every call of the server, in both folders: only the server's settings stand in the way.
          allowedTools: ["mcp__gyre"],
          cwd: dir,
          additionalDirectories: [outside],
        });
        const results = toolResults(messages);
        expect(results).toHaveLength(8);
        const [read, image, secret, echo, chained, substituted, outsideWrite, insideWrite] = results;
        expect(read?.is_error).toBeUndefined();
        expect(String(read?.content)).toContain(SECRET);
        // An image comes back as image content, and reaches the model as an image.
        expect(image?.content).toEqual([
          { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL_PNG } },
        ]);
        expect(secret?.is_error).toBe(true);
        expect(String(secret?.content)).toContain("secret.txt");
        expect(String(secret?.content)).not.toContain("do not read");
        expect(echo?.is_error).toBeUndefined();
        expect(String(echo?.content)).toContain("allowed");
        // Refused by the server (its tool names), not by the calling run (mcp__gyre__…).
        for (const [denied, tool] of [
          [chained, "Bash"],
          [substituted, "Bash"],
          [outsideWrite, "Write"],
        ] as const) {
          expect(denied?.is_error).toBe(true);
          expect(String(denied?.content)).toContain(`Permission to use ${tool} is required`);
        }
        expect(insideWrite?.is_error).toBeUndefined();
        // What the model was sent for the refused calls is the refusal.
        expect(sentToModel(outer, 5)).toContain("Permission to use Bash");
        expect(existsSync(join(dir, "pwned"))).toBe(false);
        expect(existsSync(join(dir, "pwned-too"))).toBe(false);
        expect(readdirSync(outside)).toEqual([]);
        expect(readFileSync(join(dir, "inside.txt"), "utf8")).toBe("written");
        expect(resultOf(messages)).toMatchObject({ subtype: "success" });
      });
    },
  );
});

describe("cancelling a call", () => {
  it("the client's cancellation aborts the inner run: its command ends, the server stays up", async () => {
    const { dir } = project();
    // The sleep's argument finds its process in /proc (the shell may exec it, leaving only `sleep MARKER`).
    const marker = `${300 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    const script = { turns: [mockTurn.toolUse("Bash", { command: `sleep ${marker}` }), mockTurn.text("slept")] };
    await withMock(script, async (mock) => {
      const client = await stdioClient(mock, serveArgs(FORMATS[0].model, dir, "--allowed-tools", "Bash(sleep:*)"));
      try {
        const controller = new AbortController();
        const progress: Progress[] = [];
        const call = client.callTool({ name: "agent", arguments: { prompt: "sleep" } }, undefined, {
          signal: controller.signal,
          onprogress: (update) => progress.push(update),
        });
        const settled = call.then(
          () => "resolved",
          () => "rejected",
        );
        await until(() => processesWith(marker).length > 0, "the inner Bash call runs");
        expect(progress.map((update) => update.message)).toEqual([`Bash: sleep ${marker}`]);
        controller.abort();
        expect(await settled).toBe("rejected");
        await until(() => processesWith(marker).length === 0, "the aborted command has ended");
        // The run stopped: the model was never asked for a second turn.
        expect(mock.requests).toHaveLength(1);
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(["agent"]);
      } finally {
        await client.close();
      }
    });
  });

  it("interrupting a Gyre run cancels its call of mcp__gyre__agent: the inner run's command ends", async () => {
    const { dir } = project();
    const marker = `${300 + Math.floor(Math.random() * 1000)}.${process.pid}1`;
    const innerScript = { turns: [mockTurn.toolUse("Bash", { command: `sleep ${marker}` }), mockTurn.text("slept")] };
    await withMock(innerScript, async (inner) => {
      const outerScript = {
        turns: [mockTurn.toolUse("mcp__gyre__agent", { prompt: "sleep" }), mockTurn.text("never")],
      };
      await withMock(outerScript, async (outer) => {
        const controller = new AbortController();
        const run = runQuery(outer, FORMATS[0], "delegate", {
          tools: [],
          mcpServers: {
            gyre: {
              command: process.execPath,
              args: serveArgs(FORMATS[0].model, dir, "--allowed-tools", "Bash(sleep:*)"),
              env: serveEnv(inner),
            },
          },
          allowedTools: ["mcp__gyre__agent"],
          abortController: controller,
        });
        await until(() => processesWith(marker).length > 0, "the inner Bash call runs");
        controller.abort();
        const messages = await run;
        expect(resultOf(messages)).toMatchObject({ terminal_reason: "aborted" });
        await until(() => processesWith(marker).length === 0, "the inner command has ended");
        expect(inner.requests).toHaveLength(1);
      });
    });
  });

  it("SIGTERM to an HTTP server with a run in flight aborts the run, answers the call, and exits cleanly", async () => {
    const { dir } = project();
    const marker = `${300 + Math.floor(Math.random() * 1000)}.${process.pid}2`;
    const script = { turns: [mockTurn.toolUse("Bash", { command: `sleep ${marker}` }), mockTurn.text("slept")] };
    await withMock(script, async (mock) => {
      const { child, url } = await startHttpServe(
        mock,
        serveArgs(FORMATS[0].model, dir, "--allowed-tools", "Bash(sleep:*)"),
      );
      const client = new Client({ name: "gyre-test", version: "1.0.0" });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        const call = client.callTool({ name: "agent", arguments: { prompt: "sleep" } });
        await until(() => processesWith(marker).length > 0, "the inner Bash call runs");
        child.kill("SIGTERM");
        expect(await exitOf(child)).toBe(0);
        expect(processesWith(marker)).toEqual([]);
        // The server answered the call before it closed: the client knows the run was aborted
        // (the server's shutdown, not an interrupt).
        const result = (await call) as CallToolResult;
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain("aborted");
        expect(result.structuredContent).toMatchObject({ terminal_reason: "aborted" });
      } finally {
        child.kill("SIGKILL");
        await client.close();
      }
    });
  });
});
