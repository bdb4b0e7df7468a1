import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createSdkMcpServer,
  type McpStdioServerConfig,
  query,
  type SDKMessage,
  tool,
  wrapTextProtocol,
} from "../src/index.js";
import { elicitationAsker } from "../src/cli/ask-elicitation.js";
import { mockTurn } from "../src/testing/index.js";
// @ts-expect-error -- a plain ES module fixture without types; only its constant is read.
import { PIXEL_PNG } from "./fixtures/mcp-calls-server.mjs";
import { calculator, FORMATS, mockEnv, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { compatPeer } from "./compat-peers.js";
import { text } from "./mcp-support.js";

// The Anthropic and OpenAI (Responses) wire formats.
const FORMATS_UNDER_TEST = [FORMATS[0], FORMATS[1]];
const anthropic = FORMATS[0];
const EVERYTHING = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const CALLS_SERVER = resolve("test/fixtures/mcp-calls-server.mjs");
const FILESYSTEM = join(
  compatPeer("mcp-filesystem"),
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

const everything: McpStdioServerConfig = { command: process.execPath, args: [EVERYTHING, "stdio"] };

/** The calls fixture, logging to a fresh file the test reads. */
function callsServer(): { config: McpStdioServerConfig; log: () => string } {
  const dir = mkdtempSync(join(tmpdir(), "gyre-mcp-calls-"));
  dirs.push(dir);
  const file = join(dir, "log.txt");
  return {
    config: { command: process.execPath, args: [CALLS_SERVER, file] },
    log: () => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        return "";
      }
    },
  };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Resolves once `condition` holds (checked every 20 ms); fails after 10 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** As {@link until}, for a condition that takes a moment to check. */
async function untilAsync(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** What the model was sent in the request after the tool call (the tool result in that wire format). */
function sentAfterCall(server: { requests: ReadonlyArray<{ body: unknown }> }): string {
  return JSON.stringify(server.requests[1]?.body);
}

describe("MCP call results: MAX_MCP_OUTPUT_TOKENS", () => {
  for (const format of FORMATS_UNDER_TEST) {
    it(`${format.name}: text over the limit is cut with a note saying what was cut and how to ask for less`, async () => {
      const { config } = callsServer();
      const script = { turns: [mockTurn.toolUse("mcp__calls__big", { chars: 200_000 }), mockTurn.text("ok")] };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "big", {
          tools: [],
          mcpServers: { calls: config },
          env: { ...mockEnv(server), MAX_MCP_OUTPUT_TOKENS: "1000" },
        });
        const content = text(toolResults(messages)[0]?.content);
        expect(content.startsWith("line 0\nline 1\n")).toBe(true);
        expect(content).toContain("OUTPUT TRUNCATED");
        expect(content).toContain("limit of 1000 tokens");
        expect(content).toContain("MAX_MCP_OUTPUT_TOKENS");
        expect(content).toContain("pagination");
        // Within the limit, note included (characters / 4).
        expect(content.length).toBeLessThanOrEqual(4000);
        expect(sentAfterCall(server)).toContain("OUTPUT TRUNCATED");
        expect(sentAfterCall(server)).not.toContain("line 9000");
      });
    });
  }

  it("the default is 25,000 tokens: 90,000 characters pass whole, 150,000 are cut to the limit", async () => {
    const { config } = callsServer();
    const turns = [
      mockTurn.toolUse("mcp__calls__big", { chars: 90_000 }),
      mockTurn.toolUse("mcp__calls__big", { chars: 150_000 }),
      mockTurn.text("ok"),
    ];
    await withMock({ turns }, async (server) => {
      const messages = await runQuery(server, anthropic, "big", { tools: [], mcpServers: { calls: config } });
      const [whole, cut] = toolResults(messages).map((result) => text(result.content));
      expect(whole).toHaveLength(90_000);
      expect(whole).not.toContain("TRUNCATED");
      expect(cut).toContain("limit of 25000 tokens");
      expect(cut?.length).toBeLessThanOrEqual(100_000);
      expect(cut?.length).toBeGreaterThan(90_000);
    });
  });

  it("images count too: those past the limit are dropped and named in the note", async () => {
    const { config } = callsServer();
    const script = { turns: [mockTurn.toolUse("mcp__calls__big", { chars: 10, images: 5 }), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "images", {
        tools: [],
        mcpServers: { calls: config },
        env: { ...mockEnv(server), MAX_MCP_OUTPUT_TOKENS: "4000" },
      });
      const content = toolResults(messages)[0]?.content as Array<{ type: string; text?: string }>;
      expect(content.map((block) => block.type)).toEqual(["text", "image", "image", "text"]);
      expect(content[3]?.text).toContain("3 images were cut");
    });
  });
});

