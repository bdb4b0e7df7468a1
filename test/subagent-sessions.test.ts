import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentDefinition, query, type SDKMessage } from "../src/index.js";
import {
  openSqliteSessionStore,
  projectOf,
  type SessionStore,
  type StoredMessage,
  type SubtaskPart,
} from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";
import { openTestPostgresStore } from "./sessions-postgres-helper.js";

const [anthropic] = FORMATS;
const usage = { input_tokens: 1000, output_tokens: 100 };

function agent(marker: string): AgentDefinition {
  return { description: `The ${marker} agent.`, prompt: `You are ${marker}. Report briefly.` };
}

function agentCall(type: string, id: string) {
  return {
    type: "tool_use" as const,
    id,
    name: "Agent",
    input: { description: `ask ${type}`, prompt: `work, ${type}`, subagent_type: type },
  };
}

const tagged = (messages: SDKMessage[], id: string) =>
  messages.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id === id);

function subtasks(messages: StoredMessage[]): SubtaskPart[] {
  return messages.flatMap((m) => m.parts.filter((p): p is SubtaskPart => p.type === "subtask"));
}

const STORES: Array<[string, (dir: string) => Promise<{ store: SessionStore; cleanup: () => Promise<void> }>]> = [
  [
    "sqlite",
    async (dir) => {
      const store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
      return { store, cleanup: () => store.close() };
    },
  ],
  ["postgres", async () => openTestPostgresStore()],
];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-subagent-sessions-"));
  writeFileSync(join(dir, "notes.txt"), "the secret is 42\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

for (const [name, open] of STORES) {
  describe(`subagent sessions (${name})`, () => {
    let store: SessionStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await open(dir));
    });
    afterEach(async () => cleanup());

    it("a subagent's transcript is its own session, linked to the parent and its Agent call", async () => {
      const script = {
        turns: [
          { ...mockTurn.of([agentCall("scout", "call_1")]), usage },
          { ...mockTurn.text("Scout saw notes."), usage },
          mockTurn.text("Yes."),
        ],
        routes: [
          {
            system: "You are scout.",
            turns: [
              { ...mockTurn.toolUse("Glob", { pattern: "*.txt" }), usage },
              { ...mockTurn.text("notes.txt is there"), usage },
            ],
          },
        ],
      };
      await withMock(script, async (server) => {
        const options = { cwd: dir, sessionStore: store, agents: { scout: agent("scout") } };
        const messages = await runQuery(server, anthropic, "look", options);
        const parentId = messages[0]?.session_id ?? "";

        // The caller's stream is as before: the subagent's messages (with its Glob call's start) tagged, under the parent's id.
        const fromScout = tagged(messages, "call_1");
        expect(fromScout.map((m) => m.type)).toEqual(["assistant", "tool_progress", "user", "assistant"]);
        expect(fromScout.every((m) => m.session_id === parentId)).toBe(true);
        // After the call's start, its progress with data names the subagent's session.
        const started = messages.find(
          (m) => m.type === "tool_progress" && m.tool_use_id === "call_1" && m.data !== undefined,
        );
        expect(started).toMatchObject({ parent_tool_use_id: null, tool_name: "Agent" });
        const childId = (started as { data: { session_id: string } }).data.session_id;

        // Listed: the parent only; the child is found through its parent.
        const project = projectOf(dir);
        expect((await store.listSessions({ project })).map((s) => s.id)).toEqual([parentId]);
        expect((await store.latestSession(project))?.id).toBe(parentId);
        const children = await store.listSessions({ parentId, subagents: "only" });
        expect(children).toEqual([
          expect.objectContaining({
            id: childId,
            parentId,
            parentToolUseId: "call_1",
            title: "ask scout",
            cwd: dir,
            project,
            forkedFromMessage: null,
            runs: 1,
            lastResult: { subtype: "success", terminalReason: "completed", isError: false },
          }),
        ]);
        expect((await store.getSession(parentId))?.parentToolUseId).toBeNull();

        // The child holds the subagent's messages as its loop made them: prompt first, result last.
        const child = await store.getSessionMessages(childId);
        expect(child.map((m) => m.type)).toEqual(["user", "assistant", "tool_progress", "user", "assistant", "result"]);
        expect(child.every((m) => m.session_id === childId)).toBe(true);
        expect(child.every((m) => !("parent_tool_use_id" in m) || m.parent_tool_use_id === null)).toBe(true);
        expect(JSON.stringify(child[0])).toContain("work, scout");
        expect(child.slice(1, 5).map((m) => m.uuid)).toEqual(fromScout.map((m) => m.uuid));

        // The parent holds none of them; its subtask part links the child, with status and cost.
        const parent = await store.getSessionMessages(parentId);
        expect(parent.filter((m) => "parent_tool_use_id" in m && m.parent_tool_use_id !== null)).toEqual([]);
        expect(parent.some((m) => m.uuid === started?.uuid)).toBe(true);
        const childResult = child.at(-1) as Extract<SDKMessage, { type: "result" }>;
        expect(childResult.total_cost_usd).toBeGreaterThan(0);
        expect(subtasks(await store.getMessages(parentId))).toEqual([
          expect.objectContaining({
            callId: "call_1",
            description: "ask scout",
            agent: "scout",
            childSessionId: childId,
            status: "completed",
            costUsd: childResult.total_cost_usd,
          }),
        ]);
        // The Agent call's result data names the session too, for callers.
        const results = messages.find(
          (m) => m.type === "user" && m.parent_tool_use_id === null && m.tool_use_result !== undefined,
        );
        expect(results).toMatchObject({
          tool_use_result: { call_1: { session_id: childId, status: "completed", agent: "scout" } },
        });

        // Resume (and continue) pick the parent; its history is its own.
        const second = await runQuery(server, anthropic, "Did it?", { ...options, continue: true });
        expect(second[0]?.session_id).toBe(parentId);
        expect(resultOf(second).result).toBe("Yes.");
        const history = JSON.stringify((server.requests.at(-1)?.body as { messages: unknown }).messages);
        expect(history).toContain("notes.txt is there");
        expect(history).not.toContain("Glob");

        // Removing the parent removes its subagent's session.
        await store.deleteSession(parentId);
        expect(await store.getSession(childId)).toBeUndefined();
      });
    });

    it("two subagents in one turn: two sessions, each linked to its own call", async () => {
      const routes = ["red", "blue"].map((color) => ({
        system: `You are ${color}.`,
        turns: [mockTurn.toolUse("Glob", { pattern: "*.txt" }), mockTurn.text(`${color} done`)],
      }));
      const script = {
        turns: [mockTurn.of([agentCall("red", "call_red"), agentCall("blue", "call_blue")]), mockTurn.text("both")],
        routes,
      };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, anthropic, "go", {
          cwd: dir,
          sessionStore: store,
          agents: { red: agent("red"), blue: agent("blue") },
        });
        const parentId = messages[0]?.session_id ?? "";
        const children = await store.listSessions({ parentId, subagents: "only" });
        expect(children.map((c) => c.parentToolUseId).sort()).toEqual(["call_blue", "call_red"]);
        const parts = subtasks(await store.getMessages(parentId));
        for (const child of children) {
          const color = child.parentToolUseId === "call_red" ? "red" : "blue";
          const stored = await store.getSessionMessages(child.id);
          expect(JSON.stringify(stored.at(-2))).toContain(`${color} done`);
          expect(parts.find((p) => p.callId === child.parentToolUseId)).toMatchObject({
            childSessionId: child.id,
            status: "completed",
          });
        }
        expect((await store.listSessions({ subagents: "include" })).length).toBe(3);
        expect((await store.listSessions()).map((s) => s.id)).toEqual([parentId]);
      });
    });

    it("a nested subagent's session hangs under its parent subagent's; each holds only its own messages", async () => {
      const script = {
        turns: [mockTurn.of([agentCall("outer", "call_outer")]), mockTurn.text("top done")],
        routes: [
          {
            system: "You are outer.",
            turns: [mockTurn.of([agentCall("inner", "call_inner")]), mockTurn.text("outer done")],
          },
          { system: "You are inner.", turns: [mockTurn.text("inner done")] },
        ],
      };
      await withMock(script, async (server) => {
        const messages = await runQuery(server, anthropic, "go", {
          cwd: dir,
          sessionStore: store,
          maxSubagentDepth: 2,
          agents: { outer: agent("outer"), inner: agent("inner") },
        });
        const topId = messages[0]?.session_id ?? "";
        expect(tagged(messages, "call_inner").map((m) => m.type)).toEqual(["assistant"]);
        expect(tagged(messages, "call_inner")[0]?.session_id).toBe(topId);
        const [outer] = await store.listSessions({ parentId: topId, subagents: "only" });
        const [inner] = await store.listSessions({ parentId: outer?.id ?? "", subagents: "only" });
        expect(inner).toMatchObject({ parentToolUseId: "call_inner", title: "ask inner" });
        const outerMessages = await store.getSessionMessages(outer?.id ?? "");
        expect(JSON.stringify(outerMessages)).not.toContain('inner done"}],"id'); // only its Agent result
        // The inner Agent call's start, then its progress naming the inner session.
        expect(outerMessages.map((m) => m.type)).toEqual([
          "user",
          "assistant",
          "tool_progress",
          "tool_progress",
          "user",
          "assistant",
          "result",
        ]);
        expect((await store.getSessionMessages(inner?.id ?? "")).map((m) => m.type)).toEqual([
          "user",
          "assistant",
          "result",
        ]);
        expect(subtasks(await store.getMessages(outer?.id ?? ""))).toEqual([
          expect.objectContaining({ childSessionId: inner?.id, status: "completed" }),
        ]);
        await store.deleteSession(topId);
        expect(await store.listSessions({ subagents: "include" })).toEqual([]);
      });
    });

    it("an interrupted subagent: its session ends interrupted, and so does the subtask", async () => {
      const script = {
        turns: [mockTurn.of([agentCall("sleeper", "call_sleep")]), mockTurn.text("never")],
        routes: [{ system: "You are sleeper.", turns: [{ ...mockTurn.text("woke"), delayMs: 60_000 }] }],
      };
      await withMock(script, async (server) => {
        const q = query({
          prompt: "go",
          options: {
            model: anthropic.model,
            env: mockEnv(server),
            cwd: dir,
            sessionStore: store,
            agents: { sleeper: agent("sleeper") },
          },
        });
        const messages: SDKMessage[] = [];
        for await (const message of q) {
          messages.push(message);
          // The child's session exists once the message naming it is on the stream: interrupt then.
          if (message.type === "tool_progress" && message.data !== undefined) await q.interrupt();
        }
        expect(resultOf(messages)).toMatchObject({ terminal_reason: "interrupted" });
        const parentId = messages[0]?.session_id ?? "";
        const [child] = await store.listSessions({ parentId, subagents: "only" });
        expect(child?.lastResult).toMatchObject({ terminalReason: "interrupted" });
        expect(subtasks(await store.getMessages(parentId))).toEqual([
          expect.objectContaining({ childSessionId: child?.id, status: "interrupted" }),
        ]);
      });
    });
  });
}

describe("without a session", () => {
  it("persistSession: false makes no subagent session: no start message, no session id in the data", async () => {
    const script = {
      turns: [mockTurn.of([agentCall("scout", "call_1")]), mockTurn.text("done")],
      routes: [{ system: "You are scout.", turns: [mockTurn.text("found")] }],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "go", { cwd: dir, agents: { scout: agent("scout") } });
      // The Agent call's start only: no progress names a session.
      expect(messages.some((m) => m.type === "tool_progress" && m.data !== undefined)).toBe(false);
      const results = messages.find((m) => m.type === "user" && m.tool_use_result !== undefined);
      expect(results).toMatchObject({ tool_use_result: { call_1: { status: "completed" } } });
      expect(results?.type === "user" && results.tool_use_result).not.toHaveProperty("call_1.session_id");
      expect(tagged(messages, "call_1").map((m) => m.type)).toEqual(["assistant"]);
    });
  });
});
