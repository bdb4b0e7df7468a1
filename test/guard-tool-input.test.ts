import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, query, type SDKMessage } from "../src/index.js";
import { openSqliteSessionStore, type SessionStore } from "../src/sessions/index.js";
import { type MockLLMServer, type MockScript, mockTurn } from "../src/testing/index.js";
import { type Format, FORMATS, mockEnv, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { compileAllForChild } from "./sessions-child.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-tool-input-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A tool that records each input it ran with. */
function noteTool() {
  const runs: string[] = [];
  const tool = defineTool({
    name: "note",
    description: "Write a note down.",
    inputSchema: z.object({ text: z.string() }),
    sideEffect: "none",
    execute: ({ text }) => {
      runs.push(text);
      return `noted ${text.length} characters`;
    },
  });
  return { runs, tool };
}

/** The tool calls of each assistant turn of a request and the results that answer them, by wire format. */
function exchanges(format: Format, body: Record<string, unknown>): Array<{ calls: string[]; results: string[] }> {
  const out: Array<{ calls: string[]; results: string[] }> = [];
  if (format.name === "openai-responses") {
    // Responses pairs by call_id across the whole input: one exchange holds every item.
    const items = body.input as Array<Record<string, unknown>>;
    const of = (type: string) => items.filter((item) => item.type === type).map((item) => String(item.call_id));
    return [{ calls: of("function_call"), results: of("function_call_output") }];
  }
  const messages = body.messages as Array<Record<string, unknown>>;
  for (const message of messages) {
    if (message.role === "assistant") {
      const calls =
        format.name === "anthropic"
          ? blocks(message.content).flatMap((b) => (b.type === "tool_use" ? [String(b.id)] : []))
          : ((message.tool_calls as Array<{ id: string }> | undefined) ?? []).map((call) => call.id);
      out.push({ calls, results: [] });
    } else if (format.name === "anthropic" && message.role === "user") {
      const results = blocks(message.content).flatMap((b) => (b.type === "tool_result" ? [String(b.tool_use_id)] : []));
      out.at(-1)?.results.push(...results);
    } else if (message.role === "tool") {
      out.at(-1)?.results.push(String(message.tool_call_id));
    }
  }
  return out;
}

function blocks(content: unknown): Array<Record<string, unknown>> {
  return Array.isArray(content) ? (content as Array<Record<string, unknown>>) : [];
}

/** Every call id is unique in the request, and each call is answered by exactly one result after it. */
function expectValidPairing(format: Format, body: Record<string, unknown>): string[] {
  const all = exchanges(format, body);
  const calls = all.flatMap((exchange) => exchange.calls);
  expect(new Set(calls).size, `call ids ${calls.join(", ")}`).toBe(calls.length);
  for (const exchange of all) expect([...exchange.results].sort()).toEqual([...exchange.calls].sort());
  return calls;
}

function assistantCalls(messages: SDKMessage[]) {
  return messages.flatMap((m) =>
    m.type === "assistant" ? m.message.content.filter((b) => b.type === "tool_use") : [],
  );
}

describe.each(FORMATS)("tool input size over $name", (format) => {
  it("refuses a call over maxToolInputBytes with an is_error result, runs the rest and goes on", async () => {
    const { runs, tool } = noteTool();
    const content = "y".repeat(100 * 1024);
    const target = join(dir, "big.txt");
    const script: MockScript = {
      turns: [
        mockTurn.of([
          { type: "tool_use", name: "Write", input: { file_path: target, content }, chunkSize: 1024 },
          { type: "tool_use", name: "note", input: { text: "after" } },
        ]),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "write it", {
        tools: ["Write", tool],
        cwd: dir,
        permissionMode: "bypassPermissions",
        maxToolInputBytes: 64 * 1024,
        includePartialMessages: true,
      });
      const [refused, after] = toolResults(messages);
      expect(refused?.is_error).toBe(true);
      expect(String(refused?.content)).toMatch(/Write were 102\d\d\d bytes, over the limit of 65536 bytes/);
      expect(after?.is_error).toBeUndefined();
      expect(runs).toEqual(["after"]);
      expect(existsSync(target)).toBe(false);
      expect(resultOf(messages).subtype).toBe("success");
      // The history keeps the call without its text, and callers were not streamed past the limit.
      expect(assistantCalls(messages)[0]?.input).toEqual({});
      const streamed = messages
        .flatMap((m) => (m.type === "stream_event" ? [m.event] : []))
        .flatMap((event) => {
          const { index, delta } = event as { index?: number; delta?: { partial_json?: string } };
          return index === 0 && delta?.partial_json !== undefined ? [delta.partial_json] : [];
        });
      expect(streamed.join("").length).toBeLessThanOrEqual(64 * 1024);
      const next = server.requests[1]!.body;
      expect(expectValidPairing(format, next)).toHaveLength(2);
      expect(JSON.stringify(next).length).toBeLessThan(64 * 1024);
    });
  });

  it("counts the limit in UTF-8 bytes, inclusive", async () => {
    const text = "é".repeat(1000);
    const bytes = Buffer.byteLength(JSON.stringify({ text }));
    for (const [limit, runsExpected] of [
      [bytes, 1],
      [bytes - 1, 0],
    ] as const) {
      const { runs, tool } = noteTool();
      const script = { turns: [mockTurn.toolUse("note", { text }), mockTurn.text("done")] };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, format, "note", { tools: [tool], maxToolInputBytes: limit });
        expect(runs).toHaveLength(runsExpected);
        expect(toolResults(messages)[0]?.is_error === true).toBe(runsExpected === 0);
      });
    }
  });
});