describe("MCP call timeouts and cancellation", () => {
  it("MCP_TOOL_TIMEOUT cancels the call (the server is told) and the model gets an error naming server, tool and timeout", async () => {
    const { config, log } = callsServer();
    const script = { turns: [mockTurn.toolUse("mcp__calls__slow"), mockTurn.text("too slow")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "slow", {
        tools: [],
        mcpServers: { calls: config },
        allowedTools: ["mcp__calls"],
        env: { ...mockEnv(server), MCP_TOOL_TIMEOUT: "300" },
      });
      const [result] = toolResults(messages);
      expect(result?.is_error).toBe(true);
      expect(text(result?.content)).toContain('MCP server "calls": tool "slow" timed out after 300 ms');
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "too slow" });
      await until(() => log().includes("cancelled slow"), "the server to see the cancellation");
      expect(log()).toContain("timed out");
    });
  });

  it("a server's own timeout wins over MCP_TOOL_TIMEOUT", async () => {
    const { config } = callsServer();
    const script = { turns: [mockTurn.toolUse("mcp__calls__slow"), mockTurn.text("too slow")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "slow", {
        tools: [],
        mcpServers: { calls: { ...config, timeout: 250 } },
        allowedTools: ["mcp__calls"],
        env: { ...mockEnv(server), MCP_TOOL_TIMEOUT: "600000" },
      });
      expect(text(toolResults(messages)[0]?.content)).toContain("timed out after 250 ms");
    });
  });

  it("aborting the run mid-call sends the server MCP's cancellation", async () => {
    const { config, log } = callsServer();
    const script = { turns: [mockTurn.toolUse("mcp__calls__slow"), mockTurn.text("never")] };
    await withMock(script, async (server) => {
      const abortController = new AbortController();
      const q = query({
        prompt: "slow",
        options: {
          model: anthropic.model,
          env: mockEnv(server),
          persistSession: false,
          tools: [],
          mcpServers: { calls: config },
          allowedTools: ["mcp__calls"],
          abortController,
        },
      });
      const messages: SDKMessage[] = [];
      const done = (async () => {
        for await (const message of q) messages.push(message);
      })();
      await until(() => log().includes("started slow"), "the call to start");
      abortController.abort();
      await done;
      expect(resultOf(messages).subtype).not.toBe("success");
      await until(() => log().includes("cancelled slow"), "the server to see the cancellation");
    });
  });
});

describe("MCP progress", () => {
  it("server-everything's progress notifications reach the stream as tool_progress data", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("mcp__everything__trigger-long-running-operation", { duration: 3, steps: 3 }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "run it", { tools: [], mcpServers: { everything } });
      const progress = messages.filter((m) => m.type === "tool_progress");
      expect(progress.length).toBeGreaterThan(0);
      const data = progress.flatMap((m) => (m.type === "tool_progress" && m.data !== undefined ? [m.data] : []));
      expect(data).toContainEqual({ progress: expect.any(Number), total: 3 });
      expect(text(toolResults(messages)[0]?.content)).toContain("Long running operation completed");
    });
  });
});

