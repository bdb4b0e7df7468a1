// Bad input and faults with a real SQLite session: for each one, the loop survives, every
// message it yielded is stored, every tool call in the stored session has its result, and
// resuming sends the provider a history whose calls and results pair up.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type SDKMessage } from "../src/index.js";
import { openSqliteSessionStore, type SessionStore } from "../src/sessions/index.js";
import { type MockTurn, mockFault, mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, type Format, resultOf, runQuery, withMock } from "./helpers.js";

let dir: string;
let store: SessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-faults-"));
  store = openSqliteSessionStore({ path: join(dir, ".gyre", "sessions.db") });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const huge = defineTool({
  name: "huge",
  description: "Prints a lot.",
  inputSchema: z.object({}),
  readOnly: true,
  execute: () => "x".repeat(3_000_000),
});

const explode = defineTool({
  name: "explode",
  description: "Always fails.",
  inputSchema: z.object({}),
  readOnly: true,
  execute: () => {
    throw new Error("the tool blew up");
  },
});

/** A tool that runs until the run is aborted, and aborts the run itself once it is running. */
function slowTool(controller: AbortController) {
  return defineTool({
    name: "slow",
    description: "Takes forever.",
    inputSchema: z.object({}),
    readOnly: true,
    execute: (_input, context) =>
      new Promise<string>((resolve) => {
        context.signal.addEventListener("abort", () => resolve("stopped late"), { once: true });
        queueMicrotask(() => controller.abort());
      }),
  });
}

interface Scenario {
  name: string;
  /** The first run's turns; the scenario adds the resumed run's answer after them. */
  turns: (dir: string) => MockTurn[];
  /** The first run's result subtype. */
  subtype: string;
  /** Checks on the first run's messages beyond the shared ones. */
  check?: (messages: SDKMessage[], dir: string) => void;
  /** The resumed run's answer, when the first run ended before its last scripted turn. */
  resumedAnswer?: string;
  abort?: boolean;
}

const scenarios: Scenario[] = [
  {
    name: "tool arguments that are not JSON",
    turns: () => [
      mockTurn.of([{ type: "tool_use", name: "calculator", rawInput: '{"a": 6, "b": ' }]),
      mockTurn.text("I will send valid JSON next time."),
    ],
    subtype: "success",
    check: (messages) => expect(toolResults(messages)[0]).toMatchObject({ is_error: true }),
  },
  {
    name: "input that fails the schema",
    turns: () => [mockTurn.toolUse("calculator", { a: "six", b: 7, op: "*" }), mockTurn.text("Noted.")],
    subtype: "success",
    check: (messages) => expect(toolResults(messages)[0]).toMatchObject({ is_error: true }),
  },
  {
    name: "an unknown tool",
    turns: () => [mockTurn.toolUse("teleport", { to: "mars" }), mockTurn.text("No teleport then.")],
    subtype: "success",
    check: (messages) => expect(text(toolResults(messages)[0])).toMatch(/calculator/),
  },
  {
    name: "a huge tool output",
    turns: () => [mockTurn.toolUse("huge", {}), mockTurn.text("That was long.")],
    subtype: "success",
    check: (messages) => {
      const output = text(toolResults(messages)[0]);
      expect(output.length).toBeLessThan(100_000);
      expect(output).toMatch(/truncated/i);
    },
  },
  {
    name: "a binary file",
    turns: (dir) => [mockTurn.toolUse("Read", { file_path: join(dir, "blob.bin") }), mockTurn.text("Binary.")],
    subtype: "success",
    check: (messages) => expect(toolResults(messages)[0]).toMatchObject({ is_error: true }),
  },
  {
    name: "a write outside the workspace",
    turns: (dir) => [
      mockTurn.toolUse("Write", { file_path: join(dir, "..", `${dir.split("/").at(-1)}-outside.txt`), content: "x" }),
      mockTurn.text("Not allowed."),
    ],
    subtype: "success",
    check: (messages, dir) => {
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(existsSync(`${dir}-outside.txt`)).toBe(false);
      expect(resultOf(messages).permission_denials).toHaveLength(1);
    },
  },
  {
    name: "a tool that throws",
    turns: () => [mockTurn.toolUse("explode", {}), mockTurn.text("It failed.")],
    subtype: "success",
    check: (messages) => expect(text(toolResults(messages)[0])).toMatch(/the tool blew up/),
  },
  {
    name: "a cut stream",
    turns: () => [
      mockTurn.toolUse("calculator", { a: 6, b: 7, op: "*" }),
      mockTurn.text("It is 42.", { faults: [mockFault.cut(2)] }),
    ],
    subtype: "success",
    check: (messages) => expect(resultOf(messages).result).toBe("It is 42."),
  },
  {
    name: "a provider error that is not retried",
    turns: () => [
      mockTurn.toolUse("calculator", { a: 6, b: 7, op: "*" }),
      mockTurn.text("It is 42, after all.", { faults: [mockFault.http(400, "bad request")] }),
    ],
    subtype: "error_during_execution",
    resumedAnswer: "It is 42, after all.",
  },
  {
    name: "an abort while a tool runs",
    turns: () => [mockTurn.toolUse("slow", {}), mockTurn.text("never sent")],
    subtype: "error_during_execution",
    resumedAnswer: "never sent",
    abort: true,
    check: (messages) => {
      // The caller's own AbortSignal, not Query.interrupt(): `aborted` (issue 32, row 1).
      expect(resultOf(messages).terminal_reason).toBe("aborted");
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
    },
  },
];

