import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { query } from "../src/agents/index.js";
import { INTERRUPTED_TOOL_RESULT, openSqliteSessionStore, projectOf } from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { mockEnv, withMock } from "./helpers.js";
import { compiledChildren, hang, hangingQueryScript, killHard } from "./sessions-child.js";

const children = compiledChildren();

const SLEEPER = { description: "Waits.", prompt: "You are sleeper. Report briefly." };

/** A child process running a real query whose subagent's tool call never returns. */
const CHILD = hangingQueryScript({
  prompt: "ask the sleeper",
  tools: '[hang, "Agent"]',
  options: "agents: { sleeper: JSON.parse(process.env.SLEEPER) },",
});

describe("kill -9 with a subagent running, then resume", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gyre-subagent-crash-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the subagent's session keeps what it made before the kill; the Agent call closes as interrupted; the parent goes on", async () => {
    const script = {
      turns: [
        mockTurn.toolUse(
          "Agent",
          { description: "wait", prompt: "wait for it", subagent_type: "sleeper" },
          { id: "toolu_agent" },
        ),
        mockTurn.text("Resumed after the crash."),
      ],
      routes: [{ system: "You are sleeper.", turns: [mockTurn.toolUse("hang", {}, { id: "toolu_sub_hang" })] }],
    };
    await withMock(script, async (server) => {
      const db = join(dir, "sessions.db");
      const child = await children.start(
        CHILD,
        {
          DB: db,
          BASE_URL: server.baseURL,
          SESSION: "crash-sub",
          CWD: dir,
          SLEEPER: JSON.stringify(SLEEPER),
        },
        "tool-started",
      );
      // The subagent stores each message before it goes on: once its tool runs, its call is stored.
      await killHard(child);
      const store = openSqliteSessionStore({ path: db });
      try {
        // The parent's call and the subagent's first call.
        expect(server.requests.map((r) => r.route)).toEqual([undefined, 0]);
        const [subagent] = await store.listSessions({ parentId: "crash-sub", subagents: "only" });
        expect(subagent).toMatchObject({ parentToolUseId: "toolu_agent", title: "wait" });
        // Its call's start reaches the store while the tool runs: before the kill or not.
        const partial = (await store.getSessionMessages(subagent?.id ?? "")).filter((m) => m.type !== "tool_progress");
        expect(partial.map((m) => m.type)).toEqual(["user", "assistant"]);
        expect(JSON.stringify(partial[1])).toContain("toolu_sub_hang");
        // The parent holds its own messages only: the subagent's are not copied into it.
        const parentBefore = await store.getSessionMessages("crash-sub");
        expect(JSON.stringify(parentBefore)).not.toContain("toolu_sub_hang");

        const messages: SDKMessage[] = [];
        const resumed = query({
          prompt: "go on",
          options: {
            model: "anthropic/claude-sonnet-4-5",
            env: mockEnv(server),
            tools: [hang, "Agent"],
            agents: { sleeper: SLEEPER },
            sessionStore: store,
            resume: "crash-sub",
            cwd: dir,
          },
        });
        for await (const message of resumed) messages.push(message);
        expect(messages.at(-1)).toMatchObject({
          type: "result",
          subtype: "success",
          result: "Resumed after the crash.",
        });

        // The resumed request: the parent's history only, its Agent call answered as interrupted.
        const body = server.requests.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
        expect(server.requests.at(-1)?.route).toBeUndefined();
        const history = JSON.stringify(body.messages);
        expect(history).toContain("toolu_agent");
        expect(history).toContain(INTERRUPTED_TOOL_RESULT);
        expect(history).not.toContain("toolu_sub_hang");
        expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);

        // The stored call reads interrupted, linked to the subagent's session, which keeps its partial transcript.
        const parts = (await store.getMessages("crash-sub")).flatMap((m) => m.parts);
        expect(parts.find((p) => p.type === "subtask")).toMatchObject({
          callId: "toolu_agent",
          childSessionId: subagent?.id,
          status: "interrupted",
          costUsd: null,
        });
        expect(parts.find((p) => p.type === "tool" && p.callId === "toolu_agent")).toMatchObject({
          state: { status: "error", error: INTERRUPTED_TOOL_RESULT },
        });
        // Unchanged by the resume (the hang call's start, stored or not before the kill, left aside as above).
        const after = (await store.getSessionMessages(subagent?.id ?? "")).filter((m) => m.type !== "tool_progress");
        expect(after).toEqual(partial);
        expect((await store.listSessions({ project: projectOf(dir) })).map((s) => s.id)).toEqual(["crash-sub"]);
      } finally {
        await store.close();
      }
    });
  });
});