describe("MCP resources: ListMcpResources and ReadMcpResource", () => {
  for (const format of FORMATS_UNDER_TEST) {
    it(`${format.name}: server-everything's resources are listed and read, without asking (read-only)`, async () => {
      const uri = "demo://resource/static/document/architecture.md";
      const turns = [
        mockTurn.toolUse("ListMcpResources", {}),
        mockTurn.toolUse("ReadMcpResource", { server: "everything", uri }),
        mockTurn.toolUse("ReadMcpResource", { server: "everything", uri: "demo://resource/dynamic/blob/7" }),
        mockTurn.toolUse("ReadMcpResource", { server: "nowhere", uri }),
        mockTurn.text("read"),
      ];
      await withMock({ turns }, async (server) => {
        const messages = await runQuery(server, format, "resources", { tools: [], mcpServers: { everything } });
        const init = messages[0];
        expect(init?.type === "system" && init.subtype === "init" && init.tools).toEqual(
          expect.arrayContaining(["ListMcpResources", "ReadMcpResource"]),
        );
        const [listed, read, blob, unknown] = toolResults(messages);
        const entries = JSON.parse(text(listed?.content)) as Array<Record<string, unknown>>;
        expect(entries).toContainEqual({
          uri,
          name: "architecture.md",
          mimeType: "text/markdown",
          description: expect.any(String),
          server: "everything",
        });
        const architecture = readFileSync(
          resolve("node_modules/@modelcontextprotocol/server-everything/dist/docs/architecture.md"),
          "utf8",
        );
        expect(read).toMatchObject({ content: architecture });
        expect(read?.is_error).toBeUndefined();
        // A text/plain blob is decoded for the model.
        expect(text(blob?.content)).toContain("Resource 7: This is a base64 blob");
        expect(unknown?.is_error).toBe(true);
        expect(text(unknown?.content)).toContain('No MCP server "nowhere" with resources');
        expect(text(unknown?.content)).toContain("everything");
        expect(server.requests[2] && JSON.stringify(server.requests[2].body)).toContain(
          JSON.stringify(architecture.slice(0, 40)).slice(1, -1),
        );
      });
    });
  }

  it("a run whose servers offer no resources gets no resource tools", async () => {
    const { config } = callsServer();
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", { tools: [], mcpServers: { calls: config } });
      const init = messages[0];
      const tools = init?.type === "system" && init.subtype === "init" ? init.tools : [];
      expect(tools).toContain("mcp__calls__big");
      expect(tools).not.toContain("ListMcpResources");
      expect(tools).not.toContain("ReadMcpResource");
    });
  });
});

describe("MCP structuredContent", () => {
  it("is the tool result's data: the SDK message's tool_use_result carries it, the model gets the text", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("mcp__everything__get-structured-content", { location: "Chicago" }),
        mockTurn.text("rain"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "weather", { tools: [], mcpServers: { everything } });
      const weather = { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 };
      const user = messages.find((m) => m.type === "user" && toolResults([m]).length > 0);
      const [result] = toolResults(messages);
      expect(user?.type === "user" && user.tool_use_result).toEqual({ [String(result?.tool_use_id)]: weather });
      expect(JSON.parse(text(result?.content))).toEqual(weather);
    });
  });
});