describe.each(FORMATS)("faults with a persisted session over $name", (format) => {
  it.each(scenarios)("$name: the loop survives and the session is intact", async (scenario) => {
    writeFileSync(join(dir, "blob.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3, 0, 0xff]));
    const resumedAnswer = scenario.resumedAnswer ?? "Going on.";
    const turns = [...scenario.turns(dir)];
    if (scenario.resumedAnswer === undefined) turns.push(mockTurn.text(resumedAnswer));
    await withMock({ mode: "sequential", turns }, async (server) => {
      const controller = new AbortController();
      const tools = [calculator, huge, explode, slowTool(controller)];
      const first = await runQuery(server, format, "Work on it.", {
        tools: [...tools, "Read", "Write"],
        sessionStore: store,
        cwd: dir,
        abortController: controller,
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
      });
      expect(resultOf(first).subtype).toBe(scenario.subtype);
      scenario.check?.(first, dir);

      const sessionId = first[0]!.session_id;
      const stored = await store.getSessionMessages(sessionId);
      // Everything the caller saw is stored, in order (the prompt is stored, not yielded).
      expect(stored.filter((m) => !(m.type === "user" && m.uuid === stored[1]!.uuid))).toEqual(first);
      expect(unansweredCalls(stored)).toEqual([]);

      const requestsBefore = server.requests.length;
      const second = await runQuery(server, format, "Go on.", {
        tools: [...tools, "Read", "Write"],
        sessionStore: store,
        cwd: dir,
        resume: sessionId,
      });
      expect(resultOf(second)).toMatchObject({ subtype: "success", result: resumedAnswer });
      const resumed = server.requests[requestsBefore]?.body;
      const pairs = wireToolPairs(format, resumed);
      expect(pairs.unanswered).toEqual([]);
      expect(pairs.orphans).toEqual([]);
      for (const id of callIds(stored)) expect(pairs.calls).toContain(id);
    });
  });
});

interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  is_error?: boolean;
  content: unknown;
}

function toolResults(messages: SDKMessage[]): ToolResultBlock[] {
  return messages.flatMap((m) =>
    m.type === "user" && Array.isArray(m.message.content)
      ? (m.message.content as unknown as Array<{ type: string }>).filter(
          (b): b is ToolResultBlock => b.type === "tool_result",
        )
      : [],
  );
}

function text(block: { content: unknown } | undefined): string {
  const content = block?.content;
  if (typeof content === "string") return content;
  return JSON.stringify(content ?? "");
}

function callIds(messages: SDKMessage[]): string[] {
  return messages.flatMap((m) =>
    m.type === "assistant" ? m.message.content.flatMap((b) => (b.type === "tool_use" ? [b.id] : [])) : [],
  );
}

/** Tool calls in stored assistant messages with no tool_result stored after them. */
function unansweredCalls(messages: SDKMessage[]): string[] {
  const answered = new Set(toolResults(messages).map((r) => r.tool_use_id));
  return callIds(messages).filter((id) => !answered.has(id));
}

type Item = Record<string, unknown>;

/**
 * The tool calls in a request body as the provider reads them, and which calls have no
 * result after them (`unanswered`) or results no call before them (`orphans`).
 */
function wireToolPairs(format: Format, body: unknown): { calls: string[]; unanswered: string[]; orphans: string[] } {
  const events: Array<{ kind: "call" | "result"; id: string }> = [];
  const request = body as Item;
  if (format.name === "anthropic") {
    for (const message of request.messages as Item[]) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Item[]) {
        if (block.type === "tool_use") events.push({ kind: "call", id: String(block.id) });
        if (block.type === "tool_result") events.push({ kind: "result", id: String(block.tool_use_id) });
      }
    }
  } else if (format.name === "openai-responses") {
    for (const item of request.input as Item[]) {
      if (item.type === "function_call") events.push({ kind: "call", id: String(item.call_id) });
      if (item.type === "function_call_output") events.push({ kind: "result", id: String(item.call_id) });
    }
  } else {
    for (const message of request.messages as Item[]) {
      for (const call of (message.tool_calls as Item[] | undefined) ?? [])
        events.push({ kind: "call", id: String(call.id) });
      if (message.role === "tool") events.push({ kind: "result", id: String(message.tool_call_id) });
    }
  }
  const calls: string[] = [];
  const open = new Set<string>();
  const orphans: string[] = [];
  for (const event of events) {
    if (event.kind === "call") {
      calls.push(event.id);
      open.add(event.id);
    } else if (open.has(event.id)) open.delete(event.id);
    else orphans.push(event.id);
  }
  return { calls, unanswered: [...open], orphans };
}
