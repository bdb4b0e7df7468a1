import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  isGyreError,
  type QueryOptions,
  type QueryPrompt,
  query,
  type SDKMessage,
  type SDKUserMessage,
  toolResultsPrompt,
} from "../src/index.js";
import { openSqliteSessionStore, type SessionStore } from "../src/sessions/index.js";
import { type MockLLMServer, type MockRequest, mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, type Format, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";

/** A client-executed tool: no `execute`, the caller answers its calls. */
const weather = defineTool({
  name: "get_weather",
  description: "The weather in a city (looked up by the caller).",
  inputSchema: z.object({ city: z.string() }),
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-pause-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A note-writing tool that asks permission (mutating) and writes a real file. */
function noteTool(path: string) {
  return defineTool({
    name: "write_note",
    description: "Write a note to the notes file.",
    inputSchema: z.object({ text: z.string() }),
    execute: ({ text }) => {
      writeFileSync(path, text);
      return `wrote ${text.length} characters`;
    },
  });
}

/** A run to its end, stored in `store` (so it can pause and be resumed). */
function run(
  server: MockLLMServer,
  format: Format,
  store: SessionStore,
  prompt: QueryPrompt,
  options: QueryOptions,
): Promise<SDKMessage[]> {
  return runQuery(server, format, prompt, { sessionStore: store, cwd: dir, ...options });
}

/** The tool outputs a request sent back to the model, as `[call id, output text]`, in each wire format. */
function toolOutputs(request: MockRequest | undefined): Array<[string, string]> {
  const body = request?.body as Record<string, unknown>;
  const text = (value: unknown) =>
    typeof value === "string" ? value : (value as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
  if (request?.format === "anthropic") {
    const messages = body.messages as Array<{ content: unknown }>;
    return messages.flatMap((message) =>
      Array.isArray(message.content)
        ? message.content
            .filter((block: { type: string }) => block.type === "tool_result")
            .map((block: { tool_use_id: string; content: unknown }) => [block.tool_use_id, text(block.content)])
        : [],
    ) as Array<[string, string]>;
  }
  if (request?.format === "openai-responses") {
    const input = body.input as Array<{ type?: string; call_id?: string; output?: unknown }>;
    return input
      .filter((item) => item.type === "function_call_output")
      .map((item) => [String(item.call_id), text(item.output)]);
  }
  const messages = body.messages as Array<{ role: string; tool_call_id?: string; content?: unknown }>;
  return messages.filter((m) => m.role === "tool").map((m) => [String(m.tool_call_id), text(m.content)]);
}

function storeAt(name: string): SessionStore {
  return openSqliteSessionStore({ path: join(dir, `${name}.db`) });
}

describe.each(FORMATS)("pause and resume ($name)", (format) => {
  it("pauses on a client-executed tool and resumes with the caller's result", async () => {
    const script = {
      turns: [mockTurn.toolUse("get_weather", { city: "Paris" }), mockTurn.text("It is sunny in Paris.")],
    };
    await withMock(script, async (server) => {
      const store = storeAt(`client-${format.name}`);
      try {
        const first = await run(server, format, store, "Weather in Paris?", { tools: [weather] });
        const paused = resultOf(first);
        expect(paused).toMatchObject({ subtype: "success", is_error: false, terminal_reason: "requires_action" });
        expect(paused.pending_tool_calls).toHaveLength(1);
        const call = paused.pending_tool_calls![0]!;
        expect(call).toMatchObject({ kind: "client_tool", name: "get_weather", input: { city: "Paris" } });
        expect(server.requests).toHaveLength(1);

        const second = await run(
          server,
          format,
          store,
          toolResultsPrompt([{ toolUseId: call.id, content: "sunny, 21 C" }]),
          { tools: [weather], resume: paused.session_id },
        );
        expect(resultOf(second)).toMatchObject({ terminal_reason: "completed", result: "It is sunny in Paris." });
        expect(second[0]).toMatchObject({ type: "system", subtype: "init" });
        expect(toolOutputs(server.requests[1])).toEqual([[expect.any(String), "sunny, 21 C"]]);
      } finally {
        await store.close();
      }
    });
  });

  it("runs the local tools of a mixed turn first and pauses for the client tool", async () => {
    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", name: "calculator", input: { a: 2, b: 3, op: "+" } },
          { type: "tool_use", name: "get_weather", input: { city: "Oslo" } },
        ]),
        mockTurn.text("5, and snow in Oslo."),
      ],
    };
    await withMock(script, async (server) => {
      const store = storeAt(`mixed-${format.name}`);
      try {
        const first = await run(server, format, store, "2+3 and Oslo weather", { tools: [calculator, weather] });
        const paused = resultOf(first);
        expect(paused.pending_tool_calls?.map((c) => c.name)).toEqual(["get_weather"]);
        const results = first.flatMap((m) =>
          m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [],
        );
        expect(results).toMatchObject([{ type: "tool_result", content: "5" }]);

        const callId = paused.pending_tool_calls![0]!.id;
        const second = await run(server, format, store, toolResultsPrompt([{ toolUseId: callId, content: "snow" }]), {
          tools: [calculator, weather],
          resume: paused.session_id,
        });
        expect(resultOf(second).result).toBe("5, and snow in Oslo.");
        // Both results go back in call order, in the turn of the answer that made the calls.
        expect(toolOutputs(server.requests[1]).map(([, output]) => output)).toEqual(["5", "snow"]);
      } finally {
        await store.close();
      }
    });
  });

  it("pauses on a deferred approval and runs the call once it is approved", async () => {
    const notes = join(dir, `notes-${format.name}.txt`);
    const script = { turns: [mockTurn.toolUse("write_note", { text: "hello" }), mockTurn.text("Saved.")] };
    await withMock(script, async (server) => {
      const store = storeAt(`approve-${format.name}`);
      const tools = [noteTool(notes)];
      try {
        const first = await run(server, format, store, "save hello", {
          tools,
          canUseTool: async () => ({ behavior: "defer", message: "a reviewer must approve notes" }),
        });
        const paused = resultOf(first);
        expect(paused.terminal_reason).toBe("requires_action");
        expect(paused.pending_tool_calls).toMatchObject([
          { kind: "approval", name: "write_note", input: { text: "hello" }, reason: "a reviewer must approve notes" },
        ]);
        expect(existsSync(notes)).toBe(false);

        const id = paused.pending_tool_calls![0]!.id;
        const second = await run(server, format, store, "", {
          tools,
          resume: paused.session_id,
          approvals: { [id]: { behavior: "allow" } },
        });
        expect(resultOf(second)).toMatchObject({ terminal_reason: "completed", result: "Saved." });
        expect(readFileSync(notes, "utf8")).toBe("hello");
        expect(toolOutputs(server.requests[1])).toEqual([[expect.any(String), "wrote 5 characters"]]);
      } finally {
        await store.close();
      }
    });
  });

  it("pauses when a PreToolUse hook defers, and runs the call once approved", async () => {
    const notes = join(dir, `hook-${format.name}.txt`);
    const script = { turns: [mockTurn.toolUse("write_note", { text: "from hook" }), mockTurn.text("Done.")] };
    await withMock(script, async (server) => {
      const store = storeAt(`hook-${format.name}`);
      const tools = [noteTool(notes)];
      const hooks = {
        PreToolUse: [
          {
            hooks: [
              async () => ({
                hookSpecificOutput: {
                  hookEventName: "PreToolUse" as const,
                  permissionDecision: "defer" as const,
                  permissionDecisionReason: "compliance review",
                },
              }),
            ],
          },
        ],
      };
      try {
        const paused = resultOf(
          await run(server, format, store, "note it", { tools, hooks, allowedTools: ["write_note"] }),
        );
        expect(paused.pending_tool_calls).toMatchObject([
          { kind: "approval", name: "write_note", reason: "compliance review" },
        ]);
        expect(existsSync(notes)).toBe(false);
        const id = paused.pending_tool_calls![0]!.id;
        const done = await run(server, format, store, "", {
          tools,
          hooks,
          resume: paused.session_id,
          approvals: { [id]: { behavior: "allow" } },
        });
        expect(resultOf(done).result).toBe("Done.");
        expect(readFileSync(notes, "utf8")).toBe("from hook");
      } finally {
        await store.close();
      }
    });
  });

  it("refuses a deferred call that is denied, and the run goes on", async () => {
    const notes = join(dir, `denied-${format.name}.txt`);
    const script = { turns: [mockTurn.toolUse("write_note", { text: "nope" }), mockTurn.text("Understood.")] };
    await withMock(script, async (server) => {
      const store = storeAt(`deny-${format.name}`);
      const tools = [noteTool(notes)];
      try {
        const first = await run(server, format, store, "save nope", {
          tools,
          canUseTool: async () => ({ behavior: "defer" }),
        });
        const paused = resultOf(first);
        const id = paused.pending_tool_calls![0]!.id;
        const second = await run(server, format, store, "", {
          tools,
          resume: paused.session_id,
          approvals: { [id]: { behavior: "deny", message: "Notes are frozen today." } },
        });
        const result = resultOf(second);
        expect(result).toMatchObject({ terminal_reason: "completed", result: "Understood." });
        expect(result.permission_denials).toMatchObject([{ tool_name: "write_note", tool_use_id: id }]);
        expect(existsSync(notes)).toBe(false);
        expect(toolOutputs(server.requests[1])).toEqual([[id, expect.stringContaining("Notes are frozen today.")]]);
      } finally {
        await store.close();
      }
    });
  });
});