describe("tool input size at the default limit", () => {
  it("refuses a call one byte over 64 MiB without parsing it, and the run goes on", async () => {
    const { runs, tool } = noteTool();
    const prefix = '{"text":"';
    const input = `${prefix}${"z".repeat(64 * 1024 * 1024 + 1 - prefix.length - 2)}"}`;
    expect(Buffer.byteLength(input)).toBe(64 * 1024 * 1024 + 1);
    const model = scriptedModel([
      [{ type: "tool-call", toolCallId: "call_big", toolName: "note", input }],
      [
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "done" },
        { type: "text-end", id: "t" },
      ],
    ]);
    const messages: SDKMessage[] = [];
    for await (const message of query({ prompt: "go", options: { model, tools: [tool], persistSession: false } }))
      messages.push(message);
    expect(runs).toEqual([]);
    expect(String(toolResults(messages)[0]?.content)).toMatch(/67108865 bytes, over the limit of 67108864 bytes/);
    expect(resultOf(messages).result).toBe("done");
  });
});

/** An in-process AI SDK model that streams the given parts, one list per call. */
function scriptedModel(turns: LanguageModelV3StreamPart[][]): LanguageModelV3 {
  let call = 0;
  return {
    specificationVersion: "v3",
    provider: "scripted",
    modelId: "scripted",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    async doStream() {
      const parts = turns[call++] ?? [];
      const hasCall = parts.some((part) => part.type === "tool-call");
      const usage = {
        inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      };
      const all: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        ...parts,
        {
          type: "finish",
          usage,
          finishReason: hasCall ? { unified: "tool-calls", raw: "tool_use" } : { unified: "stop", raw: "end_turn" },
        },
      ];
      return { stream: new ReadableStream({ start: (c) => (all.forEach((p) => c.enqueue(p)), c.close()) }) };
    },
  };
}

