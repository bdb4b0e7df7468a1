import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDefinition, query, type SDKHandoffMessage, SDKMessage } from "../src/index.js";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { type MockLLMServer, type MockTurn, mockTurn } from "../src/testing/index.js";
import { FORMATS, mockEnv, requestedModel, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const [anthropic, openai] = FORMATS;

/** An agent whose system prompt carries `marker`, so the mock answers it from its own route. */
function agent(marker: string, extra: Partial<AgentDefinition> = {}): AgentDefinition {
  return { description: `The ${marker} agent.`, prompt: `You are ${marker}.`, ...extra };
}

/**
 * A route's turns by position: a route's turn index is the number of assistant turns in the
 * request's history, which a handoff keeps, so an agent that takes over later answers at a later index.
 */
function at(turns: Record<number, MockTurn>): MockTurn[] {
  const length = Math.max(...Object.keys(turns).map(Number)) + 1;
  return Array.from({ length }, (_, index) => turns[index] ?? mockTurn.text(`(turn ${index} is not expected)`));
}

const transfer = (target: string, id?: string) =>
  mockTurn.toolUse(`transfer_to_${target}`, {}, id === undefined ? {} : { id });

/** The system prompt of a request (OpenAI's Responses API carries it as a `system` or `developer` item of `input`). */
function systemOf(server: MockLLMServer, seq: number): string {
  const body = server.requests[seq - 1]?.body as { system?: unknown; instructions?: unknown; input?: unknown[] };
  const isSystem = (item: unknown) => ["system", "developer"].includes(String((item as { role?: unknown }).role));
  return JSON.stringify(body.system ?? body.instructions ?? body.input?.filter(isSystem));
}

function toolsOf(server: MockLLMServer, seq: number): Array<{ name: string; description: string }> {
  const body = server.requests[seq - 1]?.body as { tools?: Array<{ name: string; description: string }> };
  return body.tools ?? [];
}

const toolNamesOf = (server: MockLLMServer, seq: number) => toolsOf(server, seq).map((tool) => tool.name);

function handoffsOf(messages: SDKMessage[]): SDKHandoffMessage[] {
  return messages.filter((m): m is SDKHandoffMessage => m.type === "system" && m.subtype === "handoff");
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-handoffs-"));
  writeFileSync(join(dir, "notes.txt"), "the secret is 42\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("handoffs", () => {
  const cases = [
    { format: anthropic, other: "openai/gpt-5-mini", wire: "openai-responses" },
    { format: openai, other: "anthropic/claude-haiku-4-5", wire: "anthropic" },
  ] as const;
  for (const { format, other, wire } of cases) {
    it(`a transfer switches the prompt, tools and model (another provider's), history kept (${format.name})`, async () => {
      const script = {
        turns: [],
        routes: [
          { system: "You are triage.", turns: [transfer("billing", "call_transfer")] },
          { system: "You are billing.", turns: at({ 1: mockTurn.text("Your refund is on its way.") }) },
        ],
      };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "I was charged twice", {
          cwd: dir,
          agent: "triage",
          agents: {
            triage: agent("triage", { tools: ["Read"], handoffs: ["billing"] }),
            billing: agent("billing", { tools: ["Glob"], model: other }),
          },
        });
        expect(server.requests.map((r) => r.route)).toEqual([0, 1]);
        // The main thread ran as triage: its prompt with the environment section, its tools.
        expect(systemOf(server, 1)).toContain("You are triage.");
        expect(systemOf(server, 1)).toContain(`Working directory: ${dir}`);
        expect(systemOf(server, 1)).not.toContain("You are Gyre");
        expect(toolNamesOf(server, 1)).toEqual(["Read", "transfer_to_billing"]);
        expect(toolsOf(server, 1)[1]?.description).toBe(
          "Handoff to the billing agent to handle the request. The billing agent.",
        );
        expect(messages[0]).toMatchObject({ subtype: "init", tools: ["Read", "transfer_to_billing"] });
        // After the transfer: billing's prompt, tools and model, on its provider's wire format.
        expect(systemOf(server, 2)).toContain("You are billing.");
        expect(systemOf(server, 2)).not.toContain("You are triage.");
        expect(toolNamesOf(server, 2)).toEqual(["Glob"]);
        expect(server.requests[1]?.format).toBe(wire);
        expect(requestedModel(server.requests[1]?.body)).toBe(other.split("/")[1]);
        const history = JSON.stringify(server.requests[1]?.body);
        expect(history).toContain("I was charged twice");
        expect(history).toContain('{\\"assistant\\":\\"billing\\"}');
        const [handoff] = handoffsOf(messages);
        expect(handoff).toMatchObject({
          from: "triage",
          to: "billing",
          tool_use_id: "call_transfer",
          model: other,
          parent_tool_use_id: null,
        });
        expect(SDKMessage.safeParse(handoff).success).toBe(true);
        // Order: the transfer's result, the handoff, then billing's answer.
        expect(messages.slice(-4).map((m) => m.type)).toEqual(["user", "system", "assistant", "result"]);
        const result = resultOf(messages);
        expect(result).toMatchObject({ subtype: "success", result: "Your refund is on its way.", agent: "billing" });
        expect(Object.keys(result.modelUsage).sort()).toEqual([format.model, other].sort());
      });
    });
  }

  it("after the transfer, a tool outside the target's list is refused and never runs", async () => {
    const target = join(dir, "made-by-billing");
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [transfer("billing")] },
        {
          system: "You are billing.",
          turns: at({ 1: mockTurn.toolUse("Bash", { command: `touch ${target}` }), 2: mockTurn.text("I cannot.") }),
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        permissionMode: "bypassPermissions",
        agent: "triage",
        agents: {
          triage: agent("triage", { tools: ["Bash"], handoffs: ["billing"] }),
          billing: agent("billing", { tools: ["Read"] }),
        },
      });
      const refused = toolResults(messages).at(-1);
      expect(refused).toMatchObject({ is_error: true });
      expect(JSON.stringify(refused?.content)).toContain("No such tool available: Bash");
      expect(existsSync(target)).toBe(false);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", agent: "billing" });
    });
  });

  it("two transfers in one turn: the first is taken, the second is an is_error result, other tools still run", async () => {
    const calls = mockTurn.of([
      { type: "tool_use", id: "call_billing", name: "transfer_to_billing", input: {} },
      { type: "tool_use", id: "call_read", name: "Read", input: { file_path: join(dir, "notes.txt") } },
      { type: "tool_use", id: "call_support", name: "transfer_to_support", input: {} },
    ]);
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [calls] },
        { system: "You are billing.", turns: at({ 1: mockTurn.text("billing here") }) },
        { system: "You are support.", turns: at({ 1: mockTurn.text("support here") }) },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        agent: "triage",
        agents: {
          triage: agent("triage", { tools: ["Read"], handoffs: ["billing", "support"] }),
          billing: agent("billing"),
          support: agent("support"),
        },
      });
      const results = toolResults(messages);
      expect(results.map((r) => [r.tool_use_id, r.is_error === true])).toEqual([
        ["call_billing", false],
        ["call_read", false],
        ["call_support", true],
      ]);
      expect(results[0]?.content).toBe('{"assistant":"billing"}');
      expect(JSON.stringify(results[1]?.content)).toContain("the secret is 42");
      expect(results[2]?.content).toContain(
        "Only the first transfer of a turn counts (transfer_to_billing); this transfer_to_support was not run",
      );
      expect(handoffsOf(messages).map((h) => h.to)).toEqual(["billing"]);
      expect(server.requests.map((r) => r.route)).toEqual([0, 1]);
      expect(resultOf(messages)).toMatchObject({ result: "billing here", agent: "billing", permission_denials: [] });
    });
  });

  it("a handoff back: billing hands the run back to triage, whose model comes back too", async () => {
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: at({ 0: transfer("billing"), 2: mockTurn.text("Back at triage.") }) },
        { system: "You are billing.", turns: at({ 1: transfer("triage") }) },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        agent: "triage",
        agents: {
          triage: agent("triage", { handoffs: ["billing"], tools: ["Read"] }),
          billing: agent("billing", { handoffs: ["triage"], tools: ["Glob"], model: "openai/gpt-5-mini" }),
        },
      });
      expect(server.requests.map((r) => r.route)).toEqual([0, 1, 0]);
      expect(server.requests.map((r) => requestedModel(r.body))).toEqual([
        "claude-sonnet-4-5",
        "gpt-5-mini",
        "claude-sonnet-4-5",
      ]);
      expect(toolNamesOf(server, 2)).toEqual(["Glob", "transfer_to_triage"]);
      expect(toolNamesOf(server, 3)).toEqual(["Read", "transfer_to_billing"]);
      expect(handoffsOf(messages).map((h) => [h.from, h.to, h.model])).toEqual([
        ["triage", "billing", "openai/gpt-5-mini"],
        ["billing", "triage", "anthropic/claude-sonnet-4-5"],
      ]);
      expect(resultOf(messages)).toMatchObject({ result: "Back at triage.", agent: "triage" });
    });
  });

  it("a permission mode the caller set while a narrowing agent ran still holds after a handoff", async () => {
    const written = join(dir, "written.txt");
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [transfer("billing")] },
        {
          system: "You are billing.",
          turns: at({ 1: mockTurn.toolUse("Write", { file_path: written, content: "x" }), 2: mockTurn.text("ok") }),
        },
      ],
    };
    await withMock(script, async (server) => {
      const q = query({
        prompt: "go",
        options: {
          model: anthropic.model,
          env: mockEnv(server),
          persistSession: false,
          cwd: dir,
          permissionMode: "bypassPermissions",
          agent: "triage",
          agents: {
            triage: agent("triage", { permissionMode: "acceptEdits", handoffs: ["billing"] }),
            billing: agent("billing", { tools: ["Write"] }),
          },
        },
      });
      await q.setPermissionMode("plan");
      const messages: SDKMessage[] = [];
      for await (const message of q) messages.push(message);
      expect(handoffsOf(messages)).toHaveLength(1);
      expect(toolResults(messages).at(-1)).toMatchObject({ is_error: true });
      expect(existsSync(written)).toBe(false);
    });
  });

  it("agents passing the run back and forth stop at maxHandoffs with doom_loop", async () => {
    const script = {
      turns: [],
      routes: [
        { system: "You are ping.", turns: Array.from({ length: 8 }, () => transfer("pong")) },
        { system: "You are pong.", turns: Array.from({ length: 8 }, () => transfer("ping")) },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        agent: "ping",
        maxHandoffs: 3,
        agents: { ping: agent("ping", { handoffs: ["pong"] }), pong: agent("pong", { handoffs: ["ping"] }) },
      });
      expect(server.requests).toHaveLength(4);
      expect(handoffsOf(messages)).toHaveLength(3);
      const refused = toolResults(messages).at(-1);
      expect(refused).toMatchObject({ is_error: true });
      expect(refused?.content).toContain("this transfer was not taken");
      const result = resultOf(messages);
      expect(result).toMatchObject({ subtype: "error_during_execution", terminal_reason: "doom_loop", agent: "pong" });
      expect(result.errors?.[0]).toContain("maxHandoffs");
    });
  });

  it("a resumed session goes on as the agent it was handed to, with or without the agent option", async () => {
    const store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [transfer("billing")] },
        {
          system: "You are billing.",
          turns: at({ 1: mockTurn.text("Refunded."), 2: mockTurn.text("Invoice sent."), 3: mockTurn.text("Bye.") }),
        },
      ],
    };
    const agents = {
      triage: agent("triage", { handoffs: ["billing"] }),
      billing: agent("billing", { tools: ["Glob"] }),
    };
    try {
      await withMock(script, async (server) => {
        const first = await runQuery(server, anthropic, "refund me", {
          cwd: dir,
          sessionStore: store,
          agent: "triage",
          agents,
        });
        const sessionId = first[0]?.session_id ?? "";
        const stored = await store.getSessionMessages(sessionId);
        expect(handoffsOf(stored).map((h) => h.to)).toEqual(["billing"]);
        const second = await runQuery(server, anthropic, "and the invoice?", {
          cwd: dir,
          sessionStore: store,
          resume: sessionId,
          agent: "triage",
          agents,
        });
        expect(server.requests.at(-1)?.route).toBe(1);
        expect(systemOf(server, server.requests.length)).toContain("You are billing.");
        expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("Refunded.");
        expect(second[0]).toMatchObject({ subtype: "init", tools: ["Glob"] });
        expect(resultOf(second)).toMatchObject({ result: "Invoice sent.", agent: "billing" });
        const gone = await runQuery(server, anthropic, "hi", {
          cwd: dir,
          sessionStore: store,
          resume: sessionId,
        }).catch((e: unknown) => e as Error);
        expect(gone).toMatchObject({ code: "config_error" });
        expect((gone as Error).message).toContain(
          'The session was handed to the agent "billing", which this run does not have',
        );
        const third = await runQuery(server, anthropic, "thanks", {
          cwd: dir,
          sessionStore: store,
          resume: sessionId,
          agents,
        });
        expect(server.requests.at(-1)?.route).toBe(1);
        expect(resultOf(third)).toMatchObject({ result: "Bye.", agent: "billing" });
      });
    } finally {
      await store.close();
    }
  });

  it("a transfer deferred for approval is taken when the resumed run approves it", async () => {
    const store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [transfer("billing", "call_transfer")] },
        { system: "You are billing.", turns: at({ 1: mockTurn.text("Billing, approved.") }) },
      ],
    };
    const defer = async () => ({
      hookSpecificOutput: {
        hookEventName: "PreToolUse" as const,
        permissionDecision: "defer" as const,
        permissionDecisionReason: "a person approves transfers",
      },
    });
    const options = {
      cwd: dir,
      sessionStore: store,
      agent: "triage",
      agents: { triage: agent("triage", { handoffs: ["billing"] }), billing: agent("billing", { tools: ["Glob"] }) },
      hooks: { PreToolUse: [{ matcher: "transfer_to_billing", hooks: [defer] }] },
    };
    try {
      await withMock(script, async (server) => {
        const first = await runQuery(server, anthropic, "refund me", options);
        const paused = resultOf(first);
        expect(paused).toMatchObject({ terminal_reason: "requires_action", agent: "triage" });
        expect(paused.pending_tool_calls).toMatchObject([{ kind: "approval", id: "call_transfer" }]);
        expect(handoffsOf(first)).toEqual([]);
        const second = await runQuery(server, anthropic, "", {
          ...options,
          resume: paused.session_id,
          approvals: { call_transfer: { behavior: "allow" } },
        });
        expect(handoffsOf(second)).toEqual([expect.objectContaining({ to: "billing", tool_use_id: "call_transfer" })]);
        expect(server.requests.map((r) => r.route)).toEqual([0, 1]);
        expect(resultOf(second)).toMatchObject({ result: "Billing, approved.", agent: "billing" });
      });
    } finally {
      await store.close();
    }
  });

  it("a target whose model has no price under maxBudgetUsd: the transfer fails as is_error and the run stays", async () => {
    const script = {
      turns: [],
      routes: [{ system: "You are triage.", turns: at({ 0: transfer("billing"), 1: mockTurn.text("Still triage.") }) }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        maxBudgetUsd: 5,
        agent: "triage",
        agents: {
          triage: agent("triage", { handoffs: ["billing"] }),
          billing: agent("billing", { model: "openai/no-such-price-model" }),
        },
      });
      const [refused] = toolResults(messages);
      expect(refused).toMatchObject({ is_error: true });
      expect(refused?.content).toContain("maxBudgetUsd needs the price");
      expect(handoffsOf(messages)).toEqual([]);
      expect(resultOf(messages)).toMatchObject({ result: "Still triage.", agent: "triage" });
    });
  });

  it("the agent option applies the agent's maxTurns and narrows the permission mode", async () => {
    const planned = join(dir, "planned.txt");
    const script = {
      turns: [],
      routes: [
        {
          system: "You are planner.",
          turns: at({ 0: mockTurn.toolUse("Write", { file_path: planned, content: "x" }), 1: mockTurn.text("never") }),
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "write it", {
        cwd: dir,
        permissionMode: "bypassPermissions",
        maxTurns: 10,
        agent: "planner",
        agents: { planner: agent("planner", { tools: ["Write"], permissionMode: "plan", maxTurns: 1 }) },
      });
      expect(messages[0]).toMatchObject({ subtype: "init", permissionMode: "plan", tools: ["Write"] });
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(existsSync(planned)).toBe(false);
      expect(server.requests).toHaveLength(1);
      expect(resultOf(messages)).toMatchObject({ subtype: "error_max_turns", agent: "planner" });
    });
  });

  it("a subagent hands off too: the target's answer is the Agent result; the handoff is tagged with the call's id", async () => {
    const script = {
      turns: [
        mockTurn.toolUse(
          "Agent",
          { description: "d", prompt: "sort this out", subagent_type: "triage" },
          { id: "call_agent" },
        ),
        mockTurn.text("Done."),
      ],
      routes: [
        { system: "You are triage.", turns: [transfer("billing")] },
        { system: "You are billing.", turns: at({ 1: mockTurn.text("billing answer") }) },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        agents: {
          triage: agent("triage", { tools: ["Read"], handoffs: ["billing"] }),
          billing: agent("billing", { tools: ["Glob"] }),
        },
      });
      expect(server.requests.map((r) => r.route)).toEqual([undefined, 0, 1, undefined]);
      expect(toolNamesOf(server, 2)).toEqual(["Read", "transfer_to_billing"]);
      expect(toolNamesOf(server, 3)).toEqual(["Glob"]);
      expect(handoffsOf(messages)).toEqual([
        expect.objectContaining({ from: "triage", to: "billing", parent_tool_use_id: "call_agent" }),
      ]);
      const parentResults = toolResults(
        messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === null),
      );
      expect(parentResults).toEqual([
        expect.objectContaining({ tool_use_id: "call_agent", content: "billing answer" }),
      ]);
      // The main thread never ran as an agent: its result names none.
      expect(resultOf(messages)).not.toHaveProperty("agent");
    });
  });

  it("a subagent's transfer tools are its own: a subagent it starts does not get them", async () => {
    const agentCall = (type: string) =>
      mockTurn.toolUse("Agent", { description: "d", prompt: `work, ${type}`, subagent_type: type });
    const script = {
      turns: [agentCall("triage"), mockTurn.text("done")],
      routes: [
        { system: "You are triage.", turns: [agentCall("scout"), mockTurn.text("triage done")] },
        { system: "You are scout.", turns: [mockTurn.text("scouted")] },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        maxSubagentDepth: 2,
        agents: {
          triage: agent("triage", { tools: ["Glob"], handoffs: ["billing"] }),
          billing: agent("billing"),
          scout: agent("scout"),
        },
      });
      expect(server.requests.map((r) => r.route)).toEqual([undefined, 0, 1, 0, undefined]);
      expect(toolNamesOf(server, 2)).toEqual(["Glob", "transfer_to_billing", "Agent", "AgentOutput"]);
      expect(toolNamesOf(server, 3)).toEqual(["Glob"]);
      expect(resultOf(messages)).toMatchObject({ result: "done" });
    });
  });

  it.each([
    [{ agent: "triage", agents: { triage: agent("triage", { handoffs: ["nobody"] }) } }, /hands off to "nobody"/],
    [{ agents: { triage: agent("triage", { handoffs: ["nobody"] }) } }, /hands off to "nobody"/],
    [
      { agent: "ghost", agents: { triage: agent("triage") } },
      /there is no agent "ghost"\. Agents: general-purpose, triage/,
    ],
  ])("an unknown agent name is a config_error before any request (%#)", async (options, message) => {
    await withMock({ turns: [mockTurn.text("never")] }, async (server) => {
      const error = await runQuery(server, anthropic, "go", options).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "config_error" });
      expect((error as Error).message).toMatch(message);
      expect(server.requests).toHaveLength(0);
    });
  });
});