describe("MCP elicitation", () => {
  const elicit = "mcp__everything__trigger-elicitation-request";

  it("onElicitation answers: accepted content reaches the server, which the model sees", async () => {
    const seen: Array<Record<string, unknown>> = [];
    await withMock({ turns: [mockTurn.toolUse(elicit), mockTurn.text("thanks")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "ask me", {
        tools: [],
        mcpServers: { everything },
        allowedTools: [elicit],
        onElicitation: async (request, { signal }) => {
          seen.push({ ...request, aborted: signal.aborted });
          return { action: "accept", content: { name: "Ada Lovelace", check: true, integer: 7 } };
        },
      });
      expect(seen).toEqual([
        expect.objectContaining({
          serverName: "everything",
          mode: "form",
          message: "Please provide inputs for the following fields:",
          requestedSchema: expect.objectContaining({ required: ["name"] }),
          aborted: false,
        }),
      ]);
      const content = text(toolResults(messages)[0]?.content);
      expect(content).toContain("- Name: Ada Lovelace");
      expect(content).toContain("- Agreed to terms: true");
      expect(content).toContain("- Favorite Integer: 7");
    });
  });

  it("the CLI's asker: the person is asked each field; empty lines take the defaults", async () => {
    const asked: string[] = [];
    const answers: Record<string, string> = { "MCP server": "answer", String: "Grace Hopper", Boolean: "y" };
    const ask = async (question: string) => {
      asked.push(question);
      // The question starts with the field's title, then its hints in parentheses.
      const title = question.startsWith("MCP server") ? "MCP server" : question.split(" (")[0];
      return answers[title ?? ""] ?? "";
    };
    await withMock({ turns: [mockTurn.toolUse(elicit), mockTurn.text("thanks")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "ask me", {
        tools: [],
        mcpServers: { everything },
        allowedTools: [elicit],
        onElicitation: elicitationAsker(ask),
      });
      expect(asked[0]).toBe('MCP server "everything" asks: Please provide inputs for the following fields:');
      expect(asked[1]).toBe("String (Your full, legal name; required)");
      const content = text(toolResults(messages)[0]?.content);
      expect(content).toContain("- Name: Grace Hopper");
      expect(content).toContain("- Agreed to terms: true");
      expect(content).toContain("- Favorite Integer: 42");
    });
  });

  it("a decline is sent as a decline", async () => {
    await withMock({ turns: [mockTurn.toolUse(elicit), mockTurn.text("ok")] }, async (server) => {
      const messages = await runQuery(server, FORMATS[1], "ask me", {
        tools: [],
        mcpServers: { everything },
        allowedTools: [elicit],
        onElicitation: async () => ({ action: "decline" }),
      });
      expect(text(toolResults(messages)[0]?.content)).toContain('"action": "decline"');
    });
  });

  it("an accepted answer that does not match the requested schema is never sent: the server gets an error", async () => {
    const { config } = callsServer();
    await withMock({ turns: [mockTurn.toolUse("mcp__calls__ask"), mockTurn.text("ok")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "ask me", {
        tools: [],
        mcpServers: { calls: config },
        allowedTools: ["mcp__calls"],
        onElicitation: async () => ({ action: "accept", content: { name: "A" } }),
      });
      const content = text(toolResults(messages)[0]?.content);
      expect(content).toContain("refused:");
      expect(content).toContain("does not match the requested schema");
      expect(content).not.toContain("answer:");
    });
  });

  it("without onElicitation the client offers no elicitation: such tools are not listed, a request fails at once", async () => {
    const { config } = callsServer();
    const turns = [mockTurn.toolUse("mcp__calls__ask"), mockTurn.text("ok")];
    await withMock({ turns }, async (server) => {
      const messages = await runQuery(server, anthropic, "ask me", {
        tools: [],
        mcpServers: { calls: config, everything },
        allowedTools: ["mcp__calls"],
      });
      const init = messages[0];
      const tools = init?.type === "system" && init.subtype === "init" ? init.tools : [];
      expect(tools).toContain("mcp__everything__echo");
      expect(tools).not.toContain(elicit);
      const content = text(toolResults(messages)[0]?.content);
      expect(content).toContain("refused:");
      expect(content).toContain("Method not found");
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    });
  });
});

const LOOPBACK_ONLY = pathToFileURL(resolve("test/fixtures/listen-loopback.mjs")).href;