describe.each(FORMATS)("repeated tool_use ids over $name", (format) => {
  it("runs one call per id, answers the repeat under a new id, and the next request pairs every call", async () => {
    const { runs, tool } = noteTool();
    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", id: "call_same", name: "note", input: { text: "first" } },
          { type: "tool_use", id: "call_same", name: "note", input: { text: "second" } },
        ]),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "note twice", { tools: [tool] });
      const calls = assistantCalls(messages);
      const results = toolResults(messages);
      expect(new Set(calls.map((c) => c.id)).size).toBe(2);
      expect(results.map((r) => r.tool_use_id)).toEqual(calls.map((c) => c.id));
      if (format.name === "openai-chat") {
        // @ai-sdk/openai already gives a repeated id in one Chat stream a new one: both are distinct calls.
        expect(runs).toEqual(["first", "second"]);
      } else {
        expect(runs).toEqual(["first"]);
        expect(calls.map((c) => c.id)).toEqual(["call_same", "call_same_2"]);
        expect(results[1]?.is_error).toBe(true);
        expect(String(results[1]?.content)).toMatch(/id call_same repeated the id of an earlier call/);
      }
      expect(expectValidPairing(format, server.requests[1]!.body)).toHaveLength(2);
      expect(resultOf(messages).subtype).toBe("success");
    });
  });

  it("runs a call whose id an earlier turn used, under a new id", async () => {
    const { runs, tool } = noteTool();
    const script = {
      turns: [
        mockTurn.toolUse("note", { text: "one" }, { id: "call_0" }),
        mockTurn.toolUse("note", { text: "two" }, { id: "call_0" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "note", { tools: [tool] });
      expect(runs).toEqual(["one", "two"]);
      expect(assistantCalls(messages).map((c) => c.id)).toEqual(["call_0", "call_0_2"]);
      expect(expectValidPairing(format, server.requests[2]!.body)).toEqual(["call_0", "call_0_2"]);
    });
  });

  describe("persisted and resumed", () => {
    let store: SessionStore;
    beforeEach(() => {
      store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
    });
    afterEach(() => store.close());

    it("resumes a session with a repeated id into a valid history", async () => {
      const { tool } = noteTool();
      const script = {
        turns: [
          mockTurn.of([
            { type: "tool_use", id: "call_same", name: "note", input: { text: "first" } },
            { type: "tool_use", id: "call_same", name: "note", input: { text: "second" } },
          ]),
          mockTurn.text("done"),
          mockTurn.text("again"),
        ],
      };
      await withMock(script, async (server) => {
        const first = await runQuery(server, format, "note twice", { tools: [tool], sessionStore: store, cwd: dir });
        const resumed = await runQuery(server, format, "once more", {
          tools: [tool],
          sessionStore: store,
          cwd: dir,
          resume: first[0]!.session_id,
        });
        expect(resultOf(resumed).result).toBe("again");
        expect(expectValidPairing(format, server.requests.at(-1)!.body)).toHaveLength(2);
      });
    });

    it("repairs a session stored with a repeated id before ids were checked", async () => {
      const { tool } = noteTool();
      const sessionId = await storeLegacySession(store, dir);
      await withMock({ turns: [mockTurn.text("again")], mode: "sequential" }, async (server) => {
        const resumed = await runQuery(server, format, "once more", {
          tools: [tool],
          sessionStore: store,
          cwd: dir,
          resume: sessionId,
        });
        expect(resultOf(resumed).result).toBe("again");
        expect(expectValidPairing(format, server.requests[0]!.body)).toEqual(["toolu_same", "toolu_same_2"]);
      });
    });
  });
});

/** A session as a run before this fix stored it: two calls and two results under one id. */
async function storeLegacySession(store: SessionStore, cwd: string): Promise<string> {
  const { id } = await store.createSession({ id: "legacy-session", cwd });
  const common = { session_id: id, parent_tool_use_id: null };
  const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const assistant = (uuid: string, content: unknown[]) =>
    ({
      ...common,
      type: "assistant",
      uuid,
      message: {
        id: uuid,
        type: "message",
        role: "assistant",
        model: "m",
        content,
        stop_reason: "tool_use",
        stop_sequence: null,
        usage,
      },
    }) as SDKMessage;
  const user = (uuid: string, content: unknown) =>
    ({ ...common, type: "user", uuid, message: { role: "user", content } }) as SDKMessage;
  const call = (text: string) => ({ type: "tool_use", id: "toolu_same", name: "note", input: { text } });
  const result = (text: string) => ({ type: "tool_result", tool_use_id: "toolu_same", content: text });
  for (const message of [
    user("00000000-0000-4000-8000-000000000001", "note twice"),
    assistant("00000000-0000-4000-8000-000000000002", [call("first"), call("second")]),
    user("00000000-0000-4000-8000-000000000003", [result("noted 5 characters"), result("noted 6 characters")]),
    assistant("00000000-0000-4000-8000-000000000004", [{ type: "text", text: "done" }]),
  ])
    await store.append(id, message);
  return id;
}

describe("a Bash command longer than one exec argument", () => {
  it("runs through the loop instead of failing with E2BIG", async () => {
    const length = 300 * 1024;
    const command = `printf %s '${"x".repeat(length)}' | wc -c`;
    const script = { turns: [mockTurn.toolUse("Bash", { command, description: "count" }), mockTurn.text("done")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, FORMATS[0], "count", {
        tools: ["Bash"],
        cwd: dir,
        permissionMode: "bypassPermissions",
      });
      const [result] = toolResults(messages);
      expect(result?.is_error).toBeUndefined();
      expect(String(result?.content).trim()).toBe(String(length));
    });
  });
});