describe("resuming a paused run with the wrong answers", () => {
  it("is a resume_mismatch error that changes nothing, and a right answer still works after it", async () => {
    const script = {
      turns: [mockTurn.toolUse("get_weather", { city: "Rome" }, { id: "toolu_rome" }), mockTurn.text("Warm.")],
    };
    const format = FORMATS[0];
    await withMock(script, async (server) => {
      const store = storeAt("mismatch");
      try {
        const paused = resultOf(await run(server, format, store, "Rome?", { tools: [weather] }));
        const sessionId = paused.session_id;
        const before = await store.getSessionMessages(sessionId);

        const attempts: Array<[string | AsyncIterable<SDKUserMessage>, QueryOptions, RegExp]> = [
          ["what now?", {}, /no tool_result for get_weather \(toolu_rome\)/],
          [toolResultsPrompt([{ toolUseId: "toolu_other", content: "x" }]), {}, /toolu_other, which is not a pending/],
          [
            toolResultsPrompt([{ toolUseId: "toolu_rome", content: "x" }]),
            { approvals: { toolu_rome: { behavior: "allow" } } },
            /an approval for toolu_rome, which waits on a tool_result/,
          ],
        ];
        for (const [prompt, options, message] of attempts) {
          const failure = await run(server, format, store, prompt, {
            tools: [weather],
            resume: sessionId,
            ...options,
          }).catch((error: unknown) => error);
          expect(isGyreError(failure, "resume_mismatch"), String(failure)).toBe(true);
          expect((failure as Error).message).toMatch(message);
          expect(await store.getSessionMessages(sessionId)).toEqual(before);
        }
        expect(server.requests).toHaveLength(1);

        const done = await run(
          server,
          format,
          store,
          toolResultsPrompt([{ toolUseId: "toolu_rome", content: "28 C" }]),
          {
            tools: [weather],
            resume: sessionId,
          },
        );
        expect(resultOf(done).result).toBe("Warm.");
      } finally {
        await store.close();
      }
    });
  });
});

