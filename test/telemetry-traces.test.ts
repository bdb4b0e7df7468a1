import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { context, trace } from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query, type SDKMessage } from "../src/index.js";
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

  it("content goes into spans only with the opt-in", async () => {
    const script = {
      turns: [mockTurn.toolUse("Read", { file_path: join(dir, "a.txt") }), mockTurn.text("it says alpha")],
    };
    await withMock(script, async (server) => {
      await runQuery(server, anthropic, "read a", { cwd: dir, tracer, traceContent: true });
      const spans = await finished();
      const [read] = named(spans, "execute_tool Read");
      expect(read?.attributes["gen_ai.tool.call.arguments"]).toContain("a.txt");
      expect(read?.attributes["gen_ai.tool.call.result"]).toContain("alpha");
      const chats = named(spans, "chat claude-sonnet-4-5");
      expect(chats[0]?.attributes["gen_ai.input.messages"]).toContain("read a");
      expect(chats[1]?.attributes["gen_ai.output.messages"]).toContain("it says alpha");
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
