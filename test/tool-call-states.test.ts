import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type SDKMessage } from "../src/index.js";
import { openSqliteSessionStore, type SessionStore, type ToolPart } from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, withMock } from "./helpers.js";

// A stored session shows each tool call's state as it changes (issue 27): every call that runs
// passes through `running`, however short, in parallel or alone; one that never runs goes from
// `pending` to `error`. Real loop, scripted mock LLM, real SQLite store.

const [anthropic] = FORMATS;

const tenMs = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Read-only, so that two calls of it in one answer run together. */
const slow = defineTool({
  name: "slow",
  description: "Answers after 10 ms.",
  inputSchema: z.object({ label: z.string() }),
  readOnly: true,
  execute: async ({ label }) => {
    await tenMs();
    return `done ${label}`;
  },
});

const failing = defineTool({
  name: "failing",
  description: "Fails after 10 ms.",
  inputSchema: z.object({ path: z.string() }),
  execute: async () => {
    await tenMs();
    throw new Error("disk full");
  },
});

/**
 * The store, with every tool part it holds read back after each message is stored: the
 * states each call showed, in order, as any reader of the session would have seen them.
 */
function watched(store: SessionStore): { store: SessionStore; shown: Map<string, string[]> } {
  const shown = new Map<string, string[]>();
  const append = async (sessionId: string, message: SDKMessage) => {
    await store.append(sessionId, message);
    for (const part of await toolParts(store, sessionId)) {
      const states = shown.get(part.callId) ?? [];
      if (states.at(-1) !== part.state.status) states.push(part.state.status);
      shown.set(part.callId, states);
    }
  };
  const proxy = new Proxy(store, {
    get: (target, key) => {
      if (key === "append") return append;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: proxy, shown };
}

async function toolParts(store: SessionStore, sessionId: string): Promise<ToolPart[]> {
  return (await store.getMessages(sessionId)).flatMap((message) =>
    message.parts.filter((part): part is ToolPart => part.type === "tool"),
  );
}

describe("a stored session's tool calls", () => {
  let dir: string;
  let store: SessionStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "gyre-call-states-"));
    store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("pass through running, each with its start before its end: 10 ms calls, together and alone, failing too", async () => {
    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", id: "call_a", name: "slow", input: { label: "a" } },
          { type: "tool_use", id: "call_b", name: "slow", input: { label: "b" } },
          { type: "tool_use", id: "call_fail", name: "failing", input: { path: "/tmp/x" } },
          { type: "tool_use", id: "call_bad", name: "slow", input: { label: 3 } },
        ]),
        mockTurn.toolUse("slow", { label: "c" }, { id: "call_c" }),
        mockTurn.text("All done."),
      ],
    };
    const { store: recording, shown } = watched(store);
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        tools: [slow, failing],
        sessionStore: recording,
        cwd: dir,
        permissionMode: "bypassPermissions",
      });
      expect(resultOf(messages).subtype).toBe("success");
      const sessionId = messages[0]?.session_id ?? "";

      // Every call that ran passed through running; the one with invalid input never ran.
      expect(Object.fromEntries(shown)).toEqual({
        call_a: ["pending", "running", "completed"],
        call_b: ["pending", "running", "completed"],
        call_fail: ["pending", "running", "error"],
        call_bad: ["pending", "error"],
        call_c: ["pending", "running", "completed"],
      });
      const parts = new Map((await toolParts(store, sessionId)).map((part) => [part.callId, part]));
      for (const id of ["call_a", "call_b", "call_fail", "call_c"]) {
        const state = parts.get(id)?.state;
        if (state?.status !== "completed" && state?.status !== "error") throw new Error(`${id} did not end`);
        expect(state.startedAt).toBeLessThanOrEqual(state.endedAt);
      }
      expect(parts.get("call_a")?.state).toMatchObject({ status: "completed", title: "a", output: "done a" });
      expect(parts.get("call_fail")?.state).toMatchObject({ title: "/tmp/x", error: "Error: disk full" });

      // The caller's stream carries the same start messages the store holds, one per call that ran.
      const starts = (list: SDKMessage[]) =>
        list.flatMap((m) => (m.type === "tool_progress" && m.elapsed_time_seconds === 0 ? [m] : []));
      const streamed = starts(messages);
      expect(streamed.map((m) => m.tool_use_id).sort()).toEqual(["call_a", "call_b", "call_c", "call_fail"]);
      expect(starts(await store.getSessionMessages(sessionId))).toEqual(streamed);
    });
  });

  it("keep why each call was allowed to run: the rule, the mode, or the answer when asked", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("slow", { label: "ruled" }, { id: "by_rule" }),
        mockTurn.toolUse("failing", { path: "asked.txt" }, { id: "by_answer" }),
        mockTurn.text("All done."),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", {
        tools: [slow, failing],
        sessionStore: store,
        cwd: dir,
        allowedTools: ["slow"],
        canUseTool: async (_tool, input) => ({ behavior: "allow", updatedInput: input }),
      });
      const parts = new Map((await toolParts(store, messages[0]?.session_id ?? "")).map((part) => [part.callId, part]));
      expect(parts.get("by_rule")?.state).toMatchObject({
        status: "completed",
        permission: expect.stringContaining('allow rule "slow"'),
      });
      expect(parts.get("by_answer")?.state).toMatchObject({
        status: "error",
        permission: expect.stringMatching(/^asked \(no rule allows failing\); allowed by canUseTool$/),
      });
      const start = messages.find((m) => m.type === "tool_progress" && m.tool_use_id === "by_rule");
      expect(start).toMatchObject({ permission_reason: expect.stringContaining("slow") });
    });
  });
});
