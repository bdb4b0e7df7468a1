import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../src/index.js";
import {
  openSqliteSessionStore,
  type SessionStatus,
  type SessionStore,
  WorkspaceSnapshots,
} from "../src/sessions/index.js";
import { mockFault, mockTurn } from "../src/testing/index.js";
import { FORMATS, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";

// Issue 32, rows 11 and 12: stored messages carry what OpenCode's do — the agent that spoke, the
// paths the run worked in, the model as provider and id, the output's reasoning tokens — and a
// session has a status a UI can watch, in the store and pushed to an AgentSession listener.

const [anthropic, responses] = FORMATS;

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-message-fields-"));
  writeFileSync(join(dir, "notes.txt"), "notes\n");
  store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("stored messages (row 11)", () => {
  it("carry the agent, the paths, the model as provider and id, and the reasoning tokens", async () => {
    const script = {
      turns: [
        mockTurn.toolUse(
          "Agent",
          { description: "ask scout", prompt: "look", subagent_type: "scout" },
          { id: "call_scout", usage: { input_tokens: 50, output_tokens: 30, reasoning_tokens: 12 } },
        ),
        mockTurn.text("done", { usage: { input_tokens: 60, output_tokens: 5 } }),
      ],
      routes: [
        {
          system: "You are scout.",
          turns: [mockTurn.text("seen", { usage: { output_tokens: 9, reasoning_tokens: 4 } })],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, responses, "go", {
        cwd: dir,
        sessionStore: store,
        agents: { scout: { description: "The scout.", prompt: "You are scout." } },
      });
      const sessionId = messages[0]?.session_id ?? "";
      const path = { cwd: dir, root: realpathSync(dir) };
      const stored = await store.getMessages(sessionId);
      const [first, last] = stored.filter((message) => message.role === "assistant");
      expect(first).toMatchObject({ providerId: "openai", modelId: "gpt-5", reasoningTokens: 12, path });
      expect(first?.agent).toBeUndefined();
      // The provider reported none apart: zero, as it said.
      expect(last).toMatchObject({ providerId: "openai", modelId: "gpt-5", reasoningTokens: 0 });
      expect(stored.find((message) => message.role === "user")?.path).toEqual(path);

      const [child] = await store.listSessions({ parentId: sessionId, subagents: "only" });
      const [scout] = (await store.getMessages(child?.id ?? "")).filter((message) => message.role === "assistant");
      expect(scout).toMatchObject({ agent: "scout", providerId: "openai", reasoningTokens: 4 });
      // Row 10: which agent spoke is a part too.
      expect(scout?.parts.filter((part) => part.type === "agent")).toMatchObject([{ name: "scout" }]);
    });
  });

  it("leave reasoning tokens out where the provider does not report them apart (Anthropic)", async () => {
    await withMock({ turns: [mockTurn.text("hi")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", { cwd: dir, sessionStore: store });
      const [answer] = (await store.getMessages(messages[0]?.session_id ?? "")).filter((m) => m.role === "assistant");
      expect(answer).toMatchObject({ providerId: "anthropic", modelId: "claude-sonnet-4-5" });
      expect(answer?.reasoningTokens).toBeUndefined();
    });
  });

  it("name the agent the main thread runs as, and the one a handoff gave it to", async () => {
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [mockTurn.toolUse("transfer_to_billing", {})] },
        { system: "You are billing.", turns: [mockTurn.text("(unused)"), mockTurn.text("Refunded.")] },
      ],
    };
    const agent = (name: string, extra: object = {}) => ({
      description: `The ${name}.`,
      prompt: `You are ${name}.`,
      ...extra,
    });
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "charged twice", {
        cwd: dir,
        sessionStore: store,
        agent: "triage",
        agents: { triage: agent("triage", { handoffs: ["billing"] }), billing: agent("billing") },
      });
      const stored = await store.getMessages(messages[0]?.session_id ?? "");
      expect(stored.filter((m) => m.role === "assistant").map((m) => m.agent)).toEqual(["triage", "billing"]);
    });
  });
});

