import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDefinition, query, type SDKMessage } from "../src/index.js";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { type MockLLMServer, type MockTurn, mockTurn } from "../src/testing/index.js";
import { FORMATS, mockEnv, requestedModel, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const [anthropic, openai] = FORMATS;

/** An agent whose system prompt carries `marker`, so the mock answers it from its own route. */
function agent(marker: string, extra: Partial<AgentDefinition> = {}): AgentDefinition {
  return { description: `The ${marker} agent.`, prompt: `You are ${marker}. Report briefly.`, ...extra };
}

function agentCall(type: string, prompt: string, id?: string): MockTurn {
  return mockTurn.toolUse(
    "Agent",
    { description: `ask ${type}`, prompt, subagent_type: type },
    id === undefined ? {} : { id },
  );
}

/** The messages a subagent produced, by the id of the Agent call that started it. */
function fromSubagent(messages: SDKMessage[], toolUseId: string): SDKMessage[] {
  return messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === toolUseId);
}

/** The system prompt text of a request, in either wire format. */
function systemOf(server: MockLLMServer, seq: number): string {
  const body = server.requests[seq - 1]?.body as { system?: unknown; instructions?: unknown; input?: unknown };
  return JSON.stringify(body.system ?? body.instructions ?? body.input);
}

function toolNamesOf(server: MockLLMServer, seq: number): string[] {
  const body = server.requests[seq - 1]?.body as { tools?: Array<{ name?: string }> };
  return (body.tools ?? []).map((tool) => tool.name ?? "");
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-subagents-"));
  writeFileSync(join(dir, "notes.txt"), "the secret is 42\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the Agent tool", () => {
  for (const format of [anthropic, openai]) {
    it(`runs a subagent with its own prompt, history and tools; its answer is the tool result (${format.name})`, async () => {
      const script = {
        turns: [agentCall("scout", "Find the secret in notes.txt", "call_scout"), mockTurn.text("The secret is 42.")],
        routes: [
          {
            system: "You are scout.",
            turns: [mockTurn.toolUse("Read", { file_path: join(dir, "notes.txt") }), mockTurn.text("It says 42.")],
          },
        ],
      };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "What is the secret?", {
          cwd: dir,
          agents: { scout: agent("scout", { tools: ["Read", "Grep"] }) },
          permissionMode: "default",
        });
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "The secret is 42." });
        const init = messages[0];
        expect(init?.type === "system" && init.subtype === "init" && init.tools).toContain("Agent");
        // Parent turn, the subagent's two turns, the parent's last turn.
        expect(server.requests.map((r) => r.route)).toEqual([undefined, 0, 0, undefined]);
        // The subagent saw its own system prompt, its prompt alone, and only its tools.
        expect(systemOf(server, 2)).toContain("You are scout.");
        expect(systemOf(server, 2)).toContain(`Working directory: ${dir}`);
        expect(systemOf(server, 2)).not.toContain("You are Gyre");
        expect(JSON.stringify(server.requests[1]?.body)).toContain("Find the secret in notes.txt");
        expect(JSON.stringify(server.requests[1]?.body)).not.toContain("What is the secret?");
        expect(toolNamesOf(server, 2).sort()).toEqual(["Grep", "Read"]);
        // Its Read (read-only, allowed in default mode) read the file.
        expect(JSON.stringify(server.requests[2]?.body)).toContain("the secret is 42");
        // Its messages reach the caller tagged with the Agent call's id, its Read call's start too.
        const sub = fromSubagent(messages, "call_scout");
        expect(sub.map((m) => m.type)).toEqual(["assistant", "tool_progress", "user", "assistant"]);
        // The parent got the subagent's final answer, and nothing of its history.
        const parentResults = toolResults(
          messages.filter((m) => !("parent_tool_use_id" in m) || m.parent_tool_use_id === null),
        );
        expect(parentResults).toEqual([expect.objectContaining({ tool_use_id: "call_scout", content: "It says 42." })]);
        expect(JSON.stringify(server.requests[3]?.body)).not.toContain("the secret is 42");
      });
    });
  }

  it("an unknown subagent_type is an is_error result naming the available agents", async () => {
    const script = { turns: [agentCall("nobody", "do it"), mockTurn.text("ok")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", { agents: { scout: agent("scout") } });
      const [result] = toolResults(messages);
      expect(result).toMatchObject({ is_error: true });
      expect(JSON.stringify(result?.content)).toContain('There is no agent \\"nobody\\"');
      expect(JSON.stringify(result?.content)).toContain("general-purpose, scout");
      expect(server.requests).toHaveLength(2);
    });
  });

  it("a subagent's call to a tool outside its list is refused and never runs", async () => {
    const target = join(dir, "made-by-subagent");
    const script = {
      turns: [agentCall("reader", "touch a file"), mockTurn.text("done")],
      routes: [
        {
          system: "You are reader.",
          turns: [mockTurn.toolUse("Bash", { command: `touch ${target}` }), mockTurn.text("could not")],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        agents: { reader: agent("reader", { tools: ["Read"] }) },
        permissionMode: "bypassPermissions",
      });
      const subResults = toolResults(
        messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id !== null),
      );
      expect(subResults[0]).toMatchObject({ is_error: true });
      expect(JSON.stringify(subResults[0]?.content)).toMatch(/Bash/);
      expect(() => writeFileSync(join(target), "", { flag: "wx" })).not.toThrow(); // the file did not exist
      expect(resultOf(messages)).toMatchObject({ subtype: "success" });
    });
  });

  it("a subagent asks permission through the parent's rules: a denied Bash stays denied", async () => {
    const target = join(dir, "denied");
    const script = {
      turns: [agentCall("general-purpose", "make a file"), mockTurn.text("done")],
      routes: [
        {
          system: "You are an agent working on a task given to you by another agent.",
          turns: [mockTurn.toolUse("Bash", { command: `touch ${target}` }), mockTurn.text("denied")],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        permissionMode: "dontAsk",
        disallowedTools: ["Bash(touch:*)"],
      });
      const denied = toolResults(messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id !== null));
      expect(denied[0]).toMatchObject({ is_error: true });
      expect(() => writeFileSync(target, "", { flag: "wx" })).not.toThrow();
      expect(resultOf(messages).permission_denials).toEqual([expect.objectContaining({ tool_name: "Bash" })]);
    });
  });

  it("the subagent's model may be another provider's; its usage and cost roll up into the parent's result", async () => {
    const usage = { input_tokens: 1000, output_tokens: 100 };
    const script = {
      turns: [
        { ...agentCall("cheap", "summarise"), usage },
        { ...mockTurn.text("Summary received."), usage },
      ],
      routes: [{ system: "You are cheap.", turns: [{ ...mockTurn.text("A summary."), usage }] }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        agents: { cheap: agent("cheap", { model: "openai/gpt-5-mini" }) },
      });
      expect(server.requests.map((r) => r.format)).toEqual(["anthropic", "openai-responses", "anthropic"]);
      expect(requestedModel(server.requests[1]?.body)).toBe("gpt-5-mini");
      const result = resultOf(messages);
      expect(Object.keys(result.modelUsage).sort()).toEqual(["anthropic/claude-sonnet-4-5", "openai/gpt-5-mini"]);
      expect(result.modelUsage["openai/gpt-5-mini"]).toMatchObject({ inputTokens: 1000, outputTokens: 100 });
      const sum = Object.values(result.modelUsage).reduce((total, entry) => total + entry.costUSD, 0);
      expect(result.total_cost_usd).toBeCloseTo(sum, 12);
      expect(result.modelUsage["openai/gpt-5-mini"]?.costUSD).toBeGreaterThan(0);
      // The parent's own tokens: two turns; the subagent's are on top.
      expect(result.usage.input_tokens).toBe(3000);
      const [agentResult] = toolResults(
        messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === null),
      );
      expect(agentResult).toMatchObject({ content: "A summary." });
    });
  });

  it("the parent's budget bounds the subagent: it stops when the sum is spent, and so does the parent", async () => {
    const big = { input_tokens: 100_000, output_tokens: 10_000 }; // $0.45 on claude-sonnet-4-5
    const script = {
      turns: [agentCall("spender", "spend"), mockTurn.text("never reached")],
      routes: [
        {
          system: "You are spender.",
          turns: [
            { ...mockTurn.toolUse("Read", { file_path: join(dir, "notes.txt") }), usage: big },
            { ...mockTurn.toolUse("Read", { file_path: join(dir, "notes.txt") }), usage: big },
            mockTurn.text("spent"),
          ],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        agents: { spender: agent("spender") },
        maxBudgetUsd: 0.5,
      });
      // Subagent: 2 turns, then the budget (parent's 1st turn + 0.9) is spent: it stops, and the parent stops.
      expect(server.requests.map((r) => r.route)).toEqual([undefined, 0, 0]);
      const [agentResult] = toolResults(
        messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === null),
      );
      expect(agentResult).toMatchObject({ is_error: true });
      expect(JSON.stringify(agentResult?.content)).toContain("max_budget");
      expect(resultOf(messages)).toMatchObject({ subtype: "error_max_budget_usd" });
      expect(resultOf(messages).total_cost_usd).toBeGreaterThan(0.5);
    });
  });

  it("three Agent calls in one turn run at the same time; results come back in call order", async () => {
    const slow = { delayMs: 300 };
    const routes = ["red", "green", "blue"].map((color) => ({
      system: `You are ${color}.`,
      turns: [{ ...mockTurn.toolUse("Glob", { pattern: "*.txt" }), ...slow }, mockTurn.text(`${color} done`)],
    }));
    const calls = ["red", "green", "blue"].map((color) => ({
      type: "tool_use" as const,
      id: `call_${color}`,
      name: "Agent",
      input: { description: color, prompt: `work ${color}`, subagent_type: color },
    }));
    const script = { turns: [mockTurn.of(calls), mockTurn.text("all done")], routes };
    const agents = Object.fromEntries(["red", "green", "blue"].map((color) => [color, agent(color)]));
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", { cwd: dir, agents });
      // All three subagents sent their first request before any got its answer (each takes 300 ms).
      const firstThree = server.requests.slice(1, 4);
      expect(firstThree.map((r) => r.turn)).toEqual([0, 0, 0]);
      expect(new Set(firstThree.map((r) => r.route))).toEqual(new Set([0, 1, 2]));
      const parentResults = toolResults(
        messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === null),
      );
      expect(parentResults.map((r) => [r.tool_use_id, r.content])).toEqual([
        ["call_red", "red done"],
        ["call_green", "green done"],
        ["call_blue", "blue done"],
      ]);
    });
  });

  it("maxConcurrentSubagents: 1 runs them one after another", async () => {
    const routes = ["red", "green"].map((color) => ({
      system: `You are ${color}.`,
      turns: [mockTurn.toolUse("Glob", { pattern: "*.txt" }), mockTurn.text(`${color} done`)],
    }));
    const calls = ["red", "green"].map((color) => ({
      type: "tool_use" as const,
      id: `call_${color}`,
      name: "Agent",
      input: { description: color, prompt: `work ${color}`, subagent_type: color },
    }));
    const script = { turns: [mockTurn.of(calls), mockTurn.text("all done")], routes };
    const agents = Object.fromEntries(["red", "green"].map((color) => [color, agent(color)]));
    await withMock(script, async (server) => {
      await runQuery(server, anthropic, "go", { cwd: dir, agents, maxConcurrentSubagents: 1 });
      expect(server.requests.map((r) => [r.route, r.turn])).toEqual([
        [undefined, 0],
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
        [undefined, 1],
      ]);
    });
  });

  it("interrupting the parent aborts a running subagent; the run ends interrupted", async () => {
    const script = {
      turns: [agentCall("sleeper", "wait"), mockTurn.text("never")],
      routes: [{ system: "You are sleeper.", turns: [{ ...mockTurn.text("woke"), delayMs: 60_000 }] }],
    };
    await withMock(script, async (server) => {
      const q = query({
        prompt: "go",
        options: {
          model: anthropic.model,
          env: mockEnv(server),
          persistSession: false,
          agents: { sleeper: agent("sleeper") },
        },
      });
      const messages: SDKMessage[] = [];
      const waitForSubagentRequest = (async () => {
        while (!server.requests.some((r) => r.route === 0)) await new Promise((r) => setImmediate(r));
        await q.interrupt();
      })();
      for await (const message of q) messages.push(message);
      await waitForSubagentRequest;
      expect(resultOf(messages)).toMatchObject({ terminal_reason: "interrupted" });
      const [agentResult] = toolResults(
        messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === null),
      );
      expect(agentResult).toMatchObject({ is_error: true });
      // No request after the interrupt: the parent did not go on.
      expect(server.requests).toHaveLength(2);
    });
  });

  it("subagents cannot start subagents unless maxSubagentDepth allows it", async () => {
    const script = {
      turns: [agentCall("outer", "go deeper"), mockTurn.text("done")],
      routes: [{ system: "You are outer.", turns: [mockTurn.text("outer done")] }],
    };
    await withMock(script, async (server) => {
      await runQuery(server, anthropic, "go", { agents: { outer: agent("outer") } });
      expect(toolNamesOf(server, 2)).not.toContain("Agent");
      server.reset();
      await runQuery(server, anthropic, "go", { agents: { outer: agent("outer") }, maxSubagentDepth: 2 });
      expect(toolNamesOf(server, 2)).toContain("Agent");
      server.reset();
      await runQuery(server, anthropic, "go", { agents: { outer: agent("outer") }, maxSubagentDepth: 0 });
      expect(toolNamesOf(server, 1)).not.toContain("Agent");
    });
  });

  it("a stored session keeps the subagent's messages apart: resume sends the parent's history only", async () => {
    const store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
    const script = {
      turns: [agentCall("scout", "look around", "call_1"), mockTurn.text("Scout saw notes."), mockTurn.text("Yes.")],
      routes: [
        {
          system: "You are scout.",
          turns: [mockTurn.toolUse("Glob", { pattern: "*.txt" }), mockTurn.text("notes.txt is there")],
        },
      ],
    };
    try {
      await withMock(script, async (server) => {
        const options = { cwd: dir, sessionStore: store, agents: { scout: agent("scout") } };
        const first = await runQuery(server, anthropic, "look", options);
        const sessionId = first[0]?.session_id ?? "";
        const stored = await store.getSessionMessages(sessionId);
        // The parent keeps none of them: they are in the subagent's own session (test/subagent-sessions.test.ts).
        expect(stored.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id !== null)).toEqual([]);
        const [child] = await store.listSessions({ parentId: sessionId, subagents: "only" });
        // Its two answers, its Glob call's start and its result.
        expect((await store.getSessionMessages(child?.id ?? "")).filter((m) => m.type !== "user")).toHaveLength(4);
        const second = await runQuery(server, anthropic, "Did it?", { ...options, resume: sessionId });
        expect(resultOf(second).result).toBe("Yes.");
        const history = JSON.stringify((server.requests.at(-1)?.body as { messages: unknown }).messages);
        expect(history).toContain("notes.txt is there"); // the Agent call's result
        expect(history).not.toContain("Glob"); // the subagent's own call
        expect(server.requests.at(-1)?.route).toBeUndefined();
      });
    } finally {
      await store.close();
    }
  });

  it("agents from .claude/agents and .gyre/agents files, by settingSources; the option wins on a name clash", async () => {
    const home = mkdtempSync(join(tmpdir(), "gyre-subagents-home-"));
    mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
    mkdirSync(join(dir, ".gyre", "agents"), { recursive: true });
    writeFileSync(
      join(dir, ".claude", "agents", "finder.md"),
      "---\nname: finder\ndescription: Finds things in files\ntools: Grep, Glob\n---\nYou are finder from claude.\n",
    );
    writeFileSync(
      join(dir, ".gyre", "agents", "finder.md"),
      "---\nname: finder\ndescription: Finds things, the Gyre way\ntools: [Glob]\nmodel: inherit\n---\nYou are finder.\n",
    );
    writeFileSync(
      join(dir, ".claude", "agents", "fixer.md"),
      "---\nname: fixer\ndescription: Fixes from a file\n---\nYou are fixer from a file.\n",
    );
    const script = {
      turns: [agentCall("finder", "find"), mockTurn.text("done")],
      routes: [{ system: "You are finder.", turns: [mockTurn.text("found")] }],
    };
    const previousHome = process.env.HOME;
    process.env.HOME = home;
    try {
      await withMock(script, async (server) => {
        const messages = await runQuery(server, anthropic, "go", {
          cwd: dir,
          settingSources: ["project"],
          agents: { fixer: agent("fixer") },
        });
        const agentTool = (
          server.requests[0]?.body as { tools: Array<{ name: string; description: string }> }
        ).tools.find((tool) => tool.name === "Agent");
        expect(agentTool?.description).toContain("- finder: Finds things, the Gyre way (Tools: Glob)");
        expect(agentTool?.description).toContain("- fixer: The fixer agent.");
        expect(agentTool?.description).not.toContain("Fixes from a file");
        expect(toolNamesOf(server, 2)).toEqual(["Glob"]);
        expect(toolResults(messages)[0]).toMatchObject({ content: "found" });
        server.reset();
        // Without settingSources no file is read.
        await runQuery(server, anthropic, "go", { cwd: dir });
        const description = JSON.stringify(server.requests[0]?.body);
        expect(description).not.toContain("finder");
      });
    } finally {
      process.env.HOME = previousHome;
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("SubagentStart adds context to the subagent's prompt; SubagentStop keeps it going once; Stop is the parent's", async () => {
    const script = {
      turns: [agentCall("scout", "look"), mockTurn.text("parent done")],
      routes: [{ system: "You are scout.", turns: [mockTurn.text("first answer"), mockTurn.text("second answer")] }],
    };
    const seen: Array<{ event: string; type?: unknown; active?: unknown }> = [];
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        agents: { scout: agent("scout"), other: agent("other") },
        hooks: {
          SubagentStart: [
            {
              matcher: "scout",
              hooks: [
                async (input) => {
                  seen.push({ event: input.hook_event_name, type: (input as { agent_type?: string }).agent_type });
                  return {
                    hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "Remember: be careful." },
                  };
                },
              ],
            },
          ],
          SubagentStop: [
            {
              hooks: [
                async (input) => {
                  const active = (input as { stop_hook_active?: boolean }).stop_hook_active;
                  seen.push({ event: input.hook_event_name, active });
                  return active ? {} : { decision: "block", reason: "Check once more." };
                },
              ],
            },
          ],
          Stop: [{ hooks: [async (input) => (seen.push({ event: input.hook_event_name }), {})] }],
        },
      });
      expect(seen).toEqual([
        { event: "SubagentStart", type: "scout" },
        { event: "SubagentStop", active: false },
        { event: "SubagentStop", active: true },
        { event: "Stop" },
      ]);
      expect(JSON.stringify(server.requests[1]?.body)).toContain("Remember: be careful.");
      expect(JSON.stringify(server.requests[2]?.body)).toContain("Check once more.");
      expect(toolResults(messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === null))).toEqual([
        expect.objectContaining({ content: "second answer" }),
      ]);
    });
  });

  it('answers to its older name Task, and disallowedTools: ["Task"] takes it away', async () => {
    const script = {
      turns: [
        mockTurn.toolUse("Task", { description: "d", prompt: "p", subagent_type: "scout" }),
        mockTurn.text("done"),
      ],
      routes: [{ system: "You are scout.", turns: [mockTurn.text("scouted")] }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        agents: { scout: agent("scout") },
        tools: ["Read", "Task"],
      });
      expect(toolNamesOf(server, 1)).toEqual(["Read", "Agent", "AgentOutput"]);
      expect(toolResults(messages)).toEqual([expect.objectContaining({ content: "scouted" })]);
      server.reset();
      await runQuery(server, anthropic, "go", { disallowedTools: ["Task"] });
      expect(toolNamesOf(server, 1)).not.toContain("Agent");
      expect(toolNamesOf(server, 1)).not.toContain("AgentOutput");
    });
  });

  it("an agent's permissionMode narrows the parent's (plan: no writes under bypassPermissions), never widens it", async () => {
    const planned = join(dir, "planned");
    const widened = join(dir, "widened");
    const script = {
      turns: [agentCall("planner", "write"), mockTurn.text("done")],
      routes: [
        {
          system: "You are planner.",
          turns: [mockTurn.toolUse("Write", { file_path: planned, content: "x" }), mockTurn.text("planned")],
        },
        {
          system: "You are wide.",
          turns: [mockTurn.toolUse("Write", { file_path: widened, content: "x" }), mockTurn.text("wide")],
        },
      ],
    };
    await withMock(script, async (server) => {
      // Parent in bypassPermissions: the planner may not write; in dontAsk, the bypassing agent may not either.
      const first = await runQuery(server, anthropic, "go", {
        cwd: dir,
        permissionMode: "bypassPermissions",
        agents: { planner: agent("planner", { permissionMode: "plan" }), wide: agent("wide") },
      });
      const subResults = (messages: SDKMessage[]) =>
        toolResults(messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id !== null));
      expect(subResults(first)[0]).toMatchObject({ is_error: true });
      expect(() => writeFileSync(planned, "", { flag: "wx" })).not.toThrow();
      server.reset();
      server.setScript({ ...script, turns: [agentCall("wide", "write"), mockTurn.text("done")] });
      const second = await runQuery(server, anthropic, "go", {
        cwd: dir,
        permissionMode: "dontAsk",
        agents: { wide: agent("wide", { permissionMode: "bypassPermissions" }) },
      });
      expect(subResults(second)[0]).toMatchObject({ is_error: true });
      expect(() => writeFileSync(widened, "", { flag: "wx" })).not.toThrow();
    });
  });
});
