// Per-agent MCP servers (`AgentDefinition.mcpServers`): a parent's server named, servers of the
// agent's own started with it and ended with it (also on failure and abort), through query().
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentDefinition,
  createSdkMcpServer,
  GyreError,
  type McpServerConfig,
  query,
  type QueryOptions,
  type SDKMessage,
  tool,
} from "../src/index.js";
import { type MockLLMServer, type MockTurn, mockTurn } from "../src/testing/index.js";
import { FORMATS, mockEnv, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { isRunning, offeredTools, processesWith, testServer, text, uniqueMarker, waitUntil } from "./mcp-support.js";

const anthropic = FORMATS[0];
const CALLS_SERVER = resolve("test/fixtures/mcp-calls-server.mjs");

function agent(marker: string, extra: Partial<AgentDefinition> = {}): AgentDefinition {
  return { description: `The ${marker} agent.`, prompt: `You are ${marker}. Report briefly.`, ...extra };
}

function agentCall(type: string, id = "call_agent"): MockTurn {
  return mockTurn.toolUse("Agent", { description: `ask ${type}`, prompt: "do it", subagent_type: type }, { id });
}

/** The tool results of the subagent started by the Agent call `id`, and those of the parent. */
function subagentResults(messages: SDKMessage[], id = "call_agent") {
  return toolResults(messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === id));
}
function parentResults(messages: SDKMessage[]) {
  return toolResults(messages.filter((m) => !("parent_tool_use_id" in m) || m.parent_tool_use_id === null));
}

/** The tools of an Anthropic request, with their descriptions. */
function offeredToolsOf(body: unknown): Array<{ name: string; description: string }> {
  return (body as { tools?: Array<{ name: string; description: string }> }).tools ?? [];
}