describe("server-everything over streamable HTTP", () => {
  let child: ChildProcess | undefined;
  let url = "";

  beforeAll(async () => {
    const port = await freePort();
    // server-everything listens on every interface; the preload keeps it on 127.0.0.1.
    child = spawn(process.execPath, ["--import", LOOPBACK_ONLY, EVERYTHING, "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: "ignore",
    });
    url = `http://127.0.0.1:${port}/mcp`;
    await untilAsync(() => listening(port), "server-everything to listen");
    // Bound to 127.0.0.1 only: no socket of any other address listens on the port.
    expect(listeningAddresses(port)).toEqual(["0100007F"]);
  });

  afterAll(() => {
    child?.kill();
  });

  for (const format of FORMATS_UNDER_TEST) {
    it(`${format.name}: echo, get-sum, an image and a resource through the loop`, async () => {
      const uri = "demo://resource/static/document/features.md";
      const turns = [
        mockTurn.toolUse("mcp__web__echo", { message: "over http" }),
        mockTurn.toolUse("mcp__web__get-sum", { a: 2, b: 40 }),
        mockTurn.toolUse("mcp__web__get-tiny-image"),
        mockTurn.toolUse("ReadMcpResource", { server: "web", uri }),
        mockTurn.text("done"),
      ];
      await withMock({ turns }, async (server) => {
        const messages = await runQuery(server, format, "http", {
          tools: [],
          mcpServers: { web: { type: "http", url } },
          allowedTools: ["mcp__web__echo"],
        });
        const init = messages[0];
        expect(init?.type === "system" && init.subtype === "init" && init.mcp_servers).toEqual([
          { name: "web", status: "connected" },
        ]);
        const [echo, sum, image, resource] = toolResults(messages);
        expect(echo).toMatchObject({ content: "Echo: over http" });
        expect(sum).toMatchObject({ content: "The sum of 2 and 40 is 42." });
        const blocks = image?.content as Array<{ type: string; source?: { media_type: string } }>;
        expect(blocks.map((block) => block.type)).toEqual(["text", "image", "text"]);
        expect(blocks[1]?.source?.media_type).toBe("image/png");
        expect(text(resource?.content)).toContain(
          readFileSync(
            resolve("node_modules/@modelcontextprotocol/server-everything/dist/docs/features.md"),
            "utf8",
          ).slice(0, 60),
        );
        expect(sentAfterCall(server)).toContain("Echo: over http");
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "done" });
      });
    });
  }
});

describe("@modelcontextprotocol/server-filesystem over stdio", () => {
  function filesystem(): { dir: string; config: McpStdioServerConfig } {
    const dir = mkdtempSync(join(tmpdir(), "gyre-mcp-fs-"));
    dirs.push(dir);
    writeFileSync(join(dir, "notes.txt"), "first line\nsecond line\n");
    writeFileSync(join(dir, "pixel.png"), Buffer.from(PIXEL_PNG, "base64"));
    return { dir, config: { command: process.execPath, args: [FILESYSTEM, dir] } };
  }

  for (const format of FORMATS_UNDER_TEST) {
    it(`${format.name}: its read and list tools (readOnlyHint) run without a rule; an image file is an image`, async () => {
      const { dir, config } = filesystem();
      const turns = [
        mockTurn.toolUse("mcp__fs__read_text_file", { path: join(dir, "notes.txt") }),
        mockTurn.toolUse("mcp__fs__list_directory", { path: dir }),
        mockTurn.toolUse("mcp__fs__read_media_file", { path: join(dir, "pixel.png") }),
        mockTurn.text("read"),
      ];
      await withMock({ turns }, async (server) => {
        // In the workspace: a read outside it would ask, MCP tool or not.
        const messages = await runQuery(server, format, "read", { tools: [], mcpServers: { fs: config }, cwd: dir });
        const [read, list, media] = toolResults(messages);
        expect(read).toMatchObject({ content: "first line\nsecond line\n" });
        expect(text(list?.content)).toContain("[FILE] notes.txt");
        expect(media?.content).toEqual([
          { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL_PNG } },
        ]);
        expect(sentAfterCall(server)).toContain("first line");
      });
    });
  }

  it("its write tools are not read-only: without a rule they are refused and nothing is written", async () => {
    const { dir, config } = filesystem();
    const target = join(dir, "planted.txt");
    const turns = [
      mockTurn.toolUse("mcp__fs__write_file", { path: target, content: "pwned" }),
      mockTurn.toolUse("mcp__fs__create_directory", { path: join(dir, "made") }),
      mockTurn.text("could not"),
    ];
    for (const permissionMode of ["default", "dontAsk"] as const) {
      await withMock({ turns }, async (server) => {
        const messages = await runQuery(server, anthropic, "write", {
          tools: [],
          mcpServers: { fs: config },
          cwd: dir,
          permissionMode,
        });
        const results = toolResults(messages);
        expect(results.map((result) => result.is_error)).toEqual([true, true]);
        expect(resultOf(messages).permission_denials.map((denial) => denial.tool_name)).toEqual([
          "mcp__fs__write_file",
          "mcp__fs__create_directory",
        ]);
        expect(existsSync(target)).toBe(false);
        expect(existsSync(join(dir, "made"))).toBe(false);
      });
    }
  });
});

