import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query, type SDKMessage } from "../src/index.js";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { mockFault, mockTurn } from "../src/testing/index.js";
import { compatRequire } from "./compat-peers.js";
import { FORMATS, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";

// The run's spans as the real OpenTelemetry SDK records them (installed outside node_modules by
// `npm run compat:install`, as the CLI's users install it): an in-memory exporter behind a
// simple processor, the tracer given as the `tracer` option or registered globally.

interface ReadableSpan {
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes?: Record<string, unknown> }[];
  status: { code: number; message?: string };
  spanContext(): { traceId: string; spanId: string };
  parentSpanContext?: { spanId: string };
}
interface Exporter {
  getFinishedSpans(): ReadableSpan[];
  reset(): void;
}
interface Sdk {
  TracerProvider: new (options: { spanProcessors: unknown[] }) => {
    getTracer(name: string): import("@opentelemetry/api").Tracer;
    forceFlush(): Promise<void>;
    shutdown(): Promise<void>;
  };
  InMemorySpanExporter: new () => Exporter;
  SimpleSpanProcessor: new (options: { exporter: Exporter }) => unknown;
}
const sdk = compatRequire("otel-sdk", "@opentelemetry/sdk-trace") as Sdk;
const { AsyncLocalStorageContextManager } = compatRequire("otel-sdk", "@opentelemetry/context-async-hooks") as {
  AsyncLocalStorageContextManager: new () => { enable(): unknown; disable(): unknown };
};

const [anthropic] = FORMATS;
const exporter = new sdk.InMemorySpanExporter();
const provider = new sdk.TracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer("telemetry-test");
const ERROR = 2;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-telemetry-"));
  writeFileSync(join(dir, "a.txt"), "alpha\n");
  writeFileSync(join(dir, "b.txt"), "beta\n");
  exporter.reset();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
afterAll(() => provider.shutdown());