/** The tools offered by the requests the subagent (route 0) made. */
function subagentTools(server: MockLLMServer): string[] {
  const request = server.requests.find((r) => r.route === 0);
  return offeredTools(request?.body).sort();
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-subagents-mcp-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("an agent's mcpServers", () => {
  it("are checked with the run's options, as `mcpServers` is: a bad server is a config_error before anything runs", () => {
    const bad = { type: "ws", url: "x" } as unknown as McpServerConfig;
    const agents = { a: agent("a", { mcpServers: ["fine", { bad }] }) };
    let thrown: unknown;
    try {
      query({ prompt: "hi", options: { persistSession: false, agents } as unknown as QueryOptions });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GyreError);
    expect(thrown).toMatchObject({ code: "config_error" });
    expect((thrown as GyreError).message).toContain("agents.a.mcpServers");
  });

  it("a parent's server by name: its tools join the agent's even when `tools` does not list them", async () => {
    const script = {
      turns: [agentCall("adder"), mockTurn.text("done")],
      routes: [
        {
          system: "You are adder.",
          turns: [mockTurn.toolUse("mcp__calc__add", { a: 2, b: 3 }), mockTurn.text("five")],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        mcpServers: { calc: testServer(uniqueMarker("named")), other: testServer(uniqueMarker("other")) },
        agents: { adder: agent("adder", { tools: ["Read"], mcpServers: ["calc"] }) },
      });
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
      const agentTool = offeredToolsOf(server.requests[0]?.body).find((tool) => tool.name === "Agent");
      expect(agentTool?.description).toContain("- adder: The adder agent. (Tools: Read; MCP servers: calc)");
      const tools = subagentTools(server);
      expect(tools).toContain("Read");
      expect(tools).toContain("mcp__calc__add");
      // Only the named server: the parent's other server stays out, as does any other built-in tool.
      expect(tools.filter((name) => !name.startsWith("mcp__calc__"))).toEqual(["Read"]);
      expect(subagentResults(messages)).toEqual([expect.objectContaining({ content: "5" })]);
      expect(parentResults(messages)).toEqual([expect.objectContaining({ content: "five" })]);
    });
  });

  it("a name the parent does not have fails the agent's start with an is_error naming the parent's servers", async () => {
    const script = {
      turns: [agentCall("lost"), mockTurn.text("carried on")],
      routes: [{ system: "You are lost.", turns: [mockTurn.text("never")] }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        mcpServers: { calc: testServer(uniqueMarker("known")) },
        agents: { lost: agent("lost", { mcpServers: ["calc", "nowhere"] }) },
      });
      const [result] = parentResults(messages);
      expect(result).toMatchObject({ is_error: true });
      expect(text(result?.content)).toContain("nowhere");
      expect(text(result?.content)).toContain("The parent's MCP servers: calc.");
      // The agent never ran; the parent went on.
      expect(server.requests.map((r) => r.route)).toEqual([undefined, undefined]);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "carried on" });
    });
  });

  it("a parent's server hidden by the run's disallowedTools cannot be reached by naming it", async () => {
    const script = {
      turns: [agentCall("sneaky"), mockTurn.text("done")],
      routes: [
        { system: "You are sneaky.", turns: [mockTurn.toolUse("mcp__calc__add", { a: 1, b: 1 }), mockTurn.text("x")] },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        mcpServers: { calc: testServer(uniqueMarker("hidden")) },
        disallowedTools: ["mcp__calc"],
        agents: { sneaky: agent("sneaky", { mcpServers: ["calc"] }) },
      });
      expect(subagentTools(server).filter((name) => name.startsWith("mcp__"))).toEqual([]);
      const [result] = subagentResults(messages);
      expect(result).toMatchObject({ is_error: true });
      expect(text(result?.content)).toContain("No such tool available: mcp__calc__add");
    });
  });

  it("a nested agent may name its parent agent's own server, not a run server its parent lacks", async () => {
    const marker = uniqueMarker("nested");
    const nestedCall = (type: string, id: string) =>
      mockTurn.toolUse("Agent", { description: "nested", prompt: "go on", subagent_type: type }, { id });
    const script = {
      turns: [agentCall("outer"), mockTurn.text("done")],
      routes: [
        {
          system: "You are outer.",
          turns: [nestedCall("greedy", "call_greedy"), nestedCall("borrower", "call_borrower"), mockTurn.text("ok")],
        },
        { system: "You are greedy.", turns: [mockTurn.text("never")] },
        {
          system: "You are borrower.",
          turns: [mockTurn.toolUse("mcp__inner__add", { a: 20, b: 22 }), mockTurn.text("42")],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        maxSubagentDepth: 2,
        mcpServers: { calc: testServer(uniqueMarker("top")) },
        agents: {
          outer: agent("outer", { tools: ["Read"], mcpServers: [{ inner: testServer(marker) }] }),
          greedy: agent("greedy", { mcpServers: ["inner", "calc"] }),
          borrower: agent("borrower", { tools: [], mcpServers: ["inner"] }),
        },
      });
      const [greedy] = subagentResults(messages, "call_agent").filter((r) => r.tool_use_id === "call_greedy");
      expect(greedy).toMatchObject({ is_error: true });
      expect(text(greedy?.content)).toContain("its parent does not have: calc. The parent's MCP servers: inner.");
      expect(subagentResults(messages, "call_borrower")).toEqual([expect.objectContaining({ content: "42" })]);
      expect(server.requests.filter((r) => r.route === 1)).toEqual([]);
      expect(processesWith(marker)).toEqual([]);
    });
  });

  it("an inline server starts with the agent, is the agent's only, and ends with it", async () => {
    const marker = uniqueMarker("inline");
    const script = {
      turns: [agentCall("owner"), mockTurn.text("done")],
      routes: [
        {
          system: "You are owner.",
          turns: [mockTurn.toolUse("mcp__own__pid"), mockTurn.text("got it")],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        tools: ["Read", "Agent"],
        allowedTools: ["mcp__own"],
        agents: { owner: agent("owner", { mcpServers: [{ own: testServer(marker) }] }) },
      });
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
      // The server ran while the agent did: its pid tool answered.
      const [pidResult] = subagentResults(messages);
      const pid = Number(text(pidResult?.content));
      expect(pid).toBeGreaterThan(0);
      expect(subagentTools(server)).toContain("mcp__own__pid");
      // The parent never saw its tools, nor the server in its init message.
      const parentRequests = server.requests.filter((r) => r.route === undefined);
      for (const request of parentRequests)
        expect(offeredTools(request.body).some((n) => n.includes("own"))).toBe(false);
      const init = messages[0];
      expect(init?.type === "system" && init.subtype === "init" && init.mcp_servers).toEqual([]);
      // Ended with the agent, before the run's end.
      expect(isRunning(pid)).toBe(false);
      expect(processesWith(marker)).toEqual([]);
    });
  });

  it("an in-process server (createSdkMcpServer) may be the own server of agents running at the same time", async () => {
    const calls: number[] = [];
    const counter = createSdkMcpServer({
      name: "counter",
      tools: [
        tool("add", "Add two numbers.", { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push(a + b);
          return { content: [{ type: "text", text: String(a + b) }] };
        }),
      ],
    });
    const colors = ["red", "blue"];
    const routes = colors.map((color, index) => ({
      system: `You are ${color}.`,
      turns: [
        { ...mockTurn.toolUse("mcp__counter__add", { a: index, b: 10 }), delayMs: 200 },
        mockTurn.text(`${color} done`),
      ],
    }));
    const agentCalls = colors.map((color) => ({
      type: "tool_use" as const,
      id: `call_${color}`,
      name: "Agent",
      input: { description: color, prompt: "count", subagent_type: color },
    }));
    const script = { turns: [mockTurn.of(agentCalls), mockTurn.text("all done")], routes };
    const agents = Object.fromEntries(colors.map((color) => [color, agent(color, { mcpServers: [{ counter }] })]));
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", { cwd: dir, agents, allowedTools: ["mcp__counter"] });
      expect(subagentResults(messages, "call_red")).toEqual([expect.objectContaining({ content: "10" })]);
      expect(subagentResults(messages, "call_blue")).toEqual([expect.objectContaining({ content: "11" })]);
      expect(calls.sort()).toEqual([10, 11]);
      expect(parentResults(messages).map((r) => r.content)).toEqual(["red done", "blue done"]);
    });
  });

  it("the parent's permission rules apply to the calls of the agent's own servers", async () => {
    const marker = uniqueMarker("denied");
    const script = {
      turns: [agentCall("owner"), mockTurn.text("done")],
      routes: [{ system: "You are owner.", turns: [mockTurn.toolUse("mcp__own__pid"), mockTurn.text("refused")] }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        permissionMode: "bypassPermissions",
        disallowedTools: ["mcp__own__pid"],
        agents: { owner: agent("owner", { mcpServers: [{ own: testServer(marker) }] }) },
      });
      const [result] = subagentResults(messages);
      expect(result).toMatchObject({ is_error: true });
      expect(Number.isNaN(Number(text(result?.content)))).toBe(true);
      expect(resultOf(messages).permission_denials).toEqual([expect.objectContaining({ tool_name: "mcp__own__pid" })]);
      expect(processesWith(marker)).toEqual([]);
    });
  });

  it("an inline server that cannot start fails the agent with an is_error naming it; the others are closed", async () => {
    const good = uniqueMarker("good");
    const script = {
      turns: [agentCall("broken"), mockTurn.text("carried on")],
      routes: [{ system: "You are broken.", turns: [mockTurn.text("never")] }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        agents: {
          broken: agent("broken", {
            mcpServers: [
              { fine: testServer(good) },
              { dead: { command: process.execPath, args: ["-e", "console.error('no way'); process.exit(2)"] } },
            ],
          }),
        },
      });
      const [result] = parentResults(messages);
      expect(result).toMatchObject({ is_error: true });
      expect(text(result?.content)).toContain('"dead" (failed)');
      expect(text(result?.content)).toContain("no way");
      expect(text(result?.content)).not.toContain('"fine"');
      expect(server.requests.map((r) => r.route)).toEqual([undefined, undefined]);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "carried on" });
      expect(processesWith(good)).toEqual([]);
    });
  });

  it("aborting the run mid-subagent ends the agent's own server", async () => {
    const logDir = mkdtempSync(join(tmpdir(), "gyre-subagents-mcp-log-"));
    const log = join(logDir, "log.txt");
    const readLog = () => {
      try {
        return readFileSync(log, "utf8");
      } catch {
        return "";
      }
    };
    const script = {
      turns: [agentCall("waiter"), mockTurn.text("never")],
      routes: [{ system: "You are waiter.", turns: [mockTurn.toolUse("mcp__slow__slow"), mockTurn.text("never")] }],
    };
    try {
      await withMock(script, async (server) => {
        const abortController = new AbortController();
        const q = query({
          prompt: "go",
          options: {
            model: anthropic.model,
            env: mockEnv(server),
            persistSession: false,
            cwd: dir,
            abortController,
            allowedTools: ["mcp__slow"],
            agents: {
              waiter: agent("waiter", {
                mcpServers: [{ slow: { command: process.execPath, args: [CALLS_SERVER, log] } }],
              }),
            },
          },
        });
        const messages: SDKMessage[] = [];
        const done = (async () => {
          for await (const message of q) messages.push(message);
        })();
        await waitUntil(() => readLog().includes("started slow"));
        expect(processesWith(log)).toHaveLength(1);
        abortController.abort();
        await done;
        expect(resultOf(messages).terminal_reason).toBe("aborted");
        expect(processesWith(log)).toEqual([]);
      });
    } finally {
      rmSync(logDir, { recursive: true, force: true });
    }
  });

  it("an agent file's inline servers expand ${VAR} from the run's env; an unset one fails naming it", async () => {
    const marker = uniqueMarker("file");
    mkdirSync(join(dir, ".gyre", "agents"), { recursive: true });
    // The command itself is a variable: unexpanded, the server could not start.
    writeFileSync(
      join(dir, ".gyre", "agents", "filer.md"),
      "---\nname: filer\ndescription: From a file\nmcpServers:\n  - own:\n      command: ${GYRE_TEST_NODE}\n" +
        `      args: ${JSON.stringify(testServer(marker).args)}\n---\nYou are filer.\n`,
    );
    const script = {
      turns: [agentCall("filer"), mockTurn.text("done")],
      routes: [{ system: "You are filer.", turns: [mockTurn.toolUse("mcp__own__pid"), mockTurn.text("ok")] }],
    };
    await withMock(script, async (mock) => {
      const messages = await runQuery(mock, anthropic, "go", {
        cwd: dir,
        settingSources: ["project"],
        allowedTools: ["mcp__own"],
        env: { ...mockEnv(mock), GYRE_TEST_NODE: process.execPath },
      });
      const pid = Number(text(subagentResults(messages)[0]?.content));
      expect(pid).toBeGreaterThan(0);
      expect(isRunning(pid)).toBe(false);
      expect(processesWith(marker)).toEqual([]);
      mock.reset();
      const failed = await runQuery(mock, anthropic, "go", { cwd: dir, settingSources: ["project"] });
      const [result] = parentResults(failed);
      expect(result).toMatchObject({ is_error: true });
      expect(text(result?.content)).toContain("${GYRE_TEST_NODE}");
      expect(resultOf(failed)).toMatchObject({ subtype: "success" });
    });
  });
});