describe("MCP tools for text-protocol models", () => {
  const block = (call: Record<string, unknown>) => `<tool>\n${JSON.stringify(call)}\n</tool>`;

  it('lists MCP tools per server; a <tool> block with "server_name" calls the server\'s tool, "local" our own', async () => {
    const calc = createSdkMcpServer({
      name: "calc",
      tools: [
        tool("add", "Add two numbers.", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
          content: [{ type: "text", text: String(a + b) }],
        })),
      ],
    });
    const turns = [
      mockTurn.text(block({ server_name: "calc", tool_name: "add", arguments: { a: 2, b: 3 } })),
      mockTurn.text(block({ server_name: "local", tool_name: "calculator", arguments: { a: 6, b: 7, op: "*" } })),
      mockTurn.text(block({ server_name: "calc", tool_name: "mcp__calc__add", arguments: { a: 1, b: 1 } })),
      // Not a tool of calc: never the local calculator of the same name.
      mockTurn.text(block({ server_name: "calc", tool_name: "calculator", arguments: { a: 1, b: 1, op: "+" } })),
      mockTurn.text("5, 42 and 2."),
    ];
    await withMock({ turns }, async (server) => {
      const provider = createOpenAICompatible({ name: "local", baseURL: server.baseURL, includeUsage: true });
      const messages: SDKMessage[] = [];
      const q = query({
        prompt: "sums",
        options: {
          model: wrapTextProtocol(provider("small-model")),
          tools: [calculator],
          mcpServers: { calc },
          allowedTools: ["mcp__calc__add"],
          persistSession: false,
        },
      });
      for await (const message of q) messages.push(message);
      const calls = messages.flatMap((m) =>
        m.type === "assistant" ? m.message.content.filter((b) => b.type === "tool_use").map((b) => b.name) : [],
      );
      expect(calls).toEqual(["mcp__calc__add", "calculator", "mcp__calc__add", "mcp__calc__calculator"]);
      const results = toolResults(messages);
      expect(results.slice(0, 3).map((result) => result.content)).toEqual(["5", "42", "2"]);
      expect(results[3]).toMatchObject({ is_error: true });
      expect(text(results[3]?.content)).toContain("No such tool available: mcp__calc__calculator");
      const body = server.requests[0]?.body as { messages: Array<{ role: string; content: string }>; tools?: unknown };
      expect(body.tools).toBeUndefined();
      const system = body.messages.find((m) => m.role === "system")?.content ?? "";
      expect(system).toContain('"server_name"');
      expect(system).toMatch(/## Available tools\n\n### calculator\n/);
      expect(system).toContain(
        '## Tools of MCP server "calc"\n\n### add (full name: mcp__calc__add)\nAdd two numbers.',
      );
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "5, 42 and 2." });
    });
  });
});

/** A port nobody listens on at 127.0.0.1 right now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const address = probe.address();
  await new Promise((done) => probe.close(done));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

/** Local addresses (hex, as /proc/net shows them) of the sockets listening on `port`. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // Field 1 is local address:port, field 3 the state (0A: listening).
      .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A")
      .map((fields) => fields[1]?.split(":")[0] ?? ""),
  );
}
