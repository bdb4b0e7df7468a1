import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentDefinition,
  defineTool,
  type QueryOptions,
  type QueryPrompt,
  query,
  type SDKMessage,
  type SDKUserMessage,
} from "../src/index.js";
import {
  type MockLLMServer,
  type MockRequest,
  type MockScript,
  type MockTurn,
  mockTurn,
  startMockLLM,
} from "../src/testing/index.js";
import { FORMATS, type Format, mockEnv, resultOf, toolResults } from "./helpers.js";

const [anthropic, openai] = FORMATS;

function agent(marker: string): AgentDefinition {
  return { description: `The ${marker} agent.`, prompt: `You are ${marker}. Report briefly.` };
}

function backgroundCall(type: string, id: string): MockTurn {
  return mockTurn.toolUse(
    "Agent",
    { description: `ask ${type}`, prompt: `work as ${type}`, subagent_type: type, run_in_background: true },
    { id },
  );
}

function agentOutput(taskId: string, extra: Record<string, unknown> = {}): MockTurn {
  return mockTurn.toolUse("AgentOutput", { task_id: taskId, ...extra });
}

/** A read-only tool whose calls wait until `until` resolves: it orders a subagent's steps against its parent's. */
function gateTool(until: () => Promise<void>) {
  return defineTool({
    name: "gate",
    description: "Waits, then answers open.",
    inputSchema: z.object({}),
    readOnly: true,
    execute: async () => (await until(), "open"),
  });
}

/** A mock server and `logged(predicate)`: resolves once a request matching it has arrived. */
async function startServer(script: MockScript) {
  const waiters: Array<{ matches: (request: MockRequest) => boolean; resolve: () => void }> = [];
  const server = await startMockLLM({
    script,
    onRequest: (request) => {
      for (const waiter of waiters.filter((w) => w.matches(request))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
  });
  const logged = (matches: (request: MockRequest) => boolean) =>
    server.requests.some(matches)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ matches, resolve }));
  return { server, logged };
}

function start(server: MockLLMServer, format: Format, options: QueryOptions, prompt: QueryPrompt = "go") {
  return query({
    prompt,
    options: { model: format.model, env: mockEnv(server), persistSession: false, cwd: dir, ...options },
  });
}

async function collect(iterable: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of iterable) messages.push(message);
  return messages;
}

const parentOnly = (messages: SDKMessage[]) =>
  messages.filter((m) => !("parent_tool_use_id" in m) || m.parent_tool_use_id === null);
const taggedWith = (messages: SDKMessage[], id: string) =>
  messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === id);
const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));
const isMain = (request: MockRequest) => request.route === undefined;

