import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../src/errors/index.js";
import type { SDKMessage } from "../src/index.js";
import { query } from "../src/agents/index.js";
import {
  getSessionMessages,
  INTERRUPTED_TOOL_RESULT,
  listSessions,
  openSqliteSessionStore,
  rewindFiles,
  type SessionStore,
} from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";

let dir: string;
let store: SessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-resume-"));
  store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Message kinds in order; `tool_progress` left out (each call's start, and progress past the threshold). */
function kinds(messages: SDKMessage[]): string[] {
  return messages
    .filter((m) => m.type !== "tool_progress")
    .map((m) => (m.type === "system" ? `system:${m.subtype}` : m.type));
}

/** Every text the model was sent in request `index`, as one string. */
function sent(body: unknown): string {
  return JSON.stringify(body);
}

describe.each(FORMATS)("persisted sessions over $name", (format) => {
  it("stores every message, the prompt included, and resume carries the history into the next request", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("calculator", { a: 6, b: 7, op: "*" }),
        mockTurn.text("It is 42."),
        mockTurn.text("You asked about 6*7."),
      ],
    };
    await withMock(script, async (server) => {
      const first = await runQuery(server, format, "What is 6*7?", {
        tools: [calculator],
        sessionStore: store,
        cwd: dir,
      });
      const sessionId = first[0]!.session_id;
      const stored = await store.getSessionMessages(sessionId);
      expect(kinds(stored)).toEqual(["system:init", "user", "assistant", "user", "assistant", "result"]);
      expect(stored[1]).toMatchObject({ type: "user", message: { content: "What is 6*7?" } });
      expect(stored.filter((m) => m.type !== "user" || m.uuid !== stored[1]!.uuid)).toEqual(first);

      const second = await runQuery(server, format, "What did I ask?", {
        tools: [calculator],
        sessionStore: store,
        cwd: dir,
        resume: sessionId,
      });
      expect(second.every((m) => m.session_id === sessionId)).toBe(true);
      expect(resultOf(second).result).toBe("You asked about 6*7.");
      const request = sent(server.requests[2]?.body);
      for (const text of ["What is 6*7?", "It is 42.", "What did I ask?"]) expect(request).toContain(text);
      expect((await store.getSessionMessages(sessionId)).filter((m) => m.type === "result")).toHaveLength(2);
    });
  });
});