/** The spans ended so far (the simple processor exports each asynchronously: flushed first). */
async function finished(): Promise<ReadableSpan[]> {
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

function parentOf(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan | undefined {
  return spans.find((other) => other.spanContext().spanId === span.parentSpanContext?.spanId);
}

/** The span tree as `name` lines, children indented under their parent, siblings in name order. */
function tree(spans: ReadableSpan[]): string[] {
  const lines: string[] = [];
  const walk = (parentId: string | undefined, depth: number) => {
    const children = spans
      .filter((span) => span.parentSpanContext?.spanId === parentId)
      .sort((a, b) => a.name.localeCompare(b.name));
    for (const child of children) {
      lines.push(`${"  ".repeat(depth)}${child.name}`);
      walk(child.spanContext().spanId, depth + 1);
    }
  };
  const roots = spans.filter((span) => !parentOf(span, spans));
  for (const root of roots) {
    lines.push(root.name);
    walk(root.spanContext().spanId, 1);
  }
  return lines;
}

function named(spans: ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

describe("spans of a run (GenAI semantic conventions)", () => {
  it("a run with a subagent and parallel tool calls is one trace: invoke_agent > chat, execute_tool > invoke_agent > chat", async () => {
    const script = {
      turns: [
        {
          content: [
            { type: "tool_use" as const, name: "Read", input: { file_path: join(dir, "a.txt") }, id: "call_a" },
            { type: "tool_use" as const, name: "Read", input: { file_path: join(dir, "b.txt") }, id: "call_b" },
          ],
          usage: { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 7, cache_creation_input_tokens: 5 },
        },
        mockTurn.toolUse(
          "Agent",
          { description: "ask scout", prompt: "Say hi", subagent_type: "scout" },
          { id: "call_agent", usage: { input_tokens: 200, output_tokens: 11 } },
        ),
        mockTurn.text("done", { usage: { input_tokens: 300, output_tokens: 3 } }),
      ],
      routes: [
        { system: "You are scout.", turns: [mockTurn.text("hi", { usage: { input_tokens: 9, output_tokens: 2 } })] },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "read both, then ask scout", {
        cwd: dir,
        tracer,
        agents: { scout: { description: "The scout agent.", prompt: "You are scout. Be brief." } },
      });
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "done" });
      const result = resultOf(messages);
      const spans = await finished();
      expect(tree(spans)).toEqual([
        "invoke_agent gyre",
        "  chat claude-sonnet-4-5",
        "  chat claude-sonnet-4-5",
        "  chat claude-sonnet-4-5",
        "  execute_tool Agent",
        "    invoke_agent scout",
        "      chat claude-sonnet-4-5",
        "  execute_tool Read",
        "  execute_tool Read",
      ]);
      // One trace.
      expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);

      const [root] = named(spans, "invoke_agent gyre");
      const sessionId = messages[0]?.session_id;
      expect(root?.attributes).toMatchObject({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "gyre",
        "gen_ai.conversation.id": sessionId,
        "gen_ai.request.model": "claude-sonnet-4-5",
        "gyre.terminal_reason": "completed",
        "gyre.num_turns": 3,
      });
      if (result?.type !== "result") throw new Error("no result");
      expect(root?.attributes["gen_ai.usage.input_tokens"]).toBe(result.usage.input_tokens);
      expect(root?.attributes["gen_ai.usage.output_tokens"]).toBe(result.usage.output_tokens);
      expect(root?.attributes["gyre.cost_usd"]).toBe(result.total_cost_usd);

      // The chat spans carry the usage exactly as the mock reported it, in request order.
      const chats = named(spans, "chat claude-sonnet-4-5").filter((span) => parentOf(span, spans) === root);
      const first = chats.find((span) => span.attributes["gen_ai.usage.input_tokens"] === 120);
      expect(first?.kind).toBe(2); // CLIENT
      expect(first?.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "claude-sonnet-4-5",
        "gen_ai.response.model": "claude-sonnet-4-5",
        "gen_ai.response.finish_reasons": ["tool_use"],
        "gen_ai.usage.input_tokens": 120,
        "gen_ai.usage.output_tokens": 30,
        "gen_ai.usage.cache_read.input_tokens": 7,
        "gen_ai.usage.cache_creation.input_tokens": 5,
      });
      expect(first?.attributes["gen_ai.response.id"]).toEqual(expect.any(String));
      expect(chats.map((span) => span.attributes["gen_ai.usage.input_tokens"]).sort()).toEqual([120, 200, 300]);
      // No content without the opt-in.
      for (const span of spans)
        for (const key of Object.keys(span.attributes))
          expect(key).not.toMatch(/messages|arguments|result|instructions/);

      const reads = named(spans, "execute_tool Read");
      expect(reads.map((span) => span.attributes["gen_ai.tool.call.id"]).sort()).toEqual(["call_a", "call_b"]);
      expect(reads[0]?.attributes).toMatchObject({ "gen_ai.tool.name": "Read", "gen_ai.tool.type": "function" });
      expect(reads[0]?.events.find((event) => event.name === "gyre.permission")?.attributes).toEqual({
        "gyre.permission.behavior": "allow",
      });
      const [agentCall] = named(spans, "execute_tool Agent");
      expect(agentCall?.attributes["gen_ai.tool.call.id"]).toBe("call_agent");
      const [scout] = named(spans, "invoke_agent scout");
      expect(scout?.attributes).toMatchObject({
        "gen_ai.agent.name": "scout",
        "gen_ai.usage.input_tokens": 9,
        "gen_ai.usage.output_tokens": 2,
        "gyre.terminal_reason": "completed",
      });
    });
  });

  it("a denied call's span has the denial as its permission event and status ERROR", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("Write", { file_path: join(dir, "c.txt"), content: "x" }, { id: "call_w" }),
        mockTurn.text("ok"),
      ],
    };
    await withMock(script, async (server) => {
      await runQuery(server, anthropic, "write c", {
        cwd: dir,
        tracer,
        permissionMode: "default",
        canUseTool: async () => ({ behavior: "deny", message: "not today" }),
      });
      const [write] = named(await finished(), "execute_tool Write");
      expect(write?.status).toMatchObject({ code: ERROR });
      expect(write?.attributes["error.type"]).toBe("permission_denied");
      expect(write?.events.find((event) => event.name === "gyre.permission")?.attributes).toMatchObject({
        "gyre.permission.behavior": "deny",
        "gyre.permission.reason": expect.stringContaining("not today"),
      });
    });
  });

  it("a retried request is a failed chat span, then the attempt that answered", async () => {
    const script = { turns: [mockTurn.text("made it", { faults: [mockFault.overloaded()] })] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", { tracer });
      expect(messages.filter((m) => m.type === "system" && m.subtype === "api_retry")).toHaveLength(1);
      const spans = await finished();
      const chats = named(spans, "chat claude-sonnet-4-5");
      expect(chats).toHaveLength(2);
      const [failed, answered] = chats;
      expect(failed?.status.code).toBe(ERROR);
      expect(failed?.attributes["error.type"]).toEqual(expect.any(String));
      expect(failed?.attributes["gyre.retry.attempt"]).toBeUndefined();
      expect(answered?.status.code).not.toBe(ERROR);
      expect(answered?.attributes["gyre.retry.attempt"]).toBe(1);
      expect(answered?.attributes["gen_ai.response.finish_reasons"]).toEqual(["end_turn"]);
    });
  });

  it("content goes into spans only with the opt-in, and never the run's provider keys", async () => {
    const key = "sk-ant-api03-telemetry-test-0123456789";
    writeFileSync(join(dir, "a.txt"), `alpha, and the key is ${key}\n`);
    const script = {
      turns: [mockTurn.toolUse("Read", { file_path: join(dir, "a.txt") }), mockTurn.text(`it says alpha and ${key}`)],
    };
    await withMock(script, async (server) => {
      await runQuery(server, anthropic, `read a (my key is ${key})`, {
        cwd: dir,
        tracer,
        traceContent: true,
        env: { ...mockEnv(server), ANTHROPIC_API_KEY: key },
      });
      const spans = await finished();
      const [read] = named(spans, "execute_tool Read");
      expect(read?.attributes["gen_ai.tool.call.arguments"]).toContain("a.txt");
      expect(read?.attributes["gen_ai.tool.call.result"]).toContain("alpha, and the key is [REDACTED]");
      const chats = named(spans, "chat claude-sonnet-4-5");
      expect(chats[0]?.attributes["gen_ai.input.messages"]).toContain("read a (my key is [REDACTED])");
      expect(chats[1]?.attributes["gen_ai.output.messages"]).toContain("it says alpha and [REDACTED]");
      for (const span of spans) expect(JSON.stringify(span.attributes)).not.toContain(key);
    });
  });
});