describe("session status (row 12)", () => {
  it("busy, retry with the attempt and the next try, busy, idle: in the store and pushed to an AgentSession listener", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("Read", { file_path: join(dir, "notes.txt") }),
        mockTurn.text("read it", { faults: [mockFault.overloaded()] }),
      ],
    };
    await withMock(script, async (server) => {
      const session = new Agent({
        model: anthropic.model,
        env: mockEnv(server),
        cwd: dir,
        sessionStore: store,
        retry: { baseDelayMs: 20, maxDelayMs: 50 },
      }).session();
      const seen: SessionStatus[] = [];
      const stored: Promise<SessionStatus | undefined>[] = [];
      const stop = session.onStatus((status) => {
        seen.push(status);
        // What the store says at that moment: the message that changed it is stored before it is read.
        stored.push(store.getSession(session.id ?? "").then((info) => info?.status));
      });
      expect(session.status).toEqual({ type: "idle" });
      const before = Date.now();
      for await (const message of session.send("read notes")) void message;
      stop();
      expect(seen.map((status) => status.type)).toEqual(["busy", "retry", "busy", "idle"]);
      const retry = seen[1];
      if (retry?.type !== "retry") throw new Error("no retry");
      expect(retry.attempt).toBe(1);
      expect(retry.message).toContain("529");
      expect(retry.next).toBeGreaterThanOrEqual(before);
      expect(await Promise.all(stored)).toEqual(seen);
      expect((await store.getSession(session.id ?? ""))?.status).toEqual({ type: "idle" });
    });
  });

  it("a session whose run is under way reads busy from the store (asked about a Write mid-run)", async () => {
    await withMock(
      { turns: [mockTurn.toolUse("Write", { file_path: join(dir, "new.txt"), content: "x" }), mockTurn.text("ok")] },
      async (server) => {
        let during: SessionStatus | undefined;
        const messages = await runQuery(server, anthropic, "read", {
          cwd: dir,
          sessionStore: store,
          permissionMode: "default",
          canUseTool: async (_tool, input, { toolUseID }) => {
            void toolUseID;
            during = (await store.listSessions())[0]?.status;
            return { behavior: "allow", updatedInput: input };
          },
        });
        expect(resultOf(messages)).toMatchObject({ result: "ok" });
        expect(during).toEqual({ type: "busy" });
      },
    );
  });
});

describe("parts (row 10)", () => {
  it("an ignored message stays in the session but is never sent to the model", async () => {
    await withMock({ turns: [mockTurn.text("first"), mockTurn.text("second")] }, async (server) => {
      const first = await runQuery(server, anthropic, "remember the number 41", { cwd: dir, sessionStore: store });
      const sessionId = first[0]?.session_id ?? "";
      await store.append(sessionId, {
        type: "user",
        uuid: randomUUID(),
        session_id: sessionId,
        message: { role: "user", content: "reviewer's note: the secret is 99" },
        parent_tool_use_id: null,
        ignored: true,
      });
      await runQuery(server, anthropic, "what was the number?", { cwd: dir, sessionStore: store, resume: sessionId });
      const sent = JSON.stringify(server.requests[1]?.body);
      expect(sent).toContain("remember the number 41");
      expect(sent).toContain("what was the number?");
      expect(sent).not.toContain("the secret is 99");
      const note = (await store.getMessages(sessionId))
        .flatMap((m) => m.parts)
        .find((p) => p.type === "text" && p.ignored);
      expect(note).toMatchObject({ text: "reviewer's note: the secret is 99", ignored: true });
    });
  });
});

describe("snapshot parts (row 10)", () => {
  it("snapshot the workspace at each step and at the end, in Gyre's own repository: a step's changes and diff come back, restore puts files back", async () => {
    const work = mkdtempSync(join(tmpdir(), "gyre-snapshots-"));
    execFileSync("git", ["init", "--quiet"], { cwd: work });
    writeFileSync(join(work, ".gitignore"), "build/\n");
    const objectsBefore = execFileSync("git", ["count-objects"], { cwd: work, encoding: "utf8" });
    const file = join(work, "a.txt");
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.toolUse("Write", { file_path: file, content: "one\n" }),
        mockTurn.toolUse("Edit", { file_path: file, old_string: "one", new_string: "two" }),
        mockTurn.text("done"),
      ],
    };
    try {
      await withMock(script, async (server) => {
        const messages = await runQuery(server, anthropic, "write then edit", {
          cwd: work,
          sessionStore: store,
          snapshots: true,
          permissionMode: "acceptEdits",
        });
        expect(resultOf(messages)).toMatchObject({ result: "done" });
        const stored = await store.getMessages(messages[0]?.session_id ?? "");
        const snapshots = stored.flatMap((m) => m.parts).flatMap((p) => (p.type === "snapshot" ? [p.snapshot] : []));
        // Three steps' starts and the end.
        expect(snapshots).toHaveLength(4);
        const [beforeWrite, beforeEdit, afterEdit, end] = snapshots as [string, string, string, string];
        expect(end).toBe(afterEdit);
        const workspace = new WorkspaceSnapshots({ worktree: work });
        expect(await workspace.changes(beforeWrite, beforeEdit)).toEqual([{ path: "a.txt", status: "added" }]);
        expect(await workspace.diff(beforeEdit, afterEdit)).toContain("-one\n+two");
        // Ignored files are not taken.
        mkdirSync(join(work, "build"));
        writeFileSync(join(work, "build", "out.bin"), "x");
        expect(await workspace.changes(end, await workspace.track())).toEqual([]);

        await workspace.restore(beforeEdit);
        expect(readFileSync(file, "utf8")).toBe("one\n");
        await workspace.restore(beforeWrite);
        expect(existsSync(file)).toBe(false);
        expect(existsSync(join(work, "build", "out.bin"))).toBe(true);
        // The project's own repository is untouched.
        expect(execFileSync("git", ["count-objects"], { cwd: work, encoding: "utf8" })).toBe(objectsBefore);
        expect(workspace.gitDir.startsWith(process.env.GYRE_HOME ?? "")).toBe(true);
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
