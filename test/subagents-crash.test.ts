import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { query } from "../src/loop/index.js";
import { INTERRUPTED_TOOL_RESULT, openSqliteSessionStore } from "../src/sessions/index.js";
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

  it("keeps the subagent's messages apart, closes the Agent call as interrupted, and the parent goes on", async () => {
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
      const store = openSqliteSessionStore({ path: db });
      try {
        // A subagent's messages are recorded as the parent's stream passes them on, which may be
        // just after its tool started: wait until its call is stored, tagged with the Agent
        // call's id, then kill.
        const subagentCall = async () =>
          (await store.getSessionMessages("crash-sub")).some(
            (m) =>
              "parent_tool_use_id" in m &&
              m.parent_tool_use_id === "toolu_agent" &&
              JSON.stringify(m).includes("toolu_sub_hang"),
          );
        while (!(await subagentCall())) await new Promise((resolve) => setImmediate(resolve));
        await killHard(child);
        // The parent's call and the subagent's first call.
        expect(server.requests.map((r) => r.route)).toEqual([undefined, 0]);

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
      } finally {
        await store.close();
      }
    });
  });
});
