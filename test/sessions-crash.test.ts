import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { query } from "../src/agents/index.js";
import { INTERRUPTED_TOOL_RESULT, openSqliteSessionStore } from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { calculator, mockEnv, withMock } from "./helpers.js";
import { compiledChildren, hang, hangingQueryScript, killHard } from "./sessions-child.js";

const children = compiledChildren();

/** A child process running a real query whose second tool call never returns. */
const CHILD = hangingQueryScript({
  prompt: "add 2 and 3, then hang",
  tools: "[calculator, hang]",
  setup: `
  const calculator = defineTool({
    name: "calculator",
    description: "Evaluate a + b.",
    inputSchema: z.object({ a: z.number(), b: z.number(), op: z.enum(["+", "-", "*", "/"]) }),
    readOnly: true,
    execute: ({ a, b }) => String(a + b),
  });`,
});

describe("kill -9 in the middle of a turn, then resume", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gyre-crash-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps every message up to the kill, closes the running call as interrupted, and the loop goes on", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("calculator", { a: 2, b: 3, op: "+" }, { id: "toolu_calc" }),
        mockTurn.toolUse("hang", {}, { id: "toolu_hang" }),
        mockTurn.text("Resumed after the crash."),
      ],
    };
    await withMock(script, async (server) => {
      const db = join(dir, "sessions.db");
      const child = await children.start(
        CHILD,
        { DB: db, BASE_URL: server.baseURL, SESSION: "crash-1", CWD: dir },
        "tool-started",
      );
      await killHard(child);
      expect(server.requests).toHaveLength(2);

      const store = openSqliteSessionStore({ path: db });
      try {
        // tool_progress is left out: the hang call's start reaches the store while the tool runs
        // (before the kill or not), and progress comes from calls running past the threshold.
        const stored = (await store.getSessionMessages("crash-1")).filter((m) => m.type !== "tool_progress");
        expect(stored.map((m) => m.type)).toEqual(["system", "user", "assistant", "user", "assistant"]);
        expect(JSON.stringify(stored[4])).toContain("toolu_hang");

        // The dead child's lock is recovered; the resumed run goes on with the new prompt.
        const messages: SDKMessage[] = [];
        const resumed = query({
          prompt: "go on",
          options: {
            model: "anthropic/claude-sonnet-4-5",
            env: mockEnv(server),
            tools: [calculator, hang],
            sessionStore: store,
            resume: "crash-1",
            cwd: dir,
          },
        });
        for await (const message of resumed) messages.push(message);
        expect(messages.at(-1)).toMatchObject({
          type: "result",
          subtype: "success",
          result: "Resumed after the crash.",
        });

        const body = server.requests[2]?.body as { messages: Array<{ role: string; content: unknown }> };
        assertValidAnthropicHistory(body.messages);
        const text = JSON.stringify(body.messages);
        expect(text).toContain("add 2 and 3, then hang");
        expect(text).toContain("toolu_calc");
        expect(text).toContain('"5"');
        expect(text).toContain(INTERRUPTED_TOOL_RESULT);
        expect(text).toContain("go on");
        expect((await store.getSessionMessages("crash-1")).at(-1)?.type).toBe("result");
      } finally {
        await store.close();
      }
    });
  });
});

/** Roles alternate, starting with the user; each tool_use is answered in the next user message. */
function assertValidAnthropicHistory(messages: Array<{ role: string; content: unknown }>): void {
  expect(messages[0]?.role).toBe("user");
  messages.forEach((message, index) => {
    if (index > 0) expect(message.role).not.toBe(messages[index - 1]?.role);
    if (message.role !== "assistant" || !Array.isArray(message.content)) return;
    const calls = (message.content as Array<{ type: string; id?: string }>)
      .filter((block) => block.type === "tool_use")
      .map((block) => block.id);
    const next = messages[index + 1]?.content as Array<{ type: string; tool_use_id?: string }>;
    const answered = next.filter((block) => block.type === "tool_result").map((block) => block.tool_use_id);
    expect(answered).toEqual(calls);
  });
}