describe("pause with streaming input", () => {
  it("takes the next streamed message as the answer and goes on in the same query", async () => {
    const script = {
      turns: [mockTurn.toolUse("get_weather", { city: "Lima" }, { id: "toolu_lima" }), mockTurn.text("Mild.")],
    };
    await withMock(script, async (server) => {
      const store = storeAt("streaming");
      let answered: (() => void) | undefined;
      const paused = new Promise<void>((resolve) => {
        answered = resolve;
      });
      async function* prompts(): AsyncGenerator<SDKUserMessage> {
        yield {
          type: "user",
          message: { role: "user", content: "Lima?" },
          parent_tool_use_id: null,
          session_id: "",
          uuid: "u1",
        };
        await paused;
        yield* toolResultsPrompt([{ toolUseId: "toolu_lima", content: "19 C" }]);
      }
      try {
        const messages: SDKMessage[] = [];
        const q = query({
          prompt: prompts(),
          options: { model: FORMATS[0].model, env: mockEnv(server), sessionStore: store, cwd: dir, tools: [weather] },
        });
        for await (const message of q) {
          messages.push(message);
          if (message.type === "result" && message.terminal_reason === "requires_action") answered?.();
        }
        const results = messages.filter((m) => m.type === "result");
        expect(results.map((r) => r.type === "result" && r.terminal_reason)).toEqual(["requires_action", "completed"]);
        expect(toolOutputs(server.requests[1])).toEqual([["toolu_lima", "19 C"]]);
      } finally {
        await store.close();
      }
    });
  });
});