/** Waits until `condition` holds (a process's end is reported by the OS, not by an event we can await). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Running: it exists and is not a zombie waiting for a parent to reap it (Linux's /proc says which). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return !/^\d+ \(.*\) Z/.test(stat);
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-background-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("background subagents", () => {
  for (const format of [anthropic, openai]) {
    it(`return a task_id at once; AgentOutput reads running, then waits for the answer; messages are tagged, costs roll up (${format.name})`, async () => {
      const usage = { input_tokens: 1000, output_tokens: 100 };
      const script = {
        turns: [
          { ...backgroundCall("worker", "call_bg"), usage },
          { ...agentOutput("call_bg", { block: false }), usage },
          { ...agentOutput("call_bg"), usage },
          { ...mockTurn.text("All done."), usage },
        ],
        routes: [
          {
            system: "You are worker.",
            turns: [
              { ...mockTurn.toolUse("gate", {}), usage },
              { ...mockTurn.text("worker done"), usage },
            ],
          },
        ],
      };
      const { server, logged } = await startServer(script);
      try {
        // The worker cannot finish before the parent's third request: a call that waited for it would never return.
        const gate = gateTool(() => logged((r) => isMain(r) && r.turn === 2));
        const messages = await collect(
          start(server, format, { agents: { worker: agent("worker") }, tools: ["Agent", gate] }),
        );
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "All done." });
        const seq = server.requests.map((r) => [r.route ?? "main", r.turn]);
        const lastWorker = seq.findLastIndex(([route]) => route === 0);
        expect(seq.findIndex(([route, turn]) => route === "main" && turn === 1)).toBeLessThan(lastWorker);
        expect(seq).toHaveLength(6);
        // The worker has neither the Agent tool nor the parent's AgentOutput.
        const workerTools = (server.requests[lastWorker]?.body as { tools?: Array<{ name?: string }> }).tools ?? [];
        expect(workerTools.map((tool) => tool.name)).toEqual(["gate"]);

        const [launch, notReady, finished, ...rest] = toolResults(parentOnly(messages));
        expect(rest).toEqual([]);
        expect(launch?.is_error).toBeUndefined();
        expect(textOf(launch?.content)).toContain("task_id: call_bg");
        expect(textOf(notReady?.content)).toContain("<retrieval_status>not_ready</retrieval_status>");
        expect(textOf(notReady?.content)).toContain("<status>running</status>");
        expect(finished?.is_error).toBeUndefined();
        expect(textOf(finished?.content)).toContain("<status>completed</status>");
        expect(textOf(finished?.content)).toContain("<output>\nworker done\n</output>");

        // The worker's messages reach the stream tagged with the Agent call's id; its answer comes
        // before the AgentOutput result that carries it.
        const tagged = taggedWith(messages, "call_bg");
        expect(tagged.map((m) => m.type)).toEqual(["assistant", "tool_progress", "user", "assistant"]);
        const completedIndex = messages.findIndex(
          (m) => m.type === "user" && m.parent_tool_use_id === null && textOf(m.message.content).includes("completed"),
        );
        expect(messages.indexOf(tagged[3] as SDKMessage)).toBeLessThan(completedIndex);

        // Six model calls of the same price: the worker's two are in the result.
        const result = resultOf(messages);
        const first = messages.find((m) => m.type === "assistant");
        const oneTurn = first?.type === "assistant" ? (first.cost_usd ?? 0) : 0;
        expect(oneTurn).toBeGreaterThan(0);
        expect(result.usage.input_tokens).toBe(6000);
        expect(result.total_cost_usd).toBeCloseTo(6 * oneTurn, 10);
      } finally {
        await server.close();
      }
    });

    it(`the run's end stops a running background agent and kills its Bash process; the model is reminded once (${format.name})`, async () => {
      const pidFile = join(dir, "sleep.pid");
      const usage = { input_tokens: 1000, output_tokens: 100 };
      const script = {
        turns: [
          { ...backgroundCall("sleeper", "call_sleep"), usage },
          { ...mockTurn.toolUse("gate", {}), usage },
          { ...mockTurn.text("Answer without waiting."), usage },
          { ...mockTurn.text("Done anyway."), usage },
        ],
        routes: [
          {
            system: "You are sleeper.",
            turns: [
              { ...mockTurn.toolUse("Bash", { command: `sleep 300 & echo $! > ${pidFile}; wait` }), usage },
              mockTurn.text("never"),
            ],
          },
        ],
      };
      const { server } = await startServer(script);
      try {
        const gate = gateTool(() => until(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n")));
        const messages = await collect(
          start(server, format, {
            agents: { sleeper: agent("sleeper") },
            tools: ["Agent", "Bash", gate],
            permissionMode: "bypassPermissions",
          }),
        );
        // The query ends only once the session's commands are verified gone: no waiting here.
        expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
        expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "Done anyway." });

        // The final answer came while the agent ran: one reminder turn, then the run ended.
        expect(server.requests.map((r) => r.route ?? "main")).toEqual(["main", 0, "main", "main", "main"]);
        const reminders = parentOnly(messages).filter(
          (m) => m.type === "user" && textOf(m.message.content).includes("Background agents you started"),
        );
        expect(reminders).toHaveLength(1);
        expect(textOf(reminders[0]?.type === "user" && reminders[0].message.content)).toContain(
          "call_sleep (sleeper: ask sleeper): running",
        );
        expect(JSON.stringify(server.requests[4]?.body)).toContain("Background agents you started");

        // Its Bash call was interrupted, and that answer is the last of its messages the stream carried.
        const [bash] = toolResults(taggedWith(messages, "call_sleep"));
        expect(bash).toMatchObject({ is_error: true });
        expect(textOf(bash?.content)).toMatch(/interrupted/);
        // What it spent (one model call) is in the result.
        expect(resultOf(messages).usage.input_tokens).toBe(5000);
      } finally {
        await server.close();
      }
    });
  }

  it("interrupt() ends a blocking AgentOutput and the background agent; the run ends interrupted", async () => {
    const script = {
      turns: [
        backgroundCall("sleeper", "call_slow"),
        agentOutput("call_slow", { timeout: 600_000 }),
        mockTurn.text("no"),
      ],
      routes: [{ system: "You are sleeper.", turns: [{ ...mockTurn.text("woke"), delayMs: 60_000 }] }],
    };
    const { server, logged } = await startServer(script);
    try {
      let blocking!: () => void;
      const waiting = new Promise<void>((resolve) => (blocking = resolve));
      const q = start(server, anthropic, {
        agents: { sleeper: agent("sleeper") },
        hooks: { PreToolUse: [{ matcher: "AgentOutput", hooks: [async () => (blocking(), {})] }] },
      });
      const interrupting = Promise.all([waiting, logged((r) => r.route === 0)]).then(() => q.interrupt());
      const messages = await collect(q);
      await interrupting;
      expect(resultOf(messages)).toMatchObject({ terminal_reason: "interrupted" });
      const [launch, output] = toolResults(parentOnly(messages));
      expect(textOf(launch?.content)).toContain("task_id: call_slow");
      expect(output).toMatchObject({ is_error: true });
      expect(textOf(output?.content)).toMatch(/interrupted/);
      expect(server.requests.map((r) => r.route ?? "main")).toEqual(["main", 0, "main"]);
    } finally {
      await server.close();
    }
  });

  it("AgentOutput with an unknown task_id is an is_error result naming the known ids", async () => {
    const script = {
      turns: [
        agentOutput("nope"),
        backgroundCall("worker", "call_a"),
        agentOutput("nope", { block: false }),
        agentOutput("call_a"),
        mockTurn.text("ok"),
      ],
      routes: [{ system: "You are worker.", turns: [mockTurn.text("worked")] }],
    };
    const { server } = await startServer(script);
    try {
      const messages = await collect(start(server, openai, { agents: { worker: agent("worker") } }));
      const [none, , unknown, read] = toolResults(parentOnly(messages));
      expect(none).toMatchObject({ is_error: true });
      expect(textOf(none?.content)).toContain(
        'No background agent has task_id "nope". No background agent was started',
      );
      expect(unknown).toMatchObject({ is_error: true });
      expect(textOf(unknown?.content)).toContain("Known task_ids: call_a.");
      expect(textOf(read?.content)).toContain("<output>\nworked\n</output>");
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "ok" });
    } finally {
      await server.close();
    }
  });

  it("background agents take maxConcurrentSubagents slots: with one, the second waits for the first to end", async () => {
    const routes = ["red", "green"].map((color) => ({
      system: `You are ${color}.`,
      turns: [mockTurn.toolUse("Glob", { pattern: "*" }), mockTurn.text(`${color} done`)],
    }));
    const calls = ["red", "green"].map((color) => backgroundCall(color, `call_${color}`).content?.[0]);
    const script = {
      turns: [
        mockTurn.of(calls as NonNullable<MockTurn["content"]>),
        agentOutput("call_green"),
        agentOutput("call_red", { block: false }),
        mockTurn.text("both done"),
      ],
      routes,
    };
    const { server } = await startServer(script);
    try {
      const messages = await collect(
        start(server, anthropic, { agents: { red: agent("red"), green: agent("green") }, maxConcurrentSubagents: 1 }),
      );
      const subagentRequests = server.requests.filter((r) => r.route !== undefined).map((r) => [r.route, r.turn]);
      expect(subagentRequests).toEqual([
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ]);
      const results = toolResults(parentOnly(messages)).map((r) => textOf(r.content));
      expect(results[0]).toContain("task_id: call_red");
      expect(results[1]).toContain("task_id: call_green");
      expect(results[2]).toContain("green done");
      expect(results[3]).toContain("<status>completed</status>");
      expect(resultOf(messages).result).toBe("both done");
    } finally {
      await server.close();
    }
  });

  it("the parent's maxBudgetUsd bounds a background agent: it fails at the limit, and the parent stops", async () => {
    const big = { input_tokens: 100_000, output_tokens: 10_000 }; // $0.45 on claude-sonnet-4-5
    const script = {
      turns: [backgroundCall("spender", "call_spend"), agentOutput("call_spend"), mockTurn.text("never reached")],
      routes: [
        {
          system: "You are spender.",
          turns: [
            { ...mockTurn.toolUse("Glob", { pattern: "*" }), usage: big },
            { ...mockTurn.toolUse("Glob", { pattern: "*" }), usage: big },
            mockTurn.text("spent"),
          ],
        },
      ],
    };
    const { server } = await startServer(script);
    try {
      const messages = await collect(
        start(server, anthropic, { agents: { spender: agent("spender") }, maxBudgetUsd: 0.5 }),
      );
      const [, output] = toolResults(parentOnly(messages));
      expect(output).toMatchObject({ is_error: true });
      expect(textOf(output?.content)).toContain("<status>failed</status>");
      expect(textOf(output?.content)).toContain("max_budget");
      expect(resultOf(messages)).toMatchObject({ subtype: "error_max_budget_usd" });
      // Two calls of the spender (the second past the budget), two of the parent, in whatever order they met.
      expect(server.requests.map((r) => r.route ?? "main").sort()).toEqual([0, 0, "main", "main"]);
    } finally {
      await server.close();
    }
  });

  it("a subagent's background agents are its own: stopped when it ends, unknown to the parent's AgentOutput", async () => {
    const script = {
      turns: [
        mockTurn.toolUse(
          "Agent",
          { description: "outer", prompt: "go deeper", subagent_type: "outer" },
          { id: "call_outer" },
        ),
        agentOutput("call_inner", { block: false }),
        mockTurn.text("top done"),
      ],
      routes: [
        {
          system: "You are outer.",
          turns: [
            backgroundCall("inner", "call_inner"),
            mockTurn.text("outer done"),
            mockTurn.text("outer really done"),
          ],
        },
        { system: "You are inner.", turns: [{ ...mockTurn.text("woke"), delayMs: 60_000 }] },
      ],
    };
    const { server } = await startServer(script);
    try {
      const messages = await collect(
        start(server, anthropic, { agents: { outer: agent("outer"), inner: agent("inner") }, maxSubagentDepth: 2 }),
      );
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "top done" });
      const [outer, unknown] = toolResults(parentOnly(messages));
      expect(outer).toMatchObject({ content: "outer really done" });
      expect(unknown).toMatchObject({ is_error: true });
      expect(textOf(unknown?.content)).toContain("No background agent was started in this run");
      // The outer agent was reminded of its running agent, in its own stream.
      const outerTexts = taggedWith(messages, "call_outer").map((m) =>
        m.type === "user" ? textOf(m.message.content) : "",
      );
      expect(outerTexts.filter((text) => text.includes("call_inner (inner: ask inner): running"))).toHaveLength(1);
      // The inner agent's one model call was cut when the outer one ended; nothing waited for it.
      expect(server.requests.filter((r) => r.route === 1)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("in a session of several prompts, an agent stopped when an earlier prompt ended reads as stopped later", async () => {
    const prompt = (text: string): SDKUserMessage => ({
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
      session_id: "",
      uuid: text,
    });
    async function* prompts(): AsyncGenerator<SDKUserMessage> {
      yield prompt("first");
      yield prompt("second");
    }
    const script = {
      turns: [
        backgroundCall("sleeper", "call_x"),
        mockTurn.text("first answer"),
        mockTurn.text("first done"),
        agentOutput("call_x", { block: false }),
        mockTurn.text("second done"),
      ],
      routes: [{ system: "You are sleeper.", turns: [{ ...mockTurn.text("woke"), delayMs: 60_000 }] }],
    };
    const { server } = await startServer(script);
    try {
      const messages = await collect(start(server, anthropic, { agents: { sleeper: agent("sleeper") } }, prompts()));
      const results = messages.filter((m) => m.type === "result");
      expect(results.map((r) => r.type === "result" && r.result)).toEqual(["first done", "second done"]);
      const [, output] = toolResults(parentOnly(messages));
      expect(output).toMatchObject({ is_error: true });
      expect(textOf(output?.content)).toContain("<status>stopped</status>");
      const reminders = parentOnly(messages).filter(
        (m) => m.type === "user" && textOf(m.message.content).includes("Background agents you started"),
      );
      expect(reminders).toHaveLength(1);
      expect(server.requests.filter((r) => r.route === undefined)).toHaveLength(5);
    } finally {
      await server.close();
    }
  });
});