/**
 * Peak memory of a whole run, measured in a child process (the mock server stays in this
 * one): a warm-up run gives the baseline, then the big run; the child prints both.
 */
const MEMORY_CHILD = `
  const { query } = await import(process.env.ENTRY);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: process.env.BASE_URL, OPENAI_API_KEY: "k", OPENAI_BASE_URL: process.env.BASE_URL };
  const run = async (prompt) => {
    const results = [];
    const q = query({ prompt, options: { model: process.env.MODEL, env, tools: ["Write", "Bash"], cwd: process.env.CWD,
      permissionMode: "bypassPermissions", persistSession: false, settingSources: [], compaction: false } });
    for await (const m of q) {
      if (m.type === "user" && Array.isArray(m.message.content))
        for (const b of m.message.content) if (b.type === "tool_result") results.push({ isError: b.is_error === true, content: String(b.content).slice(0, 200) });
    }
    return results;
  };
  await run("warm up");
  const baseline = process.resourceUsage().maxRSS * 1024;
  const results = await run("go");
  console.log(JSON.stringify({ baseline, peak: process.resourceUsage().maxRSS * 1024, results }));
`;

function runMemoryChild(entry: string, server: MockLLMServer, model: string, cwd: string) {
  return new Promise<{ baseline: number; peak: number; results: Array<{ isError: boolean; content: string }> }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", MEMORY_CHILD], {
        env: { ...process.env, ENTRY: entry, BASE_URL: mockEnv(server).ANTHROPIC_BASE_URL, MODEL: model, CWD: cwd },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.once("exit", (code) => {
        if (code !== 0) return reject(new Error(`child exited ${code}: ${stderr}`));
        resolve(JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}"));
      });
    },
  );
}

/**
 * Text with quotes, backslashes, tabs, newlines and two-byte UTF-8 characters, all of which
 * JSON must carry exactly. Latin-1 only: one character past U+00FF makes V8 store the whole
 * string two bytes per character, which doubles every copy (a Responses run then peaks near 30x).
 */
function awkwardText(bytes: number): string {
  const line = 'line "quoted" \\ back\tslash é ü ß © ± {"json": [1, 2]}\n';
  return line.repeat(Math.ceil(bytes / Buffer.byteLength(line)));
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

describe("memory of a run with a 10-20 MB tool argument", () => {
  let entry: string;
  let cleanup: () => void;
  beforeAll(() => {
    ({ entry, cleanup } = compileAllForChild());
  });
  afterAll(() => cleanup());

  it.each(FORMATS)(
    "a 20 MB Write over $name writes the exact file, at a peak under 20x the input",
    async (format) => {
      const content = awkwardText(20 * 1024 * 1024);
      const target = join(dir, "big.txt");
      const script: MockScript = {
        mode: "sequential",
        turns: [
          mockTurn.text("ready"),
          mockTurn.of([{ type: "tool_use", name: "Write", input: { file_path: target, content }, chunkSize: 1024 }]),
          mockTurn.text("done"),
        ],
      };
      await withMock(script, async (server) => {
        const { baseline, peak, results } = await runMemoryChild(entry, server, format.model, dir);
        expect(results).toEqual([{ isError: false, content: expect.stringMatching(/created/) }]);
        expect(sha256(readFileSync(target))).toBe(sha256(content));
        const input = Buffer.byteLength(content);
        expect(peak - baseline, `peak ${peak >> 20} MiB, baseline ${baseline >> 20} MiB`).toBeLessThan(20 * input);
      });
      // 20 MB streamed in 1 KB deltas through a child process and written back: ~5 s quiet, over
      // 13 s while the suite loads the machine.
    },
    90_000,
  );

  it("a 10 MB Bash command runs (E2BIG before) at a peak under 20x the input", async () => {
    const length = 10 * 1024 * 1024;
    const command = `printf %s '${"x".repeat(length)}' | wc -c`;
    const script: MockScript = {
      mode: "sequential",
      turns: [
        mockTurn.text("ready"),
        mockTurn.of([{ type: "tool_use", name: "Bash", input: { command, description: "count" }, chunkSize: 4096 }]),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const { baseline, peak, results } = await runMemoryChild(entry, server, FORMATS[0].model, dir);
      expect(results).toEqual([{ isError: false, content: expect.stringContaining(String(length)) }]);
      expect(peak - baseline, `peak ${peak >> 20} MiB, baseline ${baseline >> 20} MiB`).toBeLessThan(20 * length);
    });
  });
});