describe("the global tracer provider", () => {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    contextManager.enable();
    context.setGlobalContextManager(contextManager as never);
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });

  it("records nothing while none is registered, and is used once one is; a run inside an active span is its child", async () => {
    const script = { turns: [mockTurn.text("one")] };
    await withMock(script, async (server) => {
      await runQuery(server, anthropic, "hi");
      expect(await finished()).toEqual([]);

      expect(trace.setGlobalTracerProvider(provider as never)).toBe(true);
      const messages: SDKMessage[] = [];
      await tracer.startActiveSpan("ci job", async (job) => {
        const run = query({
          prompt: "hi",
          options: { model: anthropic.model, env: mockEnv(server), persistSession: false },
        });
        for await (const message of run) messages.push(message);
        job.end();
      });
      expect(resultOf(messages)).toMatchObject({ result: "one" });
      expect(tree(await finished())).toEqual(["ci job", "  invoke_agent gyre", "    chat claude-sonnet-4-5"]);
    });
  });
});

describe("compactions, hooks, pauses, handoffs and background agents in the trace", () => {
  const events = (span: ReadableSpan | undefined, name: string) =>
    (span?.events ?? []).filter((event) => event.name === name).map((event) => event.attributes);

  it("a compaction is a compact_history span with its trigger and tokens; hooks are events on their call's span and the run's", async () => {
    const big = { input_tokens: 150_000, output_tokens: 10 };
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.toolUse("Read", { file_path: join(dir, "a.txt") }, { id: "call_r1" }),
        mockTurn.toolUse("Read", { file_path: join(dir, "b.txt") }, { id: "call_r2", usage: big }),
        mockTurn.text("Summary: both files were read.", { usage: { input_tokens: 40, output_tokens: 8 } }),
        mockTurn.text("done"),
      ],
    };
    const hooks = {
      PreToolUse: [
        {
          matcher: "Read",
          hooks: [
            async () => ({
              hookSpecificOutput: { hookEventName: "PreToolUse" as const, permissionDecision: "allow" as const },
            }),
          ],
        },
      ],
      Stop: [{ hooks: [async () => ({})] }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "read both", {
        cwd: dir,
        tracer,
        hooks,
        compaction: { thresholdTokens: 100_000, keepRecentTurns: 1 },
      });
      expect(resultOf(messages)).toMatchObject({ result: "done" });
      const spans = await finished();
      const [root] = named(spans, "invoke_agent gyre");
      const [compaction] = named(spans, "compact_history");
      expect(compaction && parentOf(compaction, spans)).toBe(root);
      const boundary = messages.find((m) => m.type === "system" && m.subtype === "compact_boundary");
      if (boundary?.type !== "system" || boundary.subtype !== "compact_boundary") throw new Error("no boundary");
      expect(compaction?.attributes).toMatchObject({
        "gyre.compaction.trigger": "auto",
        "gyre.compaction.pre_tokens": boundary.compact_metadata.pre_tokens,
        "gyre.compaction.post_tokens": boundary.compact_metadata.post_tokens,
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 8,
      });
      for (const read of named(spans, "execute_tool Read"))
        expect(events(read, "gyre.hook")).toEqual([
          {
            "gyre.hook.event": "PreToolUse",
            "gyre.hook.count": 1,
            "gyre.hook.errors": 0,
            "gyre.hook.decision": "allow",
          },
        ]);
      // Stop is no tool's: the run's span has it.
      expect(events(root, "gyre.hook")).toEqual([
        { "gyre.hook.event": "Stop", "gyre.hook.count": 1, "gyre.hook.errors": 0 },
      ]);
    });
  });

  it("a pause is an event on the run's span; the run that answers links to it", async () => {
    const store = openSqliteSessionStore({ path: join(dir, "pause.db") });
    const script = {
      turns: [mockTurn.toolUse("Write", { file_path: join(dir, "c.txt"), content: "x" }), mockTurn.text("Saved.")],
    };
    try {
      await withMock(script, async (server) => {
        const first = await runQuery(server, anthropic, "write c", {
          cwd: dir,
          tracer,
          sessionStore: store,
          canUseTool: async () => ({ behavior: "defer", message: "review" }),
        });
        const paused = resultOf(first);
        if (paused?.type !== "result") throw new Error("no result");
        expect(paused.terminal_reason).toBe("requires_action");
        const callId = paused.pending_tool_calls?.[0]?.id ?? "";
        const [pausedRun] = named(await finished(), "invoke_agent gyre");
        expect(events(pausedRun, "gyre.pause")).toEqual([{ "gyre.pending_tool_calls": [callId] }]);
        const pausedSpan = pausedRun?.spanContext();
        expect(paused.traceparent).toBe(`00-${pausedSpan?.traceId}-${pausedSpan?.spanId}-01`);
        exporter.reset();

        const second = await runQuery(server, anthropic, "", {
          cwd: dir,
          tracer,
          sessionStore: store,
          resume: paused.session_id,
          approvals: { [callId]: { behavior: "allow" } },
        });
        expect(resultOf(second)).toMatchObject({ result: "Saved." });
        const [resumed] = named(await finished(), "invoke_agent gyre") as (ReadableSpan & {
          links: { context: { traceId: string; spanId: string }; attributes?: Record<string, unknown> }[];
        })[];
        expect(resumed?.links).toEqual([
          {
            context: expect.objectContaining({ traceId: pausedSpan?.traceId, spanId: pausedSpan?.spanId }),
            attributes: { "gyre.link.kind": "resumes" },
            droppedAttributesCount: 0,
          },
        ]);
      });
    } finally {
      await store.close();
    }
  });

  it("a handoff is the new agent's invoke_agent span under the run's, linked to the transfer call", async () => {
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [mockTurn.toolUse("transfer_to_billing", {}, { id: "call_transfer" })] },
        { system: "You are billing.", turns: [mockTurn.text("(unused)"), mockTurn.text("Refunded.")] },
      ],
    };
    const agent = (name: string, extra: Record<string, unknown> = {}) => ({
      description: `The ${name} agent.`,
      prompt: `You are ${name}.`,
      ...extra,
    });
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "I was charged twice", {
        cwd: dir,
        tracer,
        agent: "triage",
        agents: { triage: agent("triage", { handoffs: ["billing"] }), billing: agent("billing") },
      });
      expect(resultOf(messages)).toMatchObject({ result: "Refunded." });
      const spans = (await finished()) as (ReadableSpan & { links: { context: { spanId: string } }[] })[];
      expect(tree(spans)).toEqual([
        "invoke_agent triage",
        "  chat claude-sonnet-4-5",
        "  execute_tool transfer_to_billing",
        "  invoke_agent billing",
        "    chat claude-sonnet-4-5",
      ]);
      const [billing] = named(spans, "invoke_agent billing") as typeof spans;
      const [transferCall] = named(spans, "execute_tool transfer_to_billing");
      expect(billing?.attributes).toMatchObject({ "gyre.handoff.from": "triage", "gyre.handoff.to": "billing" });
      expect(billing?.links.map((link) => link.context.spanId)).toEqual([transferCall?.spanContext().spanId]);
    });
  });

  it("a background agent is a child of the run's span, linked to the Agent call that started it", async () => {
    const script = {
      turns: [
        mockTurn.toolUse(
          "Agent",
          { description: "ask worker", prompt: "work", subagent_type: "worker", run_in_background: true },
          { id: "call_bg" },
        ),
        mockTurn.toolUse("AgentOutput", { task_id: "call_bg" }),
        mockTurn.text("All done."),
      ],
      routes: [{ system: "You are worker.", turns: [mockTurn.text("worker done")] }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        cwd: dir,
        tracer,
        agents: { worker: { description: "The worker agent.", prompt: "You are worker." } },
      });
      expect(resultOf(messages)).toMatchObject({ result: "All done." });
      const spans = (await finished()) as (ReadableSpan & {
        links: { context: { spanId: string }; attributes?: Record<string, unknown> }[];
      })[];
      const [root] = named(spans, "invoke_agent gyre");
      const [worker] = named(spans, "invoke_agent worker") as typeof spans;
      const [agentCall] = named(spans, "execute_tool Agent");
      expect(worker && parentOf(worker, spans)).toBe(root);
      expect(worker?.links.map((link) => [link.context.spanId, link.attributes])).toEqual([
        [agentCall?.spanContext().spanId, { "gyre.link.kind": "started_by" }],
      ]);
    });
  });

  it.runIf(process.platform === "linux")("a sandbox violation is an event on the Bash call's span", async () => {
    const outside = mkdtempSync("/var/tmp/gyre-telemetry-out-");
    const script = {
      turns: [mockTurn.toolUse("Bash", { command: `echo out > ${outside}/escape.txt; echo end` }), mockTurn.text("ok")],
    };
    try {
      await withMock(script, async (server) => {
        await runQuery(server, anthropic, "go", {
          cwd: dir,
          tracer,
          permissionMode: "bypassPermissions",
          sandbox: { enabled: true },
        });
        const [bash] = named(await finished(), "execute_tool Bash");
        const [violation] = events(bash, "gyre.sandbox.violation");
        expect(JSON.parse(String((violation?.["gyre.sandbox.violations"] as string[])[0]))).toMatchObject({
          kind: "write",
          target: `${outside}/escape.txt`,
        });
      });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("GenAI metrics", () => {
  interface DataPoint {
    attributes: Record<string, unknown>;
    value: number | { count: number; sum: number };
  }
  interface Collected {
    resourceMetrics: {
      scopeMetrics: { metrics: { descriptor: { name: string; unit: string }; dataPoints: DataPoint[] }[] }[];
    };
  }
  const metricsSdk = compatRequire("otel-sdk", "@opentelemetry/sdk-metrics") as {
    MeterProvider: new (options: { readers: unknown[] }) => {
      getMeter(name: string): import("@opentelemetry/api").Meter;
      shutdown(): Promise<void>;
    };
    MetricReader: abstract new () => { collect(): Promise<Collected> };
  };
  class TestReader extends metricsSdk.MetricReader {
    protected onForceFlush(): Promise<void> {
      return Promise.resolve();
    }
    protected onShutdown(): Promise<void> {
      return Promise.resolve();
    }
  }

  it("token usage and duration per request, and the run's cost by model, from the meter given", async () => {
    const reader = new TestReader();
    const meterProvider = new metricsSdk.MeterProvider({ readers: [reader] });
    const script = {
      turns: [
        mockTurn.toolUse(
          "Read",
          { file_path: join(dir, "a.txt") },
          { usage: { input_tokens: 1200, output_tokens: 40 }, faults: [mockFault.overloaded()] },
        ),
        mockTurn.text("done", { usage: { input_tokens: 1500, output_tokens: 7 } }),
      ],
    };
    try {
      await withMock(script, async (server) => {
        const messages = await runQuery(server, anthropic, "read a", {
          cwd: dir,
          meter: meterProvider.getMeter("metrics-test"),
        });
        const result = resultOf(messages);
        if (result?.type !== "result") throw new Error("no result");
        const { resourceMetrics } = await reader.collect();
        const all = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
        const metric = (name: string) => all.find((m) => m.descriptor.name === name);

        const duration = metric("gen_ai.client.operation.duration");
        expect(duration?.descriptor.unit).toBe("s");
        const failed = duration?.dataPoints.filter((point) => point.attributes["error.type"] !== undefined) ?? [];
        const answered = duration?.dataPoints.filter((point) => point.attributes["error.type"] === undefined) ?? [];
        expect(failed.map((point) => (point.value as { count: number }).count)).toEqual([1]);
        expect(answered).toHaveLength(1);
        expect(answered[0]?.attributes).toEqual({
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "anthropic",
          "gen_ai.request.model": "claude-sonnet-4-5",
          "gen_ai.response.model": "claude-sonnet-4-5",
        });
        expect((answered[0]?.value as { count: number }).count).toBe(2);

        const tokens = metric("gen_ai.client.token.usage");
        expect(tokens?.descriptor.unit).toBe("{token}");
        const byType = (type: string) =>
          tokens?.dataPoints.find((point) => point.attributes["gen_ai.token.type"] === type)?.value;
        expect(byType("input")).toMatchObject({ count: 2, sum: 2700 });
        expect(byType("output")).toMatchObject({ count: 2, sum: 47 });

        const cost = metric("gyre.client.cost");
        expect(cost?.descriptor.unit).toBe("USD");
        expect(cost?.dataPoints).toEqual([
          {
            attributes: { "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5" },
            value: result.total_cost_usd,
            startTime: expect.anything(),
            endTime: expect.anything(),
          },
        ]);
        expect(result.total_cost_usd).toBeGreaterThan(0);
      });
    } finally {
      await meterProvider.shutdown();
    }
  });
});