describe("resume options", () => {
  const format = FORMATS[0];
  const script = { turns: [mockTurn.text("one"), mockTurn.text("two"), mockTurn.text("three")] };

  it("continue picks the latest session in cwd; forkSession copies it into a new id", async () => {
    await withMock(script, async (server) => {
      const first = await runQuery(server, format, "first", { tools: [], sessionStore: store, cwd: dir });
      const id = first[0]!.session_id;
      const continued = await runQuery(server, format, "second", {
        tools: [],
        sessionStore: store,
        cwd: dir,
        continue: true,
      });
      expect(continued[0]!.session_id).toBe(id);
      expect(sent(server.requests[1]?.body)).toContain("first");

      const forked = query({
        prompt: "third",
        options: {
          model: format.model,
          env: mockEnv(server),
          tools: [],
          sessionStore: store,
          cwd: dir,
          resume: id,
          forkSession: true,
        },
      });
      const messages: SDKMessage[] = [];
      for await (const message of forked) messages.push(message);
      expect(forked.sessionId).not.toBe(id);
      expect(messages.every((m) => m.session_id === forked.sessionId)).toBe(true);
      expect(sent(server.requests[2]?.body)).toContain("second");
      expect((await store.getSessionMessages(id)).filter((m) => m.type === "result")).toHaveLength(2);
      expect((await store.getSession(forked.sessionId))?.parentId).toBe(id);
    });
  });

  it("resumeSessionAt continues from that message in a fork and leaves the original whole", async () => {
    await withMock(script, async (server) => {
      const first = await runQuery(server, format, "first", { tools: [], sessionStore: store, cwd: dir });
      const id = first[0]!.session_id;
      await runQuery(server, format, "second", { tools: [], sessionStore: store, cwd: dir, resume: id });
      const firstAnswer = first.find((m) => m.type === "assistant")!;
      const third = await runQuery(server, format, "instead", {
        tools: [],
        sessionStore: store,
        cwd: dir,
        resume: id,
        resumeSessionAt: firstAnswer.uuid,
      });
      const body = sent(server.requests[2]?.body);
      expect(body).toContain("first");
      expect(body).not.toContain("second");
      expect(third[0]!.session_id).not.toBe(id);
      expect((await store.getSessionMessages(id)).filter((m) => m.type === "result")).toHaveLength(2);
    });
  });

  it("an unknown resume id is session_not_found", async () => {
    await withMock(script, async (server) => {
      const error = await runQuery(server, format, "x", {
        tools: [],
        sessionStore: store,
        resume: "nope",
      }).catch((e) => e);
      expect(isGyreError(error, "session_not_found")).toBe(true);
      expect(server.requests).toHaveLength(0);
    });
  });

  it("defaults to the user's SQLite database ($GYRE_HOME), not the project; persistSession false writes nothing", async () => {
    await withMock(script, async (server) => {
      const off = join(dir, "off");
      mkdirSync(off);
      await runQuery(server, format, "nothing kept", { tools: [], cwd: off, persistSession: false });
      expect(existsSync(join(off, ".gyre"))).toBe(false);

      const messages = await runQuery(server, format, "kept", { tools: [], cwd: dir, persistSession: true });
      expect(existsSync(join(dir, ".gyre"))).toBe(false);
      expect(existsSync(join(process.env.GYRE_HOME!, "sessions.db"))).toBe(true);
      const sessions = await listSessions({ cwd: dir });
      expect(sessions.map((s) => s.id)).toEqual([messages[0]!.session_id]);
      expect(sessions[0]).toMatchObject({ title: "kept", runs: 1 });
      expect(kinds(await getSessionMessages(messages[0]!.session_id, { cwd: dir }))).toEqual([
        "system:init",
        "user",
        "assistant",
        "result",
      ]);
    });
  });

  it("a corrupt database fails the query with a session_store_error naming the file", async () => {
    const bad = join(dir, "bad");
    mkdirSync(join(bad, ".gyre"), { recursive: true });
    writeFileSync(join(bad, ".gyre", "sessions.db"), "this is not a database, just some text ".repeat(200));
    await withMock(script, async (server) => {
      const error = await runQuery(server, format, "x", { tools: [], cwd: bad, persistSession: true }).catch((e) => e);
      expect(isGyreError(error, "session_store_error")).toBe(true);
      expect((error as Error).message).toContain(join(bad, ".gyre", "sessions.db"));
      expect(server.requests).toHaveLength(0);
    });
  });

  it("one loop per session: a run on a locked session is session_busy; the lock is released after a run", async () => {
    await withMock(script, async (server) => {
      const first = await runQuery(server, format, "first", { tools: [], sessionStore: store, cwd: dir });
      const id = first[0]!.session_id;
      const lock = await store.acquireLock(id, "another loop");
      const error = await runQuery(server, format, "x", { tools: [], sessionStore: store, resume: id }).catch((e) => e);
      expect(isGyreError(error, "session_busy")).toBe(true);
      expect((error as Error).message).toContain("another loop");
      await lock.release();
      await runQuery(server, format, "second", { tools: [], sessionStore: store, resume: id });
      const again = await store.acquireLock(id);
      await again.release();
    });
  });

  it("a resumed session whose last tool call never returned gets it closed as interrupted", async () => {
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const session = await store.createSession({ cwd: dir });
      const base = { session_id: session.id, parent_tool_use_id: null };
      await store.append(session.id, {
        type: "user",
        uuid: "u1",
        ...base,
        message: { role: "user", content: "run it" },
      });
      await store.append(session.id, {
        type: "assistant",
        uuid: "a1",
        ...base,
        message: {
          id: "m1",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "tool_use", id: "toolu_1", name: "calculator", input: { a: 1, b: 2, op: "+" } }],
          stop_reason: "tool_use",
          stop_sequence: null,
          usage: {
            input_tokens: 1,
            output_tokens: 1,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      });
      await runQuery(server, format, "go on", {
        tools: [calculator],
        sessionStore: store,
        resume: session.id,
      });
      const body = sent(server.requests[0]?.body);
      expect(body).toContain("toolu_1");
      expect(body).toContain("Tool call was interrupted");
      expect(INTERRUPTED_TOOL_RESULT).toContain("Tool call was interrupted");
    });
  });
});

describe("file checkpoints", () => {
  it("rewindFiles restores edited files and removes created ones, from any point of the session", async () => {
    const work = join(dir, "work");
    mkdirSync(work);
    writeFileSync(join(work, "a.txt"), "original\n");
    const script = {
      turns: [
        mockTurn.toolUse("Read", { file_path: join(work, "a.txt") }),
        mockTurn.toolUse("Write", { file_path: join(work, "a.txt"), content: "changed\n" }),
        mockTurn.toolUse("Write", { file_path: join(work, "b.txt"), content: "created\n" }),
        mockTurn.toolUse("Write", { file_path: join(work, "a.txt"), content: "changed twice\n" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const q = query({
        prompt: "edit files",
        options: {
          model: FORMATS[0].model,
          env: mockEnv(server),
          cwd: work,
          tools: ["Read", "Write"],
          permissionMode: "bypassPermissions",
          sessionStore: store,
        },
      });
      const messages: SDKMessage[] = [];
      for await (const message of q) messages.push(message);
      expect(resultOf(messages).subtype).toBe("success");
      expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("changed twice\n");
      const assistants = messages.filter((m) => m.type === "assistant");

      const third = await rewindFiles(q.sessionId, assistants[2]!.uuid, { store, dryRun: true });
      expect(third).toEqual({ restored: [join(work, "a.txt")], deleted: [join(work, "b.txt")] });
      expect(existsSync(join(work, "b.txt"))).toBe(true);

      await q.rewindFiles(assistants[2]!.uuid);
      expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("changed\n");
      expect(existsSync(join(work, "b.txt"))).toBe(false);

      const prompt = (await store.getSessionMessages(q.sessionId)).find((m) => m.type === "user")!;
      await rewindFiles(q.sessionId, prompt.uuid ?? "", { store });
      expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("original\n");
    });
  });
});
